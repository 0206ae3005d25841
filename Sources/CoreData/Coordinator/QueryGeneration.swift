import Foundation

/// One query generation of a coordinator: for each store added when it was taken whose backend keeps generations
/// (`QueryGenerationPinning`), that store's generation (`StoreGeneration`). A context pinned to it reads those
/// stores through it, and every other store at its latest state (Apple's "graceful revert to unpinned
/// behavior").
///
/// Guarantees:
/// - Contexts and tokens (`NSQueryGenerationToken`) hold it strongly, and nothing else does (the coordinator keeps
///   a weak list): when the last of them lets go, its store generations are closed, which releases what they held
///   (for SQLite, the read transaction that keeps the write-ahead log from being checkpointed).
/// - Removing a store from the coordinator closes that store's generation at once (`release(_:)`), whoever
///   still holds the generation; reads of that store through it are then no longer routed (the store is gone).
///
/// `@unchecked Sendable`: `entries` and `removedStores` are read and written only under `lock`; `coordinator` is
/// a weak reference set at creation. Store generations are used only under the coordinator's lock (through
/// `QueryGenerationPinning.reading(at:_:)`), and closed under `lock` or by the last owner.
final class QueryGeneration: @unchecked Sendable {
    /// The coordinator whose stores the generation was taken of.
    private(set) weak var coordinator: NSPersistentStoreCoordinator?
    private let lock = NSLock()
    /// The generation of each store that has one, by the store's identity.
    private var entries: [ObjectIdentifier: StoreGeneration]
    /// The paths (or types) of stores removed from the coordinator while the generation held theirs.
    private var removedStores: [String] = []

    /// A generation of `coordinator` made of `generations`, one per store that keeps generations.
    init(coordinator: NSPersistentStoreCoordinator, generations: [(store: NSPersistentStore, generation: StoreGeneration)]) {
        self.coordinator = coordinator
        var entries: [ObjectIdentifier: StoreGeneration] = [:]
        for (store, generation) in generations { entries[ObjectIdentifier(store.identity)] = generation }
        self.entries = entries
    }

    /// `store`'s generation in this one, or nil when the store has none (it keeps no generations, was added
    /// after this generation was taken, or was removed): reads of it then see its latest state.
    func storeGeneration(of store: NSPersistentStore) -> StoreGeneration? {
        lock.lock()
        defer { lock.unlock() }
        return entries[ObjectIdentifier(store.identity)]
    }

    /// Closes `store`'s generation, which is being removed from the coordinator, and notes the removal.
    func release(_ store: NSPersistentStore) {
        lock.lock()
        let generation = entries.removeValue(forKey: ObjectIdentifier(store.identity))
        if generation != nil { removedStores.append(store.url?.path ?? store.type) }
        lock.unlock()
        generation?.close()
    }

    /// The stores removed from the coordinator while this generation held a generation of theirs.
    var storesRemoved: [String] {
        lock.lock()
        defer { lock.unlock() }
        return removedStores
    }

    deinit {
        for generation in entries.values { generation.close() }
    }
}

/// The generations of a coordinator still alive, held weakly, so that removing a store closes its generation in
/// each of them (`NSPersistentStoreCoordinator.remove(_:)`).
///
/// `@unchecked Sendable`: `live` is read and written only under `lock`.
final class QueryGenerationList: @unchecked Sendable {
    private struct Weak { weak var generation: QueryGeneration? }
    private let lock = NSLock()
    private var live: [Weak] = []

    /// Notes a new generation, forgetting those no one holds any more.
    func note(_ generation: QueryGeneration) {
        lock.lock()
        defer { lock.unlock() }
        live.removeAll { $0.generation == nil }
        live.append(Weak(generation: generation))
    }

    /// Closes `store`'s generation in every live generation.
    func release(_ store: NSPersistentStore) {
        lock.lock()
        let alive = live.compactMap(\.generation)
        lock.unlock()
        for generation in alive { generation.release(store) }
    }
}

import Foundation
import Synchronization

/// Query generations: a pinned context reads its stores as they were at its generation, plus its own unsaved
/// changes, whatever other contexts, coordinators or processes save meanwhile (Apple's "Accessing data when the
/// store changes").
///
/// Guarantees:
/// - Every read of a pinned context (fetches and counts of every result type, faults and batch faults, to-many
///   faults, prefetching, `existingObject(with:)`, the rows of computed dictionary fetches) is routed to its
///   generation; only the checks a save makes against the store (uniqueness, version conflicts) read the
///   latest state, as they must.
/// - Only stores whose backend keeps generations (`QueryGenerationPinning`: the SQLite store in WAL mode) have
///   one; any other store (in-memory, XML, binary, PostgreSQL, SQLite in another journal mode, or a store added
///   after the generation was taken) is read at its latest state, without an error.
/// - `.current` pins to the newest generation, taken lazily at the context's next read. `save()` moves a pinned
///   context to the generation right after it, whose token its did-save notification carries;
///   `mergeChanges(fromContextDidSave:)`, `mergeChanges(fromRemoteContextSave:into:)` and `reset()` move a pinned
///   context to the newest generation the same way; an unpinned context stays unpinned.
/// - A child context reads through its root ancestor's generation (and sees its ancestors' unsaved changes); it
///   is itself unpinned: its token is nil, and pinning it throws.
/// - A generation is held while a context is pinned to it or a token of it exists; unpinning, advancing,
///   `reset()`, the context's end, and removing a store from the coordinator release it.
extension NSManagedObjectContext {
    /// The generation this context is pinned to: nil for an unpinned context (and for a child context, which is
    /// implicitly unpinned); `NSQueryGenerationToken.current` while the newest generation is still to be taken
    /// at the next read; otherwise a token naming the generation, which pins another context of the same
    /// coordinator to it.
    public var queryGenerationToken: NSQueryGenerationToken? {
        guard parent == nil else { return nil }
        switch queryGenerationPin.state {
        case .unpinned: return nil
        case .newest: return .current
        case .pinned(let generation): return NSQueryGenerationToken(generation: generation)
        }
    }

    /// Pins the context to a query generation, or unpins it with nil. `.current` pins it to the newest
    /// generation, taken at the context's next read (fetching or faulting); a token from another context's
    /// `queryGenerationToken` pins it to that context's generation. Registered objects keep their values: call
    /// `refreshAllObjects()` to read them at the new generation.
    /// - Throws: 134091 (`NSPersistentStoreUnsupportedRequestTypeError`) for a child context, which reads through
    ///   its parent's generation; 134060 (`NSCoreDataError`) for a token of another coordinator's generation, or
    ///   of a generation whose store was removed from the coordinator since. The context is left as it was.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        checkQueue("setQueryGenerationFrom(_:)")
        guard let generation else {
            queryGenerationPin.state = .unpinned
            return
        }
        guard parent == nil else {
            throw CoreDataError.unsupported("pinning a child context to a query generation (it reads through its parent's generation; pin the parent)")
        }
        guard let pinned = generation.generation else {
            queryGenerationPin.state = .newest
            return
        }
        guard let coordinator = pinned.coordinator, coordinator === persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The query generation token was taken from another persistent store coordinator's stores; a context can only be pinned to a generation of its own coordinator.")
        }
        let removed = pinned.storesRemoved
        guard removed.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "The query generation token's store at \(removed.joined(separator: ", ")) was removed from the coordinator; its generation no longer exists.")
        }
        queryGenerationPin.state = .pinned(pinned)
    }

    /// The generation this context's reads go through: its root ancestor's, taken now when the root is pinned to
    /// the newest generation and has not read since; nil when the root is unpinned.
    /// - Throws: a store's error taking the generation.
    ///
    /// An unpinned root answers with one atomic load (every fetch and every fault that fills asks): the
    /// coordinator is not loaded, retained or released then.
    func readingGeneration() throws -> QueryGeneration? {
        // A root context answers without a reference to itself being copied: contexts are weakly referenced by
        // their objects, so each retain and release of one takes the runtime's slow path.
        guard let parent else { return try generation(ofRoot: self) }
        var root = parent
        while let next = root.parent { root = next }
        return try generation(ofRoot: root)
    }

    /// The generation the reads of `root` (a root context) go through, as `readingGeneration()` describes.
    private func generation(ofRoot root: NSManagedObjectContext) throws -> QueryGeneration? {
        guard root.queryGenerationPin.mayBePinned, let coordinator = root.persistentStoreCoordinator else { return nil }
        return try root.queryGenerationPin.generation { try coordinator.newestQueryGeneration() }
    }

    /// Moves a pinned context to the newest generation, taken at its next read (after a save, a merge of
    /// another context's save, or `reset()`), releasing the one it held; an unpinned context stays unpinned.
    func advanceQueryGeneration() {
        queryGenerationPin.advance()
    }

    /// Moves a pinned root context to the generation its own save just made and returns that generation's token,
    /// which the did-save notification carries under `NotificationKey.queryGeneration`; nil for an unpinned
    /// context. The generation is taken at once, so the token names the stores as they are right after the save
    /// (and after any save another coordinator finished in between). When a store cannot begin the read now,
    /// the context stays pinned to the newest generation, taken at its next read (where the error surfaces), and
    /// the token is `.current`.
    func advanceQueryGenerationPastSave() -> NSQueryGenerationToken? {
        advanceQueryGeneration()
        guard queryGenerationToken != nil else { return nil }
        _ = try? readingGeneration()
        return queryGenerationToken
    }
}

/// Which generation a context is pinned to. The state is read by the context's children on their own queues,
/// so it is kept under a lock of its own; whether it is pinned at all is also an atomic flag, so that the reads
/// of an unpinned context (every fetch and fault asks) take no lock.
///
/// `@unchecked Sendable`: `current` is read and written only under `lock`; `isPinned` is an atomic written
/// only under `lock`, and read without it: a context's state is set on its queue, and the queues reading it
/// (its own, its children's through `performAndWait`) are ordered after that.
final class QueryGenerationPin: @unchecked Sendable {
    /// Unpinned, pinned to the newest generation not yet taken, or pinned to one generation.
    enum State {
        case unpinned
        case newest
        case pinned(QueryGeneration)
    }

    private let lock = NSLock()
    private var current: State = .unpinned
    /// Whether `current` is not `.unpinned`.
    private let isPinned = Atomic<Bool>(false)

    /// Whether the context may be pinned: false only when it is unpinned, read without the lock (see the type's
    /// note on `isPinned`). `generation(taking:)` gives nil when this is false.
    var mayBePinned: Bool { isPinned.load(ordering: .relaxed) }

    /// The state; setting it releases the generation held before.
    var state: State {
        get {
            lock.lock()
            defer { lock.unlock() }
            return current
        }
        set {
            lock.lock()
            let released = current
            current = newValue
            if case .unpinned = newValue { isPinned.store(false, ordering: .relaxed) } else { isPinned.store(true, ordering: .relaxed) }
            lock.unlock()
            _ = released  // the previous generation is let go of here, outside the lock
        }
    }

    /// The generation reads go through: nil when unpinned; when pinned to the newest, the one `take` gives,
    /// which the pin keeps from then on. `take` runs outside the lock (it takes the coordinator's, which a save
    /// holding it may need while reading this state); when the state changed meanwhile, the new state wins.
    /// - Throws: what `take` throws (the pin stays at the newest).
    func generation(taking take: () throws -> QueryGeneration) throws -> QueryGeneration? {
        guard isPinned.load(ordering: .relaxed) else { return nil }
        switch state {
        case .unpinned: return nil
        case .pinned(let generation): return generation
        case .newest: break
        }
        let taken = try take()
        lock.lock()
        defer { lock.unlock() }
        switch current {
        case .unpinned: return nil
        case .pinned(let generation): return generation
        case .newest:
            current = .pinned(taken)
            return taken
        }
    }

    /// Moves a pinned state to the newest generation; unpinned stays unpinned.
    func advance() {
        lock.lock()
        var released: State = .unpinned
        if case .pinned = current {
            released = current
            current = .newest
        }
        lock.unlock()
        _ = released
    }
}

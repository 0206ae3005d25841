import Foundation
import Synchronization

/// One row of a store as the coordinator last knew it: read by a fetch or a fault, or written by a save through
/// the coordinator (Apple's row-cache snapshot).
///
/// Snapshots live in the coordinator's `RowCache` and are held strongly by the objects that use them: a fault
/// made by a fetch (`FaultState.snapshot`) and an object filled from a row (`FaultState.filledFromRow`). The cache
/// lets go of a snapshot that nothing else holds, so its memory follows the objects alive.
///
/// Each snapshot knows whether it is still the cache's newest of its row (`isCacheNewest`), so a fault holding
/// it can tell, without the cache's lock, that a look-up would give it back.
///
/// `@unchecked Sendable`: every stored property but `cacheNewest` is a constant set before the snapshot is
/// shared, and the values are what a store reads or a save writes (attribute values and object keys), which
/// nothing changes afterwards; contexts on different queues read the same snapshot. `cacheNewest` is an atomic,
/// written only under the row cache's lock.
final class RowSnapshot: @unchecked Sendable {
    // The key is stored as its two parts with the one-byte flag between them, where `ObjectKey` has padding: the
    // snapshot stays 56 bytes (a 64-byte heap block) with the flag, as it was without it.
    private let entityNumber: Int32
    /// Whether the row cache holds this snapshot as the newest of its key (see `isCacheNewest`).
    private let cacheNewest = Atomic<Bool>(false)
    private let primaryKey: Int64
    /// The store's optimistic-locking version of `values`.
    let version: Int64
    /// The values by slot, as the store gives them (to-one relationships as keys, transformable values as data).
    let values: [Any?]
    /// When the row was read from its store or written to it (`RowSnapshot.now()`, seconds of a monotonic clock):
    /// what a positive `stalenessInterval` is compared with.
    let readTime: TimeInterval

    /// A snapshot of a row read or written at `readTime`, not (yet) in the row cache.
    init(key: ObjectKey, version: Int64, values: [Any?], readTime: TimeInterval) {
        self.entityNumber = key.entityNumber
        self.primaryKey = key.primaryKey
        self.version = version
        self.values = values
        self.readTime = readTime
    }

    /// A snapshot of a row a store returned, read at `readTime`, not (yet) in the row cache.
    convenience init(_ row: StoreRow, readTime: TimeInterval) {
        self.init(key: row.key, version: row.version, values: row.values, readTime: readTime)
    }

    /// The object's key in its store.
    var key: ObjectKey { ObjectKey(entityNumber: entityNumber, primaryKey: primaryKey) }

    /// Whether this is a snapshot of `key`'s row.
    func hasKey(_ key: ObjectKey) -> Bool { primaryKey == key.primaryKey && entityNumber == key.entityNumber }

    /// The row as the store contract gives it (the values are shared, not copied).
    var row: StoreRow { StoreRow(key: key, version: version, values: values) }

    // MARK: The row cache's newest

    /// Whether the row cache holds this snapshot as the newest of its key: true from when the cache records it
    /// until the cache replaces it (a newer read or save of the row) or removes it (a deletion, a batch change, a
    /// merge, the store's removal); never true for a snapshot the cache never recorded. While it is true, a
    /// look-up of the key in the cache (`RowCache.snapshot(of:in:stalenessInterval:)`) gives this snapshot (an
    /// object holds it, so the cache keeps it), so a fault holding it may fill from it without asking the cache.
    ///
    /// Read without the cache's lock: a relaxed load suffices. The flag is only written under the lock, and a
    /// fault whose context learnt of a save or removal (a notification, a `perform` after it, a lock) happens
    /// after the write and so sees it; a fault racing a save on another queue without any such order may see
    /// either answer, as it may fill before or after the save.
    var isCacheNewest: Bool { cacheNewest.load(ordering: .relaxed) }

    /// Marks the snapshot as the cache's newest of its key (the cache's lock held).
    func enterCache() { cacheNewest.store(true, ordering: .relaxed) }

    /// Marks the snapshot as no longer the cache's newest: replaced or removed (the cache's lock held).
    func leaveCache() { cacheNewest.store(false, ordering: .relaxed) }

    // MARK: Age

    /// The current time of the clock `readTime` is measured with: seconds since the system started, which never
    /// goes back.
    static func now() -> TimeInterval { ProcessInfo.processInfo.systemUptime }

    /// Whether the snapshot may fill a fault of a context whose `stalenessInterval` is `interval`: a negative
    /// interval accepts any age, 0 none, a positive one a snapshot read less than `interval` seconds before `now`.
    func isFresh(forStalenessInterval interval: TimeInterval, now: TimeInterval) -> Bool {
        if interval < 0 { return true }
        return now - readTime < interval
    }
}

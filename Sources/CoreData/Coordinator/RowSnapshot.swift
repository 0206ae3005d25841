import Foundation

/// One row of a store as the coordinator last knew it: read by a fetch or a fault, or written by a save through
/// the coordinator (Apple's row-cache snapshot).
///
/// Snapshots live in the coordinator's `RowCache` and are held strongly by the objects that use them: a fault
/// made by a fetch (`FaultState.snapshot`) and an object filled from a row (`FaultState.filledFromRow`). The cache
/// lets go of a snapshot that nothing else holds, so its memory follows the objects alive.
///
/// `@unchecked Sendable`: every stored property is a constant set before the snapshot is shared, and the values
/// are what a store reads or a save writes (attribute values and object keys), which nothing changes afterwards;
/// contexts on different queues read the same snapshot.
final class RowSnapshot: @unchecked Sendable {
    /// The object's key in its store.
    let key: ObjectKey
    /// The store's optimistic-locking version of `values`.
    let version: Int64
    /// The values by slot, as the store gives them (to-one relationships as keys, transformable values as data).
    let values: [Any?]
    /// When the row was read from its store or written to it (`RowSnapshot.now()`, seconds of a monotonic clock):
    /// what a positive `stalenessInterval` is compared with.
    let readTime: TimeInterval

    /// A snapshot of a row read or written at `readTime`.
    init(key: ObjectKey, version: Int64, values: [Any?], readTime: TimeInterval) {
        self.key = key
        self.version = version
        self.values = values
        self.readTime = readTime
    }

    /// A snapshot of a row a store returned, read at `readTime`.
    convenience init(_ row: StoreRow, readTime: TimeInterval) {
        self.init(key: row.key, version: row.version, values: row.values, readTime: readTime)
    }

    /// The row as the store contract gives it (the values are shared, not copied).
    var row: StoreRow { StoreRow(key: key, version: version, values: values) }

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

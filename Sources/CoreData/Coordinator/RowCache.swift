import Foundation

/// The coordinator's row cache, shared by its contexts: the newest snapshot of each row read or saved through
/// the coordinator, per store and key (Apple's coordinator row cache).
///
/// Guarantees:
/// - Every row the coordinator reads from a store is recorded (`record(_:of:readAt:)`), replacing the snapshot it
///   had for that key; every successful save records its inserted and updated rows with their new versions and
///   removes its deleted rows (`recordSave(_:result:of:at:)`); keys whose values the cache cannot know (batch
///   updates and deletes, derived values a save computed, changes merged from elsewhere) are removed (`forget`).
///   So the snapshot found for a key is the row as last read or written through this coordinator.
/// - A snapshot's `isCacheNewest` is true exactly while the cache holds it as the newest of its key: set when it
///   is recorded, cleared when it is replaced or removed (by `record`, `recordSave`, `forget`, `forgetAll`), all
///   under the lock. Only a look-up or a sweep removes a snapshot without clearing it, and those remove only
///   snapshots nothing else holds, whose flag nobody can read. So a fault holding a snapshot whose flag is set
///   knows, without the lock, that a look-up would give that snapshot back (the fault's fast path).
/// - Reference counting: a snapshot is held by the objects that use it, and the cache lets go of one that only it
///   holds. A look-up treats such a snapshot as absent (and removes it), so what a fault finds never depends on
///   when the last sweep ran; `sweep()` removes all of them at once, and runs by itself when recording would take
///   the cache past twice the snapshots it held after the last sweep (and past `sweepThreshold`), so each sweep is
///   paid for by the rows recorded since, and the cache holds at most about twice the snapshots objects use. It
///   runs before the new snapshots are entered: their caller holds them, so a pass over them would remove none.
/// - Each call takes the lock once, whatever the number of rows.
///
/// - Each store's snapshots are one `RowSnapshotTable` (found by key with one multiplication, the key read off the
///   snapshot), reached through a dictionary of tables by store once per call, never per row.
///
/// `@unchecked Sendable`: `tables` and `countAfterLastSweep` are read and written only under `lock`;
/// snapshots themselves are immutable but for their `isCacheNewest` flag, an atomic written only under `lock`.
/// `isKnownUniquelyReferenced` is exact from any thread: a snapshot only the cache holds cannot be reached by
/// anyone else, and nobody takes one out of the cache without the lock.
final class RowCache: @unchecked Sendable {
    /// Sweeps wait until the cache holds more snapshots than this.
    static let sweepThreshold = 1_024

    private let lock = NSLock()
    /// Each store's snapshots, by the identity object of the added store.
    private var tables: [ObjectIdentifier: RowSnapshotTable] = [:]
    private var countAfterLastSweep = 0

    /// The number of snapshots held, those no object uses any more but not yet swept included.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return heldCount
    }

    /// The number of snapshots held in all stores' tables (the lock held).
    private var heldCount: Int { tables.values.reduce(0) { $0 + $1.count } }

    /// The table of `store`'s snapshots, made when the store has none (the lock held).
    private func table(of store: ObjectIdentifier) -> RowSnapshotTable {
        if let table = tables[store] { return table }
        let table = RowSnapshotTable()
        tables[store] = table
        return table
    }

    // MARK: Reading

    /// The newest snapshot of `key` in `store` that some object still uses, if it may fill a fault of a context
    /// whose `stalenessInterval` is `interval` (see `RowSnapshot.isFresh`); nil otherwise.
    func snapshot(of key: ObjectKey, in store: NSPersistentStore, stalenessInterval interval: TimeInterval) -> RowSnapshot? {
        guard interval != 0 else { return nil }
        let now = interval > 0 ? RowSnapshot.now() : 0  // the clock is read only when the age matters
        lock.lock()
        defer { lock.unlock() }
        guard let table = tables[ObjectIdentifier(store.identity)] else { return nil }
        return usedSnapshot(key, in: table, stalenessInterval: interval, now: now)
    }

    /// The snapshots of `keys` in `store` that `snapshot(of:in:stalenessInterval:)` would give, by key, and the
    /// keys it has none for, in the order given.
    func snapshots(of keys: [ObjectKey], in store: NSPersistentStore,
                   stalenessInterval interval: TimeInterval) -> (found: [RowSnapshot], missing: [ObjectKey]) {
        guard interval != 0 else { return ([], keys) }
        let now = interval > 0 ? RowSnapshot.now() : 0
        var found: [RowSnapshot] = []
        var missing: [ObjectKey] = []
        lock.lock()
        defer { lock.unlock() }
        guard let table = tables[ObjectIdentifier(store.identity)] else { return ([], keys) }
        for key in keys {
            if let snapshot = usedSnapshot(key, in: table, stalenessInterval: interval, now: now) {
                found.append(snapshot)
            } else {
                missing.append(key)
            }
        }
        return (found, missing)
    }

    /// The snapshot of `key` in `table` when an object still uses it and it is fresh enough; one only the cache
    /// holds is removed (the lock held).
    private func usedSnapshot(_ key: ObjectKey, in table: RowSnapshotTable, stalenessInterval interval: TimeInterval,
                              now: TimeInterval) -> RowSnapshot? {
        guard let position = table.position(of: key) else { return nil }  // the one hash of the look-up
        if table.isOnlyHolder(at: position) {
            table.remove(at: position)  // nothing else holds it: no flag to clear
            return nil
        }
        guard let snapshot = table.element(at: position) else { return nil }
        return snapshot.isFresh(forStalenessInterval: interval, now: now) ? snapshot : nil
    }

    // MARK: Recording

    /// Records rows `store` just gave (read at `readTime`), each replacing the snapshot of its key, and returns
    /// their snapshots in the same order (each the cache's newest of its key, unless a later row of `rows` has
    /// the same key).
    func record(_ rows: consuming [StoreRow], of store: NSPersistentStore, readAt readTime: TimeInterval) -> [RowSnapshot] {
        let storeID = ObjectIdentifier(store.identity)
        let recorded = Self.snapshots(of: rows, readAt: readTime)  // made before the lock is taken
        lock.lock()
        defer { lock.unlock() }
        let table = table(of: storeID)
        let swept = makeRoom(in: table, forEntering: recorded.count, newKeysAtMost: recorded.count)
        for snapshot in recorded { enter(snapshot, in: table) }
        if swept { countAfterLastSweep = heldCount }
        return recorded
    }

    /// Snapshots of `rows`, in the same order. The rows are taken apart rather than copied: each row's values move
    /// into its snapshot (when the caller gave up its array, as the coordinator's readers do), so a large fetch
    /// does not touch each row's value array twice more, once to retain it and once to release it with the array.
    private static func snapshots(of rows: consuming [StoreRow], readAt readTime: TimeInterval) -> [RowSnapshot] {
        var remaining = rows
        var made: [RowSnapshot] = []
        made.reserveCapacity(remaining.count)
        while let row = remaining.popLast() { made.append(RowSnapshot(row, readTime: readTime)) }
        made.reverse()
        return made
    }

    /// Makes room for `incoming` snapshots about to be entered into `table`, of which at most `newKeys` may be keys
    /// the table lacks (the lock held). First sweeps when entering them could take the cache past `sweepThreshold` and past
    /// twice the snapshots it held after the last sweep; returns whether it swept (the caller then counts the
    /// snapshots after entering its own as the new base: they are used, by the caller's objects). Then reserves
    /// room for the new keys when they outnumber the snapshots held (a large read into a small cache); fewer,
    /// which may mostly replace snapshots held, leave the growth to the table, so that re-reading or saving rows
    /// the cache has does not make it rehash every entry.
    private func makeRoom(in table: RowSnapshotTable, forEntering incoming: Int, newKeysAtMost newKeys: Int) -> Bool {
        let most = heldCount + incoming
        let sweeps = most > Self.sweepThreshold && most > 2 * countAfterLastSweep
        if sweeps { sweepHoldingLock() }
        if newKeys > table.count { table.reserveCapacity(table.count + newKeys) }
        return sweeps
    }

    /// Makes `snapshot` the newest of its key in `table`, clearing the flag of the one it replaces (one hash; the
    /// lock held).
    private func enter(_ snapshot: RowSnapshot, in table: RowSnapshotTable) {
        table.insert(snapshot)?.leaveCache()
        snapshot.enterCache()
    }

    /// Removes the snapshot of `key` from `table`, clearing its flag (the lock held).
    private func remove(_ key: ObjectKey, from table: RowSnapshotTable) {
        table.remove(key)?.leaveCache()
    }

    /// The snapshots a save recorded, in the order of its change set: one for each inserted row
    /// (`StoreChangeSet.inserted`) and one for each updated row (`StoreChangeSet.updated`), nil for a row whose
    /// written values the cache does not know (removed from the cache instead).
    struct SavedSnapshots {
        var inserted: [RowSnapshot?] = []
        var updated: [RowSnapshot?] = []
    }

    /// Records what a successful save wrote to `store` at `time`: inserted and updated rows with their new
    /// versions (1 for an insert, the checked version plus one for an update, or the version the store reports),
    /// and removes deleted rows and rows whose derived values the store computed (their values by slot are not
    /// known here). Returns the snapshots of the inserted and updated rows, in change-set order.
    func recordSave(_ changes: StoreChangeSet, result: StoreSaveResult, of store: NSPersistentStore,
                    at time: TimeInterval) -> SavedSnapshots {
        let storeID = ObjectIdentifier(store.identity)
        let derived = !result.derivedValues.isEmpty  // the store computed some rows' values: look each row up
        var saved = SavedSnapshots()
        saved.inserted = changes.inserted.map { row in
            if derived, result.derivedValues[row.key] != nil { return nil }
            let version = result.versions.isEmpty ? 1 : result.versions[row.key] ?? 1
            return RowSnapshot(key: row.key, version: version, values: row.values, readTime: time)
        }
        saved.updated = changes.updated.map { update in
            let key = update.row.key
            if derived, result.derivedValues[key] != nil { return nil }
            let reported = result.versions.isEmpty ? nil : result.versions[key]
            guard let version = reported ?? update.expectedVersion.map({ $0 + 1 }) else { return nil }
            return RowSnapshot(key: key, version: version, values: update.row.values, readTime: time)
        }
        lock.lock()
        defer { lock.unlock() }
        let table = table(of: storeID)
        // Updated rows mostly replace snapshots the cache holds; inserted ones are new keys.
        let swept = makeRoom(in: table, forEntering: saved.inserted.count + saved.updated.count, newKeysAtMost: saved.inserted.count)
        for deletion in changes.deleted { remove(deletion.key, from: table) }
        for key in result.derivedValues.keys { remove(key, from: table) }
        for (row, snapshot) in zip(changes.inserted, saved.inserted) {
            if let snapshot { enter(snapshot, in: table) } else { remove(row.key, from: table) }
        }
        for (update, snapshot) in zip(changes.updated, saved.updated) {
            if let snapshot { enter(snapshot, in: table) } else { remove(update.row.key, from: table) }
        }
        if swept { countAfterLastSweep = heldCount }
        return saved
    }

    // MARK: Forgetting

    /// Removes the snapshots of `keys` in `store`: their rows changed in ways the cache cannot follow.
    func forget(_ keys: [ObjectKey], in store: NSPersistentStore) {
        guard !keys.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        guard let table = tables[ObjectIdentifier(store.identity)] else { return }
        for key in keys { remove(key, from: table) }
    }

    /// Removes every snapshot of `store` (a batch change whose rows are not known, or the store was removed).
    func forgetAll(in store: NSPersistentStore) {
        lock.lock()
        defer { lock.unlock() }
        guard let table = tables.removeValue(forKey: ObjectIdentifier(store.identity)) else { return }
        table.removeAll { $0.leaveCache() }
        countAfterLastSweep = heldCount
    }

    // MARK: Sweeping

    /// Removes every snapshot that only the cache holds.
    func sweep() {
        lock.lock()
        defer { lock.unlock() }
        sweepHoldingLock()
    }

    /// One pass over the cache, removing the snapshots only it holds (the lock held).
    private func sweepHoldingLock() {
        for table in tables.values { table.removeUnreferenced() }
        countAfterLastSweep = heldCount
    }
}

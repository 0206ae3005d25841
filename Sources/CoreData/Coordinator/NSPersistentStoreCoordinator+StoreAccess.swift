/// The coordinator's entry points to its stores: the one road from contexts (and the rest of `CoreData`) to
/// the backends.
///
/// Each entry point takes the coordinator's lock, routes to the stores it is given or finds (by configuration
/// and `affectedStores`), and maps errors: a backend's `NSError` in `NSCocoaErrorDomain` reaches the caller as
/// it is; any other error becomes one with Apple's code (134030 for writes, 134070 for reads), the backend's
/// error under `NSUnderlyingErrorKey` and the store under `NSAffectedStoresErrorKey`. Nothing is swallowed.
/// `StoreVersionConflict` never reaches a caller as an error: `applyChanges(to:building:resolvingConflicts:)`
/// hands it to the context's merge policy.
///
/// The read entry points take the query generation of the context reading (`at:`, nil for an unpinned one).
/// A store that has a generation in it is read through it (`QueryGenerationPinning.reading(at:_:)`), and the row
/// cache, which holds the newest rows, is neither consulted nor updated by such a read; other stores are read as
/// for an unpinned context.
extension NSPersistentStoreCoordinator {
    // MARK: Routing

    /// The added stores whose configuration holds `entity`, in the order they were added, kept to those in
    /// `affected` when it is given (a request's `affectedStores`).
    func stores(holding entity: NSEntityDescription, among affected: [NSPersistentStore]? = nil) -> [NSPersistentStore] {
        let holding = persistentStores.filter { $0.holds(entity) }
        guard let affected else { return holding }
        return holding.filter { store in affected.contains { $0 === store } }
    }

    /// The added stores, kept to those in `affected` when it is given.
    func stores(among affected: [NSPersistentStore]?) -> [NSPersistentStore] {
        guard let affected else { return persistentStores }
        return persistentStores.filter { store in affected.contains { $0 === store } }
    }

    /// The store a new object of `entity` goes to when none is assigned: the first whose configuration holds it.
    func firstStore(holding entity: NSEntityDescription) -> NSPersistentStore? {
        persistentStores.first { $0.holds(entity) }
    }

    /// The keys of saved object IDs, grouped by the added store that holds them, in the order stores were
    /// added; temporary IDs and IDs of other coordinators' stores are left out.
    func keysByStore(_ ids: [NSManagedObjectID]) -> [(store: NSPersistentStore, keys: [ObjectKey])] {
        persistentStores.compactMap { store in
            let keys = ids.filter { $0.storeIdentity === store.identity }.compactMap(\.key)
            return keys.isEmpty ? nil : (store, keys)
        }
    }

    // MARK: Declared capabilities

    /// Whether `store` computes aggregates itself (its backend adopts `AggregatingBackend`).
    func computesAggregates(_ store: NSPersistentStore) -> Bool { store.backend is AggregatingBackend }

    /// Whether `store` runs batch updates (its backend adopts `BatchUpdating`).
    func runsBatchUpdates(_ store: NSPersistentStore) -> Bool { store.backend is BatchUpdating }

    /// Whether `store` runs batch inserts (its backend adopts `BatchInserting`).
    func runsBatchInserts(_ store: NSPersistentStore) -> Bool { store.backend is BatchInserting }

    /// Whether `store` keeps persistent history (its backend adopts `PersistentHistoryBackend`).
    func keepsHistory(_ store: NSPersistentStore) -> Bool { store.backend is PersistentHistoryBackend }

    /// The metadata `store`'s backend holds (without changes not yet saved).
    func backendMetadata(of store: NSPersistentStore) -> [String: Any] {
        withLock { store.backend.metadata }
    }

    // MARK: Fetching

    /// The rows `request` selects in each of `stores`, store by store in the given order, as snapshots recorded
    /// in the row cache (each replacing the snapshot the cache had for its key).
    /// - Throws: the first store's error (as Apple's `NSError`); 134060 when a store answers with another
    ///   kind of result than rows.
    func fetchRowSnapshots(_ request: StoreFetchRequest, from stores: [NSPersistentStore],
                           at generation: QueryGeneration?) throws -> [(store: NSPersistentStore, rows: [RowSnapshot])] {
        try stores.map { store in
            let readTime = RowSnapshot.now()
            guard case .rows(let rows) = try fetch(request, in: store, at: generation) else { throw wrongResultKind(store, "rows") }
            return (store, record(consume rows, of: store, readAt: readTime, at: generation))
        }
    }

    /// The rows `request` selects in each of `stores`, as `fetchRowSnapshots(_:from:)` gives and records them.
    /// - Throws: as `fetchRowSnapshots(_:from:)`.
    func fetchRows(_ request: StoreFetchRequest, from stores: [NSPersistentStore],
                   at generation: QueryGeneration?) throws -> [(store: NSPersistentStore, rows: [StoreRow])] {
        try fetchRowSnapshots(request, from: stores, at: generation).map { ($0.store, $0.rows.map(\.row)) }
    }

    /// The keys `request` selects in each of `stores`, store by store in the given order.
    /// - Throws: as `fetchRows(_:from:)`.
    func fetchKeys(_ request: StoreFetchRequest, from stores: [NSPersistentStore],
                   at generation: QueryGeneration?) throws -> [(store: NSPersistentStore, keys: [ObjectKey])] {
        try stores.map { store in
            guard case .keys(let keys) = try fetch(request, in: store, at: generation) else { throw wrongResultKind(store, "keys") }
            return (store, keys)
        }
    }

    /// The sum of the counts `request` gives in each of `stores` (each store applies the request's limit and
    /// offset itself).
    /// - Throws: as `fetchRows(_:from:)`.
    func count(_ request: StoreFetchRequest, in stores: [NSPersistentStore], at generation: QueryGeneration?) throws -> Int {
        try stores.reduce(0) { total, store in
            guard case .count(let count) = try fetch(request, in: store, at: generation) else { throw wrongResultKind(store, "a count") }
            return total + count
        }
    }

    /// The dictionaries `request` (of result kind `.dictionaries`) gives in each of `stores`, store by store.
    /// - Throws: as `fetchRows(_:from:)`.
    func fetchDictionaries(_ request: StoreFetchRequest, from stores: [NSPersistentStore],
                           at generation: QueryGeneration?) throws -> [(store: NSPersistentStore, dictionaries: [[String: Any]])] {
        try stores.map { store in
            guard case .dictionaries(let rows) = try fetch(request, in: store, at: generation) else { throw wrongResultKind(store, "dictionaries") }
            return (store, rows)
        }
    }

    /// The rows `request` (of result kind `.rows`) selects in each of `stores`, store by store, as the stores
    /// give them, not recorded in the row cache: for dictionary results, which register no objects.
    /// - Throws: as `fetchRows(_:from:)`.
    func fetchRowsForDictionaries(_ request: StoreFetchRequest, from stores: [NSPersistentStore],
                                  at generation: QueryGeneration?) throws -> [(store: NSPersistentStore, rows: [StoreRow])] {
        try stores.map { store in
            guard case .rows(let rows) = try fetch(request, in: store, at: generation) else { throw wrongResultKind(store, "rows") }
            return (store, rows)
        }
    }

    /// One store's grouped aggregates (see `AggregatingBackend`), or nil when the store does not compute
    /// aggregates, cannot compute this query, or fails at it: the contract's fallback, where the caller
    /// computes the same results from rows, whose read reports a lasting store failure.
    func aggregate(_ request: StoreFetchRequest, query: StoreAggregateQuery, in store: NSPersistentStore,
                   at generation: QueryGeneration?) -> [[Any?]]? {
        guard let backend = store.backend as? AggregatingBackend else { return nil }
        return try? read(store, at: generation, "compute aggregates") { try backend.aggregate(request, query: query) }
    }

    // MARK: Faulting

    /// The current rows of `keys` in `store`, read from the store and recorded in the row cache; keys the store
    /// does not have are left out.
    /// - Throws: the store's error, as Apple's `NSError`.
    func rows(for keys: [ObjectKey], in store: NSPersistentStore, at generation: QueryGeneration?) throws -> [StoreRow] {
        try storeRowSnapshots(for: keys, in: store, at: generation).map(\.row)
    }

    /// The rows of `keys` in `store` for faults of a context whose `stalenessInterval` is `interval`: the row
    /// cache's snapshot of each key that an object still uses and that is fresh enough (the newest read or saved
    /// through this coordinator), and the others read from the store in one call and recorded. Keys the store
    /// does not have are left out; the order is not the order of `keys`. A context pinned to a generation of the
    /// store reads every row from it (the cache's rows may be newer).
    /// - Throws: the store's error, as Apple's `NSError`.
    func rowSnapshots(for keys: [ObjectKey], in store: NSPersistentStore, stalenessInterval interval: TimeInterval,
                      at generation: QueryGeneration?) throws -> [RowSnapshot] {
        if generation?.storeGeneration(of: store) != nil { return try storeRowSnapshots(for: keys, in: store, at: generation) }
        let (cached, missing) = rowCache.snapshots(of: keys, in: store, stalenessInterval: interval)
        guard !missing.isEmpty else { return cached }
        return cached + (try storeRowSnapshots(for: missing, in: store, at: generation))
    }

    /// The rows of `keys` read from `store` (at `generation`) and recorded in the row cache (unless read at a
    /// generation).
    private func storeRowSnapshots(for keys: [ObjectKey], in store: NSPersistentStore, at generation: QueryGeneration?) throws -> [RowSnapshot] {
        let readTime = RowSnapshot.now()
        let rows = try read(store, at: generation, "read rows") { try store.backend.rows(for: keys) }
        return record(consume rows, of: store, readAt: readTime, at: generation)
    }

    /// Snapshots of `rows` just read from `store`: recorded in the row cache, unless they were read at a
    /// generation of the store (older than what the cache may hold), when they are made for the caller alone.
    private func record(_ rows: consuming [StoreRow], of store: NSPersistentStore, readAt readTime: TimeInterval,
                        at generation: QueryGeneration?) -> [RowSnapshot] {
        guard generation?.storeGeneration(of: store) != nil else { return rowCache.record(rows, of: store, readAt: readTime) }
        return rows.map { RowSnapshot($0, readTime: readTime) }
    }

    /// The keys of the destinations of the to-many `relationship` of the object with `key` in `store`, in
    /// order when the relationship is ordered.
    /// - Throws: the store's error, as Apple's `NSError`; never an empty result in its place.
    func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription, in store: NSPersistentStore,
                     at generation: QueryGeneration?) throws -> [ObjectKey] {
        try read(store, at: generation, "read the \(relationship.name) relationship") { try store.backend.relatedKeys(of: key, through: relationship) }
    }

    /// The destinations of `relationship` for each of `keys` in `store`, with the destinations' rows recorded in
    /// the row cache, for prefetching (see `RelationshipPrefetching`): the backend's own answer when it adopts the
    /// protocol, else the same answer from its core requirements (`relatedRowsOneByOne`), all under one lock.
    /// - Throws: the store's error, as Apple's `NSError`.
    func relatedRows(of keys: [ObjectKey], through relationship: NSRelationshipDescription, in store: NSPersistentStore,
                     at generation: QueryGeneration?) throws -> (destinations: [ObjectKey: [ObjectKey]], rows: [RowSnapshot]) {
        let readTime = RowSnapshot.now()
        let answer = try read(store, at: generation, "prefetch the \(relationship.name) relationship") {
            if let backend = store.backend as? RelationshipPrefetching { return try backend.relatedRows(of: keys, through: relationship) }
            return try store.backend.relatedRowsOneByOne(of: keys, through: relationship, model: managedObjectModel)
        }
        return (answer.destinations, record(answer.rows, of: store, readAt: readTime, at: generation))
    }

    /// Removes the row cache's snapshots of the objects with these IDs (changed elsewhere, so their faults read
    /// the store); IDs of no added store are ignored.
    func forgetCachedRows(of ids: [NSManagedObjectID]) {
        guard !ids.isEmpty else { return }
        for (store, keys) in keysByStore(ids) { rowCache.forget(keys, in: store) }
    }

    // MARK: Query generations

    /// A generation of the coordinator's stores as they are now, for a pinned context to read: each added store
    /// whose backend keeps generations (`QueryGenerationPinning`) opens one, all under one lock, so no save
    /// through this coordinator falls between them; the others are read at their latest state.
    /// - Throws: a store's error opening its generation, as Apple's `NSError` (generations already opened are
    ///   closed).
    func newestQueryGeneration() throws -> QueryGeneration {
        try withLock {
            var opened: [(store: NSPersistentStore, generation: StoreGeneration)] = []
            do {
                for store in stores(among: nil) {
                    guard let backend = store.backend as? QueryGenerationPinning,
                          let generation = try mapped(store, .read, "take a query generation", { try backend.openGeneration() }) else { continue }
                    opened.append((store, generation))
                }
            } catch {
                for entry in opened { entry.generation.close() }
                throw error
            }
            // Noted under the lock, so that a store removed from now on closes its generation in this one.
            let generation = QueryGeneration(coordinator: self, generations: opened)
            queryGenerations.note(generation)
            return generation
        }
    }

    // MARK: Saving

    /// Primary keys for new objects given as runs of one entity and store (`NewObjectRun`): the keys of each run in
    /// order, the runs one after another, as many keys in all as the runs count objects. Keys are allocated per
    /// store and entity hierarchy (one call to the store for each, whatever the number of runs), all under one lock.
    /// - Throws: the store's error, as Apple's `NSError`; 134030 when a store hands out fewer or more keys
    ///   than asked for. Nothing is returned then (keys already handed out are not reused).
    func permanentKeys(for runs: [NewObjectRun]) throws -> [Int64] {
        let groups = KeyAllocationGroup.grouping(runs)
        let allocated = try withLock { try groups.map { try allocateKeys(for: $0) } }
        // Where each run's keys start in the result.
        var starts: [Int] = []
        starts.reserveCapacity(runs.count)
        var total = 0
        for run in runs {
            starts.append(total)
            total += run.count
        }
        var keys = [Int64](repeating: 0, count: total)
        for (group, groupKeys) in zip(groups, allocated) {
            var next = 0
            for run in group.runs {
                let count = runs[run].count
                keys.replaceSubrange(starts[run]..<starts[run] + count, with: groupKeys[next..<next + count])
                next += count
            }
        }
        return keys
    }

    /// Writes one store's part of a save, all at once or nothing (the contract's `save(_:)`), resolving
    /// version conflicts while no other save through this coordinator can write. Holding the lock throughout,
    /// it builds the change set, applies it and, when the store throws `StoreVersionConflict`, calls `resolve`
    /// (the context's merge policy) and goes round again, until an attempt writes or `resolve` throws. After a
    /// resolution only another coordinator or process writing the same store can make the next attempt
    /// conflict, and then that writer succeeded: the loop has no cap. A save across stores calls this once per
    /// store, in the order the stores were added; each part is atomic, the whole is not (see Decisions.md).
    /// What was written is recorded in the row cache (`RowCache.recordSave`), and the snapshots of the inserted
    /// and updated rows are returned with the store's result, in the order of the change set `build` gave last,
    /// for the saved objects to hold; the rows of a version conflict are removed from the cache (another
    /// coordinator changed them).
    /// - Throws: what `build` or `resolve` throws (133020 from `NSErrorMergePolicy`); any store error as
    ///   Apple's `NSError`. Nothing is written to the store then.
    func applyChanges(to store: NSPersistentStore, building build: () throws -> StoreChangeSet,
                      resolvingConflicts resolve: (StoreVersionConflict) throws -> Void) throws -> (result: StoreSaveResult, snapshots: RowCache.SavedSnapshots) {
        try withLock {
            while true {
                let changes = try build()
                do {
                    let result = try mapped(store, .write, "save") { try store.backend.save(changes) }
                    store.remoteChangeWatcher?.noteOwnWrite()
                    return (result, rowCache.recordSave(changes, result: result, of: store, at: RowSnapshot.now()))
                } catch let conflict as StoreVersionConflict {
                    rowCache.forget(conflict.conflicts.map(\.key), in: store)
                    try resolve(conflict)
                }
            }
        }
    }

    // MARK: Batch requests

    /// Runs batch deletes, each in its store, after checking that every one of the stores is writable, and
    /// returns the IDs of every deleted object (cascades included).
    /// - Throws: 134030 naming a read-only store, before anything is deleted; the stores' errors (1600 for a
    ///   deny rule) as Apple's `NSError`.
    func batchDelete(_ parts: [(store: NSPersistentStore, request: StoreBatchDeleteRequest)]) throws -> [NSManagedObjectID] {
        try requireWritable(parts.map(\.store))
        return try parts.flatMap { store, request in
            let keys = try access(store, .write, "batch delete") { try store.backend.batchDelete(request) }
            rowCache.forget(keys, in: store)
            return keys.compactMap { store.objectID(for: $0) }
        }
    }

    /// Runs batch deletes as `batchDelete(_:)` does and returns how many objects were deleted, letting stores
    /// skip collecting their keys.
    /// - Throws: as `batchDelete(_:)`.
    func batchDeleteCount(_ parts: [(store: NSPersistentStore, request: StoreBatchDeleteRequest)]) throws -> Int {
        try requireWritable(parts.map(\.store))
        return try parts.reduce(0) { total, part in
            // The deleted keys are not known: every row of the store leaves the row cache.
            defer { rowCache.forgetAll(in: part.store) }
            return total + (try access(part.store, .write, "batch delete") { try part.store.backend.batchDeleteCount(part.request) })
        }
    }

    /// The stores a batch update or insert of `entity` goes to (those holding it, among `affected`), each
    /// checked for the feature (`supports`: `runsBatchUpdates` or `runsBatchInserts`) and for being writable
    /// before any is changed.
    /// - Throws: 134091 naming `what` for a store without the feature; 134030 for a read-only store.
    func batchStores(holding entity: NSEntityDescription, among affected: [NSPersistentStore]?,
                     supports: (NSPersistentStore) -> Bool, what: String) throws -> [NSPersistentStore] {
        let stores = stores(holding: entity, among: affected)
        for store in stores {
            guard supports(store) else { throw CoreDataError.unsupported("\(what) in \(store.type) stores") }
            try requireWritable([store])
        }
        return stores
    }

    /// Runs a batch update in each of `stores` and returns each store's updated keys, in the given order.
    /// - Throws: the stores' errors as Apple's `NSError`; 134091 for a store whose backend does not adopt
    ///   `BatchUpdating`.
    func batchUpdate(_ request: StoreBatchUpdateRequest, in stores: [NSPersistentStore]) throws -> [(store: NSPersistentStore, keys: [ObjectKey])] {
        try stores.map { store in
            guard let backend = store.backend as? BatchUpdating else { throw CoreDataError.unsupported("batch updates in \(store.type) stores") }
            let keys = try access(store, .write, "batch update") { try backend.batchUpdate(request) }
            rowCache.forget(keys, in: store)  // their new values are not known here
            return (store, keys)
        }
    }

    /// Runs a batch update in each of `stores` as `batchUpdate(_:in:)` does and returns how many rows were
    /// updated, letting stores skip collecting their keys (Apple's status-only and count result types).
    /// - Throws: as `batchUpdate(_:in:)`.
    func batchUpdateCount(_ request: StoreBatchUpdateRequest, in stores: [NSPersistentStore]) throws -> Int {
        try stores.reduce(0) { total, store in
            guard let backend = store.backend as? BatchUpdating else { throw CoreDataError.unsupported("batch updates in \(store.type) stores") }
            // The updated keys are not known: every row of the store leaves the row cache.
            defer { rowCache.forgetAll(in: store) }
            return total + (try access(store, .write, "batch update") { try backend.batchUpdateCount(request) })
        }
    }

    /// Runs a batch insert in `store` and returns the new keys, in the order of the request's objects.
    /// - Throws: the store's error as Apple's `NSError`; 134091 for a store whose backend does not adopt
    ///   `BatchInserting`.
    func batchInsert(_ request: StoreBatchInsertRequest, into store: NSPersistentStore) throws -> [ObjectKey] {
        guard let backend = store.backend as? BatchInserting else { throw CoreDataError.unsupported("batch inserts in \(store.type) stores") }
        let keys = try access(store, .write, "batch insert") { try backend.batchInsert(request) }
        rowCache.forget(keys, in: store)  // an insert that updated a row by its constraint changed it
        return keys
    }

    // MARK: History

    /// The transactions `store` recorded after `position`, oldest first; none for a store without history.
    /// - Throws: the store's error, as Apple's `NSError`.
    func historyTransactions(after position: StoreHistoryPosition, in store: NSPersistentStore) throws -> [StoreHistoryTransaction] {
        guard let backend = store.backend as? PersistentHistoryBackend else { return [] }
        return try access(store, .read, "read history") { try backend.historyTransactions(after: position) }
    }

    /// Deletes the transactions `store` recorded before `position` and returns how many went (0 for a store
    /// without history).
    /// - Throws: the store's error, as Apple's `NSError`.
    func deleteHistory(before position: StoreHistoryPosition, in store: NSPersistentStore) throws -> Int {
        guard let backend = store.backend as? PersistentHistoryBackend else { return 0 }
        return try access(store, .write, "delete history") { try backend.deleteHistory(before: position) }
    }

    /// The number of the newest transaction `store` recorded; nil when it has none or keeps no history.
    /// - Throws: the store's error, as Apple's `NSError`.
    func newestHistoryTransactionNumber(in store: NSPersistentStore) throws -> Int64? {
        guard let backend = store.backend as? PersistentHistoryBackend else { return nil }
        return try access(store, .read, "read history") { try backend.newestHistoryTransactionNumber() }
    }

    // MARK: Migrating

    /// Writes every row, relationship and user metadata key of `source` into the empty store `target`, in one
    /// save, holding the lock throughout. Keys are allocated by `target` (its numbering may differ), and every
    /// reference is mapped to them.
    /// - Throws: either store's error, as Apple's `NSError`.
    func copyContents(of source: NSPersistentStore, into target: NSPersistentStore) throws {
        try withLock {
            let (rows, newKeys) = try copiedRows(of: source, into: target)
            let changes = try copyChangeSet(rows: rows, newKeys: newKeys, source: source, target: target)
            if !changes.isEmpty { _ = try mapped(target, .write, "save the migrated objects") { try target.backend.save(changes) } }
        }
    }

    /// Every row of `source` with the key `target` allocated for it.
    private func copiedRows(of source: NSPersistentStore, into target: NSPersistentStore) throws -> ([StoreRow], [ObjectKey: ObjectKey]) {
        var rows: [StoreRow] = []
        var newKeys: [ObjectKey: ObjectKey] = [:]
        for root in managedObjectModel.entities where root.superentity == nil && holdsHierarchy(root, source) {
            let request = StoreFetchRequest(entity: root, includesSubentities: true, predicate: nil, result: .rows)
            guard case .rows(let found) = try mapped(source, .read, "fetch", { try source.backend.fetch(request) }), !found.isEmpty else { continue }
            let keys = try mapped(target, .write, "allocate keys") { try target.backend.allocatePrimaryKeys(for: root, count: found.count) }
            guard keys.count == found.count else {
                throw CoreDataError.saveFailed("the new store gave \(keys.count) keys for \(found.count) objects")
            }
            for (row, key) in zip(found, keys) { newKeys[row.key] = ObjectKey(entityNumber: row.key.entityNumber, primaryKey: key) }
            rows += found
        }
        return (rows, newKeys)
    }

    /// The change set inserting `rows` into `target` under their new keys: both sides of every relationship,
    /// as a save gives them (the store keeps what it needs), and the source's user metadata.
    private func copyChangeSet(rows: [StoreRow], newKeys: [ObjectKey: ObjectKey], source: NSPersistentStore,
                               target: NSPersistentStore) throws -> StoreChangeSet {
        var changes = StoreChangeSet()
        changes.inserted.reserveCapacity(rows.count)
        for row in rows {
            guard let key = newKeys[row.key] else { continue }
            changes.inserted.append(StoreRow(key: key, version: 0, values: row.values.map { value in
                if let reference = value as? ObjectKey { return newKeys[reference] }
                return value
            }))
            guard let entity = managedObjectModel.entity(withNumber: row.key.entityNumber) else { continue }
            for case let relationship as NSRelationshipDescription in entity.layout.allProperties where relationship.isToMany && !relationship.isTransient {
                let destinations = try mapped(source, .read, "read the \(relationship.name) relationship") {
                    try source.backend.relatedKeys(of: row.key, through: relationship)
                }.compactMap { newKeys[$0] }
                if !destinations.isEmpty { changes.toManyChanges.append(ToManyChange(owner: key, relationship: relationship, destinations: destinations)) }
            }
        }
        let sourceMetadata = source.backend.metadata
        let userMetadata = sourceMetadata.filter { !$0.key.hasPrefix("NSStore") && !$0.key.hasPrefix("NSPersistence") && !$0.key.hasPrefix("_NS") }
        if !userMetadata.isEmpty { changes.metadata = target.backend.metadata.merging(userMetadata) { _, user in user } }
        return changes
    }

    /// Whether `store` holds objects of `root`'s hierarchy (its configuration's entities).
    private func holdsHierarchy(_ root: NSEntityDescription, _ store: NSPersistentStore) -> Bool {
        var stack = [root]
        while let entity = stack.popLast() {
            if store.holds(entity) { return true }
            stack += entity.subentities
        }
        return false
    }

    // MARK: Locking and error mapping

    /// Whether a store operation reads or writes, which picks the code of a mapped error.
    enum StoreAccessKind {
        case read, write
    }

    /// Runs `body` holding the lock, for the coordinator's own use.
    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs one backend call on `store` holding the lock, with its error mapped (see `mapped`); a write that
    /// succeeds is noted for the store's remote-change notification (`RemoteChangeWatcher`).
    private func access<T>(_ store: NSPersistentStore, _ kind: StoreAccessKind, _ operation: String, _ body: () throws -> T) throws -> T {
        try withLock {
            let result = try mapped(store, kind, operation, body)
            if kind == .write { store.remoteChangeWatcher?.noteOwnWrite() }
            return result
        }
    }

    /// Runs one backend read of `store` holding the lock, with its error mapped (see `mapped`): through the
    /// store's generation in `generation` when it has one (`QueryGenerationPinning.reading(at:_:)`), else at the
    /// store's latest state.
    private func read<T>(_ store: NSPersistentStore, at generation: QueryGeneration?, _ operation: String, _ body: () throws -> T) throws -> T {
        try withLock {
            try mapped(store, .read, operation) {
                guard let pinned = generation?.storeGeneration(of: store), let backend = store.backend as? QueryGenerationPinning else { return try body() }
                return try backend.reading(at: pinned, body)
            }
        }
    }

    /// Runs `body` (the lock already held), turning an error outside `NSCocoaErrorDomain` into one with Apple's
    /// code; `StoreVersionConflict` passes through from writes.
    private func mapped<T>(_ store: NSPersistentStore, _ kind: StoreAccessKind, _ operation: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let conflict as StoreVersionConflict where kind == .write {
            throw conflict
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw CoreDataError.storeFailed(operation, code: kind == .write ? NSPersistentStoreSaveError : NSPersistentStoreOperationError,
                                            underlying: error, userInfo: [NSAffectedStoresErrorKey: [store]])
        }
    }

    /// The keys for one allocation group, checked to be as many as asked for (the lock already held).
    private func allocateKeys(for group: KeyAllocationGroup) throws -> [Int64] {
        let count = group.count
        let keys = try mapped(group.store, .write, "allocate keys") { try group.store.backend.allocatePrimaryKeys(for: group.root, count: count) }
        guard keys.count == count else {
            throw CoreDataError.saveFailed("the store gave \(keys.count) keys for \(count) objects")
        }
        return keys
    }

    /// Throws 134030 naming the first read-only store among `stores`.
    private func requireWritable(_ stores: [NSPersistentStore]) throws {
        if let readOnly = stores.first(where: \.isReadOnly) {
            throw CoreDataError.saveFailed("the store at \(readOnly.url?.path ?? "") was added read-only")
        }
    }

    private func wrongResultKind(_ store: NSPersistentStore, _ expected: String) -> NSError {
        CoreDataError.make(NSCoreDataError, "The \(store.type) store answered a fetch for \(expected) with another kind of result.",
                           userInfo: [NSAffectedStoresErrorKey: [store]])
    }

    private func fetch(_ request: StoreFetchRequest, in store: NSPersistentStore, at generation: QueryGeneration?) throws -> StoreFetchResult {
        try read(store, at: generation, "fetch") { try store.backend.fetch(request) }
    }
}

/// New objects of one entity, one after another in a list, that go to one store: what a context asks permanent keys
/// for (`NSPersistentStoreCoordinator.permanentKeys(for:)`). Objects mostly come in long runs (a save's inserted
/// objects are in insertion order), so a list of 100,000 objects of one entity is one run: the entity and store are
/// held once, not once per object.
struct NewObjectRun {
    let entity: NSEntityDescription
    let store: NSPersistentStore
    /// The number of objects in the run (at least one).
    var count: Int
}

/// The runs of new objects that get keys from one store's sequence for one entity hierarchy: their indexes in the
/// list given to `permanentKeys(for:)`, and how many objects they hold together.
private struct KeyAllocationGroup {
    let store: NSPersistentStore
    let root: NSEntityDescription
    var runs: [Int] = []
    var count = 0

    /// The groups of a list of runs, in the order each group first appears.
    static func grouping(_ runs: [NewObjectRun]) -> [KeyAllocationGroup] {
        struct Key: Hashable { let store: ObjectIdentifier; let root: ObjectIdentifier }
        var groups: [KeyAllocationGroup] = []
        var indexByKey: [Key: Int] = [:]
        for (index, run) in runs.enumerated() {
            let root = run.entity.rootEntity
            let key = Key(store: ObjectIdentifier(run.store), root: ObjectIdentifier(root))
            let group = indexByKey[key] ?? {
                groups.append(KeyAllocationGroup(store: run.store, root: root))
                indexByKey[key] = groups.count - 1
                return groups.count - 1
            }()
            groups[group].runs.append(index)
            groups[group].count += run.count
        }
        return groups
    }
}

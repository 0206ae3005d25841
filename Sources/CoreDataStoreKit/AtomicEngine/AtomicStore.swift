/// The generic engine of atomic stores: every object held in memory, predicates evaluated and sorts done in
/// memory, and the whole store read from and written to a file by a subclass.
///
/// A subclass names its store type and implements `readSnapshot(from:)` and `writeSnapshot(_:to:)`; a store
/// without a file (the in-memory store) implements neither. A save applies the change set in memory, computes
/// the derived attributes, checks the uniqueness constraints (`AtomicUniqueness`), writes the whole file with
/// `AtomicFileReplacement`, and undoes the in-memory changes when a constraint or the write fails; batch
/// requests go the same way.
///
/// A file store's first write (when the store is created) goes through `AtomicFileReplacement` too, so a
/// crash while creating leaves no file or a complete one. Opening a store that is not read-only first removes
/// the temporary files killed saves left beside it (`AtomicFileReplacement.removeLeftovers(of:)`); a save of
/// the same file in progress in another coordinator at that moment then fails with 134030 instead of landing.
///
/// The class body holds the state, the hooks and the store contract's entry points (each a short list of
/// phases; only members declared here can be overridden); the phases live in facets beside it:
/// `AtomicStore+Opening.swift` (open or create the file), `+Loading.swift` (snapshot → records),
/// `+Records.swift` (the record table and undoing changes to it), `+Snapshot.swift` (records → snapshot, the
/// file written), `+Fetching.swift`, `+Saving.swift`, `+BatchRequests.swift` and `+DerivedAttributes.swift`.
open class AtomicStore: PersistentStoreBackend, BatchUpdating, BatchInserting, LightweightMigrating, DerivedAttributeComputing {
    /// The store type name written into the metadata (`NSStoreType`). Subclasses override it.
    open class var storeTypeName: String { "Atomic" }

    /// Reads a whole store file. The default throws "unsupported".
    /// - Throws: 134000 when the file is not of this type, 259 when it is damaged.
    open class func readSnapshot(from url: URL) throws -> AtomicStoreSnapshot {
        throw CoreDataError.unsupported("\(storeTypeName) stores have no file format")
    }

    /// Writes a whole store file at `url` (already a temporary path; the engine moves it into place).
    open func writeSnapshot(_ snapshot: AtomicStoreSnapshot, to url: URL) throws {
        throw CoreDataError.unsupported("\(Self.storeTypeName) stores have no file format")
    }

    /// Matches the entity and property names a file records to the model's before the snapshot is loaded.
    /// The default returns the snapshot unchanged (its names must equal the model's); a format that records
    /// names differently (Apple's XML store: upper-case entities, lower-case properties) overrides it.
    /// - Throws: 259 or 134100 when the file's names cannot be matched to the model.
    open class func matchNames(in snapshot: AtomicStoreSnapshot, to request: StoreOpenRequest) throws -> AtomicStoreSnapshot {
        snapshot
    }

    /// Whether one primary-key sequence is shared by every entity (true for formats whose object IDs are unique
    /// store-wide, like Apple's XML store) rather than one sequence per entity hierarchy (the default).
    open class var sharesPrimaryKeysAcrossEntities: Bool { false }

    /// The request the store was opened with.
    public let openRequest: StoreOpenRequest
    /// Where saves write the store: the URL it was opened at, or the one it was relocated to
    /// (`relocate(to:)`); nil for a store without a file.
    public internal(set) var fileURL: URL?
    public internal(set) var metadata: [String: Any] = [:]
    open var capabilities: StoreCapabilities {
        openRequest.url == nil ? [.rowsInMemory] : [.persistsToFile, .persistent, .rowsInMemory]
    }

    /// Every object, by key. Changed only through `insertRecord(_:)` and `removeRecord(_:)`, which keep
    /// `keysByEntity` and `keyOrderedRecords` in step (`AtomicStore+Records.swift`).
    var records: [ObjectKey: AtomicRecord] = [:]
    /// The primary keys of the records of each entity (not of its subentities), by entity number.
    var keysByEntity: [Int32: Set<Int64>] = [:]
    /// Each entity's records (not its subentities'), in key order, by entity number: built by the first fetch
    /// that reads the entity, and dropped when a record of the entity is added or removed (updates change a
    /// record in place, which keeps its place). See `recordsInKeyOrder(of:)`.
    var keyOrderedRecords: [Int32: [AtomicRecord]] = [:]
    /// The highest primary key given out, by root entity number (keys of deleted objects are not reused).
    var highWater: [Int32: Int64] = [:]
    /// The derived attributes of the store's entities, computed at each save and batch request
    /// (`AtomicStore+DerivedAttributes.swift`).
    lazy var derivations: [(attribute: NSDerivedAttributeDescription, derivation: DerivedAttributeDerivation)] =
        (try? DerivedAttributeDerivation.derivations(in: openRequest.entities)) ?? []

    /// Opens the store: reads and loads its file when there is one (migrating it when the options ask for a
    /// lightweight migration), or creates a new store (and its file, for a store with a URL).
    /// - Throws: as `PersistentStoreBackend.init(_:)`: 134000, 259, 134100, 134130/134140 (migration), 260
    ///   for a read-only store without a file, 512 when the directory cannot be created.
    public required init(_ request: StoreOpenRequest) throws {
        openRequest = request
        fileURL = request.url
        if let url = request.url, !request.isReadOnly {
            // Temporary files of saves that were killed part-way (never the store itself, never other files).
            AtomicFileReplacement.removeLeftovers(of: url)
        }
        if let url = request.url, FileManager.default.fileExists(atPath: url.path) {
            try openFile(at: url)
        } else {
            try createStore()
        }
    }

    /// The store's one file (an atomic store writes a sibling temporary file only while saving).
    open class func storeFiles(at url: URL) -> [URL] { [url] }

    open class func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path).",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        let snapshot = try readSnapshot(from: url)
        var metadata = snapshot.metadata
        metadata[NSStoreTypeKey] = metadata[NSStoreTypeKey] ?? storeTypeName
        return metadata
    }

    open func close() {}

    // MARK: Reading (AtomicStore+Fetching.swift)

    open func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        let selected = try select(request)
        switch request.result {
        case .rows: return .rows(selected.map(\.row))
        case .keys: return .keys(selected.map(\.key))
        case .count: return .count(selected.count)
        case .dictionaries(let properties, let distinct): return .dictionaries(dictionaries(of: selected, properties: properties, distinct: distinct))
        }
    }

    open func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        keys.compactMap { records[$0]?.row }
    }

    open func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        guard let record = records[key], let slot = record.entity.layout.slotByName[relationship.name] else { return [] }
        return record.toMany[slot] ?? []
    }

    /// Keys after the hierarchy's high-water mark (after the store's, when keys are shared across entities).
    /// - Throws: 134030 when the keys would pass `StoreNumberLimits.largestStoredNumber`.
    open func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        let root = entity.rootEntity.entityNumber
        let last = Self.sharesPrimaryKeysAcrossEntities ? highWater.values.max() ?? 0 : highWater[root] ?? 0
        guard let keys = StoreNumberLimits.keys(after: last, count: count) else {
            throw CoreDataError.saveFailed("the store at \(openRequest.url?.path ?? "memory") has no primary keys left for \(count) new \(entity.name ?? "") objects (the last given out is \(last))")
        }
        highWater[root] = keys.upperBound
        return Array(keys)
    }

    // MARK: Saving (AtomicStore+Saving.swift)

    /// Applies a change set in memory, computes the derived attributes and writes the file; when a version
    /// check, a uniqueness constraint or the write fails, the store is left as it was.
    /// - Throws: `StoreVersionConflict`; 134030 for a read-only store; 133021 when a uniqueness constraint fails.
    open func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try checkWritable()
        try checkVersions(of: changes)
        var undo = AtomicUndoLog()
        let versions = applyChanges(changes, undo: &undo)
        replaceMetadata(with: changes.metadata, undo: &undo)
        let written = Set(changes.inserted.map(\.key) + changes.updated.map(\.row.key))
        let derivedValues = recomputeDerivedValues(written: written, undo: &undo)
        // Checked on the final state, after the deletions: a value a deleted object gives up is free.
        let changed = changes.inserted.compactMap { records[$0.key] } + changes.updated.compactMap { records[$0.row.key] }
        try commit(checkingUniquenessOf: changed, undo: undo)
        return StoreSaveResult(versions: versions, derivedValues: derivedValues)
    }

    // MARK: Batch requests (AtomicStore+BatchRequests.swift)

    /// Deletes the matching records with the objects their cascade rules reach, nullifies the references
    /// other records hold to them (those records' versions go up), recomputes the derived attributes and
    /// writes the file; when a deny rule refuses or the write fails, the store is left as it was.
    /// - Throws: 134030 for a read-only store; 1600 when a deny rule refuses.
    open func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] {
        try checkWritable()
        let (doomed, order) = try doomedKeys(of: request)
        guard !order.isEmpty else { return [] }
        var undo = AtomicUndoLog()
        let rowsUpdated = nullifyReferences(to: doomed, undo: &undo)
        for key in order {
            remember(key, in: &undo)
            removeRecord(key)
        }
        _ = recomputeDerivedValues(written: rowsUpdated, undo: &undo)
        try commit(checkingUniquenessOf: [], undo: undo)
        return order
    }

    /// Sets the request's attributes on every matching record in memory, recomputes the derived attributes
    /// and writes the file; when a uniqueness constraint fails or the write fails, the store is left as it was.
    /// - Throws: 134030 for a read-only store; 133021 when a uniqueness constraint fails.
    open func batchUpdate(_ request: StoreBatchUpdateRequest) throws -> [ObjectKey] {
        try checkWritable()
        let selected = try select(request.fetch)
        guard !selected.isEmpty else { return [] }
        var undo = AtomicUndoLog()
        assign(request.assignments, to: selected, undo: &undo)
        _ = recomputeDerivedValues(written: Set(selected.map(\.key)), undo: &undo)
        try commit(checkingUniquenessOf: selected, undo: undo)
        return selected.map(\.key)
    }

    /// Adds one record per row with newly allocated keys and version 1, computes their derived attributes and
    /// writes the file; when a uniqueness constraint fails or the write fails, the records are removed again
    /// (the keys stay used, as after a failed save). A request that resolves uniqueness conflicts, into a tree
    /// with constraints, updates or skips the records its rows meet (`upsertRows(_:of:undo:)`).
    /// - Throws: 134030 for a read-only store; 133021 when a uniqueness constraint fails; 134091 for an entity
    ///   not in this store.
    open func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey] {
        try checkWritable()
        let entity = try ownEntity(of: request)
        guard !request.rows.isEmpty else { return [] }
        var undo = AtomicUndoLog()
        if request.conflictResolution != .fail, !AtomicUniqueness.constraints(inTreeOf: entity.rootEntity).isEmpty {
            let keys: [ObjectKey], written: [AtomicRecord]
            do {
                (keys, written) = try upsertRows(request, of: entity, undo: &undo)
            } catch {
                restore(undo)
                throw error
            }
            _ = recomputeDerivedValues(written: Set(written.map(\.key)), undo: &undo)
            try commit(checkingUniquenessOf: written, undo: undo)
            return keys
        }
        let keys = try insertRows(request.rows, of: entity, undo: &undo)
        _ = recomputeDerivedValues(written: Set(keys), undo: &undo)
        try commit(checkingUniquenessOf: keys.compactMap { records[$0] }, undo: undo)
        return keys
    }
}

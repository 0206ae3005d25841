/// The store contract: what a store type implements to plug into the coordinator.
///
/// A backend knows rows, keys and versions, never contexts or managed objects. The coordinator calls a
/// backend from one thread at a time (it holds its own lock), so a backend needs no locking of its own
/// unless it shares state between instances. Every failure is a thrown `NSError` in `NSCocoaErrorDomain`
/// with Apple's code (build them with `CoreDataError`); nothing a file or a user supplies may trap. An error
/// of another domain reaches users as 134030 (writes) or 134070 (reads), with the store's error under
/// `NSUnderlyingErrorKey`.
///
/// Each requirement below states what the store guarantees, what it throws, and the conformance cases
/// (`CoreDataConformance`) that prove it. Optional features are refinement protocols, and adopting one is the
/// capability: `BatchUpdating`, `BatchInserting`, `LightweightMigrating`, `AggregatingBackend`,
/// `PersistentHistoryBackend`, `ExternalChangeDetecting` (and `ExternalChangeListing`), `StoreMetadataWriting`,
/// `StoreFileMoving`, `StoreReplacing`, `RelationshipPrefetching` and `QueryGenerationPinning`. `capabilities`
/// states only facts about where the data lives.
///
/// Register a backend with `NSPersistentStoreCoordinator.registerStoreClass(_:type:)`, then run the
/// conformance suite on it (`ConformancePlan`).
public protocol PersistentStoreBackend: AnyObject {
    /// Opens the store described by `request`, creating it when nothing exists at its URL.
    ///
    /// The store guarantees:
    /// - A new store is empty, its missing parent directories are created, and its metadata is written
    ///   (`add-store/new-store`, `add-store/missing-directory`).
    /// - A store of `request.model` opens with the rows saved before, also in a new coordinator
    ///   (`add-store/reopen`).
    /// - A file that is not a store of this type, or is damaged, is left byte for byte as it was
    ///   (`add-store/garbage-file`, `add-store/other-type-file`).
    /// - A read-only store (`NSReadOnlyPersistentStoreOption`) is never written, not even to create or migrate it
    ///   (`add-store/read-only`).
    /// - A store saved with a model of other version hashes is refused, unless the type adopts
    ///   `LightweightMigrating` and the options ask for migration (`add-store/incompatible-model`).
    ///
    /// `ModelCompatibility.metadata(storeType:uuid:entities:model:)` makes a new store's metadata, and
    /// `ModelCompatibility.compare(metadata:entities:)` decides whether a store's recorded model is the
    /// request's (compare before decoding rows, so that rows of another model are 134100, not 259).
    ///
    /// - Throws: 134000 (`NSPersistentStoreInvalidTypeError`, `CoreDataError.notAStore`) or 259
    ///   (`NSFileReadCorruptFileError`, `CoreDataError.corruptStore`) for a file that is not a store of this
    ///   type or is damaged; 134100 (`NSPersistentStoreIncompatibleVersionHashError`,
    ///   `CoreDataError.incompatibleModel`) for a store saved with an incompatible model.
    init(_ request: StoreOpenRequest) throws

    /// The metadata of the store at `url`, read without adding the store
    /// (`NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:options:)`).
    ///
    /// The store guarantees: at least `NSStoreType` and `NSStoreUUID`, equal to those of the store once added,
    /// and every key saved with `StoreChangeSet.metadata`.
    ///
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) when there is no store at `url`; 134000 or 259 as
    ///   `init(_:)` does.
    ///
    /// Conformance: `add-store/metadata`, `add-store/metadata-of-a-missing-store`.
    static func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any]

    /// The store's metadata.
    ///
    /// The store guarantees: `NSStoreType`, the name its class is registered under; `NSStoreUUID`, fixed when
    /// the store is created and the same after every reopen; `NSStoreModelVersionHashes` with each entity's version hash; and every key saved with
    /// `StoreChangeSet.metadata`, kept across reopens.
    ///
    /// Conformance: `add-store/metadata`, `add-store/metadata-hashes`.
    var metadata: [String: Any] { get }

    /// Facts about where the store's data lives: `persistsToFile`, `persistent`, `sharedBetweenCoordinators`,
    /// `rowsInMemory` (see `StoreCapabilities`). What the store can do beyond the core is told by the refinement
    /// protocols it adopts, not here.
    ///
    /// Conformance: the suite runs the cases that need a fact only on stores that state it (`add-store/reopen`
    /// needs `persistent`, `save/shared-file` needs `sharedBetweenCoordinators`, …).
    var capabilities: StoreCapabilities { get }

    /// The rows, keys, count or dictionaries that `request` selects.
    ///
    /// The store guarantees: the rows of the entity (and, with `includesSubentities`, of its subentities) that
    /// the predicate matches, as `NSPredicate.evaluate(with:)` would match them (`fetch/predicates`,
    /// `fetch/predicates-agree-with-evaluate`, `fetch/key-paths-through-relationships`); in the order of the
    /// sort descriptors, nil first in ascending order; after skipping `fetchOffset` and keeping at most
    /// `fetchLimit` (`fetch/sort-limit-offset`); in the form `request.result` asks for (`fetch/result-types`).
    /// Rows it cannot select in its own query language it selects by evaluating the predicate in memory, with
    /// `InMemoryQuery.filter(_:by:)` and `InMemoryQuery.sort(_:by:)` over objects adopting
    /// `PredicateKeyValueReading` and `StoredObjectReference` (which gives it the evaluator's meaning).
    ///
    /// - Throws: 134060 (`NSCoreDataError`) or 2048 for a predicate naming keys the entity lacks; it never traps,
    ///   whatever the predicate (`fetch/malformed-predicate`, `fetch/mutated-predicates-never-trap`).
    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult

    /// The current rows of `keys`, in any order, to fire faults.
    ///
    /// The store guarantees: each row's values and version as last saved (by any coordinator, for a shared
    /// store); keys the store does not have are left out, without an error, so that the context can report the
    /// missing object. Contexts ask for one row when a fault fires, and for up to `fetchBatchSize` keys at once.
    ///
    /// Conformance: `add-store/reopen`, `fetch/missing-object`, `faults/batched-fetch`,
    /// `faults/batched-array-reflects-the-store-at-the-fetch`, `faults/fault-fired-after-its-row-was-deleted`,
    /// `faults/fault-of-row-deleted-elsewhere`, `faults/staleness-interval`.
    func rows(for keys: [ObjectKey]) throws -> [StoreRow]

    /// The keys of the destinations of a to-many relationship of one object.
    ///
    /// The store guarantees: the destinations as last saved, from either side of the relationship (the inverse
    /// to-one, or a many-to-many's join), in the saved order when the relationship is ordered.
    ///
    /// Conformance: `save/to-one-and-to-many`, `save/ordered`, `save/many-to-many`.
    func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey]

    /// Hands out `count` new primary keys for the inheritance hierarchy of `entity` (one sequence per
    /// hierarchy, `entity.rootEntity`'s; `StoreNumberLimits.keys(after:count:)` gives the next keys).
    ///
    /// The store guarantees: a key is never given out twice in this store, also after the object with the
    /// highest key was deleted and the store reopened.
    ///
    /// - Throws: 259 when a key or high-water mark in the file is above `StoreNumberLimits.largestStoredNumber`
    ///   (damage); 134030 (`NSPersistentStoreSaveError`) when the keys run out.
    ///
    /// Conformance: `save/permanent-ids`, `save/keys-not-reused`, `batch-insert/keys-stay-unique`.
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64]

    /// Writes a change set: inserts, updates, deletions, to-many lists and metadata.
    ///
    /// The store guarantees:
    /// - All at once or nothing: after any error, the store holds what it held before (`save/conflict-writes-nothing`).
    /// - Optimistic locking: when an update's or deletion's expected version differs from the stored one, or an
    ///   update's row is gone (even with no expected version), it throws `StoreVersionConflict` listing every
    ///   stale object with its current row, and writes nothing. The coordinator hands the conflict to the
    ///   context's merge policy, or reports 133020 (`NSManagedObjectMergeError`) with one `NSMergeConflict` per
    ///   object (`save/conflict`, `save/conflict-merges-to-many`, `save/update-deleted-row`).
    /// - Versions: an inserted row gets version 1, a checked update its expected version plus one; an update
    ///   may write only its `changedSlots` (see `StoreRowUpdate`) (`save/repeated-updates`).
    /// - Every attribute type and relationship kind reads back as written, also after a reopen
    ///   (`save/insert-update-delete`, `save/attribute-round-trip`, `save/to-one-and-to-many`, `save/many-to-many`,
    ///   `save/ordered`, `save/one-to-one`, `save/inheritance`, `save/delete-rules`).
    /// - Uniqueness constraints: contexts find conflicts among the objects they save before calling the store;
    ///   the store still refuses a change set that leaves two rows of one inheritance tree with the same non-nil
    ///   values of a constraint, and accepts one that swaps or frees values within the save
    ///   (`save/uniqueness-constraint`, `save/uniqueness-swap`, `save/uniqueness-merge-policies`,
    ///   `composite/uniqueness-constraint-on-elements`).
    /// - A shared store (`sharedBetweenCoordinators`) takes saves from several coordinators, each all or nothing
    ///   (`save/shared-file`, `save/concurrent-conflicting-saves`).
    ///
    /// - Throws: `StoreVersionConflict` as above; 133021 (`NSManagedObjectConstraintMergeError`) for a broken
    ///   uniqueness constraint; 134030 (`NSPersistentStoreSaveError`) for a read-only store (`add-store/read-only`)
    ///   or a write that fails.
    /// - Returns: the versions described by `StoreSaveResult`.
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult

    /// Deletes the rows `request` selects without loading them into contexts (`NSBatchDeleteRequest`).
    ///
    /// The store guarantees: delete rules are applied in the store (cascade deletes destinations, deny
    /// refuses); deny is checked against every row the request deletes, cascades included, so a destination
    /// deleted by the same request does not deny; the references remaining rows hold to deleted rows are
    /// cleared (to-ones set to nil, to-many lists without them), and each row changed so gets a new version,
    /// as an update does, so that a context holding its old values meets a conflict; all at once or nothing;
    /// the keys of every row deleted (cascades included) are returned.
    ///
    /// - Throws: 1600 (`NSValidationRelationshipDeniedDeleteError`) from a deny rule, deleting nothing; 134030
    ///   for a read-only store (`add-store/read-only`) or a write that fails.
    ///
    /// Conformance: `batch-delete/predicate`, `batch-delete/all-and-status`, `batch-delete/object-ids`,
    /// `batch-delete/relationships-stay-consistent`, `batch-delete/deny-rule`,
    /// `batch-delete/nullified-rows-get-new-versions` (a to-one cleared; whether a row that only loses members of
    /// a many-to-many gets a new version is left to the store: the SQLite store's join tables change no row).
    func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey]

    /// Deletes exactly as `batchDelete(_:)` does and returns how many rows were deleted, for Apple's
    /// status-only and count result types. The default calls `batchDelete(_:)` and counts its keys; a store
    /// may skip collecting them.
    ///
    /// - Throws: as `batchDelete(_:)`.
    ///
    /// Conformance: `batch-delete/all-and-status`.
    func batchDeleteCount(_ request: StoreBatchDeleteRequest) throws -> Int

    /// Releases files and connections; the store is not used afterwards, and its files can be removed,
    /// replaced or opened again (`add-store/destroy`, `add-store/replace`).
    func close()

    /// Every file a store at `url` consists of (the store file and its companions, which may not exist), so
    /// that the coordinator can destroy, replace or migrate a store as a whole. The default is `[url]`.
    ///
    /// Conformance: `add-store/destroy`, `add-store/replace`, `add-store/migrate`.
    static func storeFiles(at url: URL) -> [URL]

    /// Destroys the store at `url` (`destroyPersistentStore(at:type:options:)`), which no coordinator of the
    /// process has open.
    ///
    /// The store guarantees: afterwards adding a store at `url` makes a new, empty one; destroying a store that
    /// does not exist does nothing. The default deletes every file `storeFiles(at:)` lists. (The SQLite store
    /// truncates its database file to zero bytes instead of deleting it, as Apple's does.)
    ///
    /// - Throws: 512 (`NSFileWriteUnknownError`) naming the file that could not be deleted or truncated.
    ///
    /// Conformance: `add-store/destroy`.
    static func destroyStore(at url: URL) throws
}

extension PersistentStoreBackend {
    /// The default: the store is the one file at `url`.
    public static func storeFiles(at url: URL) -> [URL] { [url] }

    /// The default: deletes every file of the store that exists.
    public static func destroyStore(at url: URL) throws {
        for file in storeFiles(at: url) where FileManager.default.fileExists(atPath: file.path) {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw CoreDataError.make(NSFileWriteUnknownError, "Could not delete \(file.path) while destroying the store: \(error.localizedDescription)",
                                         userInfo: [NSFilePathErrorKey: file.path, NSUnderlyingErrorKey: error])
            }
        }
    }

    /// The default: the number of keys `batchDelete(_:)` returns.
    public func batchDeleteCount(_ request: StoreBatchDeleteRequest) throws -> Int {
        try batchDelete(request).count
    }
}

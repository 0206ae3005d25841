/// The store contract: what a store type implements to plug into the coordinator.
///
/// A backend knows rows, keys and versions, never contexts or managed objects. The coordinator calls a
/// backend from one thread at a time (it holds its own lock), so a backend needs no locking of its own
/// unless it shares state between instances. Every failure is a thrown `NSError` in `NSCocoaErrorDomain`
/// with Apple's code (build them with `CoreDataError`); nothing a file or a user supplies may trap.
///
/// Register a backend with `NSPersistentStoreCoordinator.registerStoreClass(_:type:)`, then check it with the
/// conformance suite (`CoreDataConformance`), which names the case that proves each guarantee below.
public protocol PersistentStoreBackend: AnyObject {
    /// Opens the store described by `request`, creating it (and its missing parent directories) when no
    /// file exists. A file that is not a store of this type, or is damaged, makes it throw 134000 or 259
    /// and stays byte-for-byte as it was; a store saved with an incompatible model throws 134100 unless the
    /// options allow lightweight migration and the store can migrate. A read-only store is never written.
    /// Conformance: `add-store/*` (migration: `add-store/lightweight-migration`).
    init(_ request: StoreOpenRequest) throws

    /// The metadata of the store file at `url` without adding the store: at least `NSStoreType` and
    /// `NSStoreUUID`. Throws 260 (no such file), 134000 or 259 as `init` does. Conformance: `add-store/metadata`.
    static func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any]

    /// The store's metadata: `NSStoreType`, `NSStoreUUID` (fixed at creation, the same after every reopen),
    /// the model's version hashes, and every key saved with `StoreChangeSet.metadata`.
    var metadata: [String: Any] { get }

    /// What the store can do beyond the core.
    var capabilities: StoreCapabilities { get }

    /// The rows, keys, count or dictionaries that `request` selects: rows of the entity (and, with
    /// `includesSubentities`, of its subentities) that the predicate matches, in the order of the sort
    /// descriptors (nil sorts first in ascending order), after skipping `fetchOffset` and keeping at most
    /// `fetchLimit`. Conformance: `fetch/*`.
    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult

    /// The current rows of these keys, in any order; keys the store does not have are left out. Contexts ask
    /// for one row when a fault fires, and for a whole batch (up to `fetchBatchSize` keys) at once.
    /// Conformance: `add-store/reopen`, `fetch/missing-object`, `faults/batched-fetch`,
    /// `faults/batched-array-reflects-the-store-at-the-fetch`.
    func rows(for keys: [ObjectKey]) throws -> [StoreRow]

    /// The keys of the destinations of a to-many relationship of one object, in order when it is ordered.
    /// Conformance: `save/to-one-and-to-many`, `save/ordered`, `save/many-to-many`.
    func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey]

    /// Hands out `count` new primary keys for the hierarchy of `entity` (one sequence per hierarchy), never
    /// given out before in this store, also after the object with the highest key was deleted and the store
    /// reopened. A key or high-water mark in a file above `StoreNumberLimits.largestStoredNumber` is damage
    /// (259); running out of keys throws 134030. Conformance: `save/permanent-ids`, `save/keys-not-reused`.
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64]

    /// Writes a change set all at once, or nothing: when any update or deletion's expected version differs
    /// from the stored one, or an update's row is gone (even with no expected version), throws
    /// `StoreVersionConflict` with every stale object and writes nothing. An update may write only its
    /// `changedSlots` (see `StoreRowUpdate`). A read-only store throws 134030. Returns the versions described
    /// by `StoreSaveResult`. Conformance: `save/*`, notably `save/conflict-writes-nothing`,
    /// `save/update-deleted-row`, `save/repeated-updates`.
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult

    /// Deletes rows without loading them, applying delete rules in the store (nullify clears references to
    /// deleted rows, cascade deletes destinations, deny throws 1600 and deletes nothing), and returns the keys
    /// of every row deleted. Deny is checked against every row the request deletes, cascades included: a
    /// destination deleted by the same request does not deny. Conformance: `batch-delete/*`.
    func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey]

    /// Deletes exactly as `batchDelete(_:)` does and returns how many rows were deleted, for callers that need
    /// no keys (Apple's status-only and count result types). The default calls `batchDelete(_:)` and counts its
    /// keys; a store may skip collecting them. Conformance: `batch-delete/*`.
    func batchDeleteCount(_ request: StoreBatchDeleteRequest) throws -> Int

    /// Sets the request's attributes on every row its fetch matches, without loading them, all at once or
    /// not at all: each updated row's version goes up by one, rows that do not match are left as they were,
    /// and the keys of the updated rows are returned. A read-only store throws 134030. A store that cannot
    /// do it keeps the default, which throws 134091, and leaves `.batchUpdate` out of its capabilities.
    /// Conformance: `batch-update/*`.
    func batchUpdate(_ request: StoreBatchUpdateRequest) throws -> [ObjectKey]

    /// Inserts the request's rows, all at once or not at all, with new keys allocated as for a save's inserts
    /// (never reused, also across reopens) and version 1, and returns the keys in the order of the rows. A
    /// read-only store throws 134030. A store that cannot do it keeps the default, which throws 134091, and
    /// leaves `.batchInsert` out of its capabilities. Conformance: `batch-insert/*`.
    func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey]

    /// Releases files and connections; the store is not used afterwards.
    func close()

    /// Every file a store at `url` consists of (the store file and its companions, which may not exist), so
    /// that the coordinator can destroy or replace a store as a whole. The default is `[url]`.
    static func storeFiles(at url: URL) -> [URL]

    /// Destroys the store at `url` (`destroyPersistentStore(at:type:options:)`), which no coordinator of the
    /// process has open: afterwards adding a store at `url` makes a new, empty one. The default deletes every
    /// file `storeFiles(at:)` lists; destroying a store that does not exist does nothing. The SQLite store
    /// truncates its database file to zero bytes instead of deleting it, as Apple's does.
    /// - Throws: `NSFileWriteUnknownError` (512) naming the file that could not be deleted or truncated.
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

    /// The default: batch updates are not supported (134091).
    public func batchUpdate(_ request: StoreBatchUpdateRequest) throws -> [ObjectKey] {
        throw CoreDataError.unsupported("batch updates in a \(type(of: self)) store")
    }

    /// The default: batch inserts are not supported (134091).
    public func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey] {
        throw CoreDataError.unsupported("batch inserts in a \(type(of: self)) store")
    }
}

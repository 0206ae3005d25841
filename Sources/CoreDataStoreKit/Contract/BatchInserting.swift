/// A store that runs `NSBatchInsertRequest` itself: an optional refinement of the store contract; adopting it
/// is the capability.
///
/// A context sends a batch insert only to a store whose backend adopts this protocol. When the first store
/// that holds the request's entity does not, `execute(_:)` throws 134091
/// (`NSPersistentStoreUnsupportedRequestTypeError`) naming the store type.
public protocol BatchInserting: PersistentStoreBackend {
    /// Inserts the request's rows (already checked, converted and completed with default values), without
    /// making managed objects.
    ///
    /// The store guarantees:
    /// - All at once or not at all: when anything fails, no row is inserted or updated.
    /// - Each inserted row gets a new primary key allocated as for a save's inserts (never given out before, also
    ///   after a reopen: `allocatePrimaryKeys(for:count:)`'s rule) and version 1.
    /// - A row whose values in every property of a uniqueness constraint (none nil) equal those of a stored row
    ///   or of a row inserted earlier by the same request is a conflict, resolved as
    ///   `request.conflictResolution` says: `.fail` throws 133021; `.updateExisting` writes the row's attribute
    ///   values (derived attributes recomputed) into that row, of the request's entity, keeping its key and
    ///   relationships and adding one to its version, in the order of the request's rows (of several rows with
    ///   the same values, the last one's values stay); `.keepExisting` drops the row.
    /// - The keys of the rows written are returned: under `.fail`, one per row in the order of the request's
    ///   rows; otherwise the key of each row inserted or updated (a key may repeat, and the order is the store's:
    ///   the context lists each object once). Dropped rows return none.
    /// - History records inserted rows as inserts and updated rows as updates of the attributes.
    ///
    /// - Throws: 134030 (`NSPersistentStoreSaveError`) for a read-only store or a write that fails; 133021
    ///   (`NSManagedObjectConstraintMergeError`) when a row breaks a uniqueness constraint under `.fail`, or under
    ///   `.updateExisting` when the row it conflicts with is of another entity or the update would break another
    ///   constraint (nothing is written). Checking the objects is done before the store is called
    ///   (`StoreBatchInsertRequest.init`: 1550, 1570, 134091).
    ///
    /// Conformance: `batch-insert/dictionaries`, `batch-insert/handlers`, `batch-insert/value-types`,
    /// `batch-insert/keys-stay-unique`, `batch-insert/bad-input`, `batch-update/read-only`,
    /// `batch-insert/uniqueness-constraint`, `batch-insert/upsert-by-constraint`.
    func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey]
}

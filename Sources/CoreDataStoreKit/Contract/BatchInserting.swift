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
    /// - All at once or not at all: when anything fails, no row is inserted.
    /// - Each row gets a new primary key allocated as for a save's inserts (never given out before, also after
    ///   a reopen: `allocatePrimaryKeys(for:count:)`'s rule) and version 1.
    /// - The keys are returned in the order of the request's rows, one per row.
    ///
    /// - Throws: 134030 (`NSPersistentStoreSaveError`) for a read-only store or a write that fails; 133021
    ///   (`NSManagedObjectConstraintMergeError`) when a row breaks a uniqueness constraint, against the stored
    ///   rows or another row of the request (nothing is inserted). Checking the objects is done before the store
    ///   is called (`StoreBatchInsertRequest.init`: 1550, 1570, 134091).
    ///
    /// Conformance: `batch-insert/dictionaries`, `batch-insert/handlers`, `batch-insert/value-types`,
    /// `batch-insert/keys-stay-unique`, `batch-insert/bad-input`, `batch-update/read-only`,
    /// `batch-insert/uniqueness-constraint`.
    func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey]
}

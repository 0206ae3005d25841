/// A store that runs `NSBatchUpdateRequest` itself: an optional refinement of the store contract; adopting it
/// is the capability.
///
/// A context sends a batch update only to the stores whose backends adopt this protocol. When a store that
/// holds the request's entity does not, `execute(_:)` throws 134091 (`NSPersistentStoreUnsupportedRequestTypeError`)
/// naming the store type, and no store is changed.
public protocol BatchUpdating: PersistentStoreBackend {
    /// Sets the request's attributes on every row its fetch matches (the fetch's entity, its subentities when
    /// `includesSubentities`, and the predicate), without loading the rows into contexts.
    ///
    /// The store guarantees:
    /// - All at once or not at all: when anything fails, no row is changed.
    /// - Each updated row's version goes up by one (so contexts holding an older version see a conflict when
    ///   they save), and rows the fetch does not match are left exactly as they were.
    /// - The keys of the updated rows are returned, each once, in any order.
    ///
    /// - Throws: 134030 (`NSPersistentStoreSaveError`) for a read-only store or a write that fails; 133021
    ///   (`NSManagedObjectConstraintMergeError`) when the new values would break a uniqueness constraint (no row
    ///   is changed). Checking the attribute names and values is done before the store is called
    ///   (`StoreBatchUpdateRequest.init`: 1550, 1570, 134091).
    ///
    /// Conformance: `batch-update/predicate`, `batch-update/result-types`, `batch-update/subentities`,
    /// `batch-update/merge-refreshes-objects`, `batch-update/bad-input`, `batch-update/read-only`,
    /// `batch-update/uniqueness-constraint`.
    func batchUpdate(_ request: StoreBatchUpdateRequest) throws -> [ObjectKey]

    /// Updates exactly as `batchUpdate(_:)` does and returns how many rows were updated, for Apple's
    /// status-only and count result types. The default calls `batchUpdate(_:)` and counts its keys; a store
    /// may skip collecting them (the caller then treats every row of the store as possibly changed).
    ///
    /// - Throws: as `batchUpdate(_:)`.
    ///
    /// Conformance: `batch-update/result-types`, `batch-update/status-and-count-leave-no-stale-rows`.
    func batchUpdateCount(_ request: StoreBatchUpdateRequest) throws -> Int
}

extension BatchUpdating {
    /// The default: the number of keys `batchUpdate(_:)` returns.
    public func batchUpdateCount(_ request: StoreBatchUpdateRequest) throws -> Int {
        try batchUpdate(request).count
    }
}

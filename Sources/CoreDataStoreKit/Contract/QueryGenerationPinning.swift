/// A store that keeps generations of its contents, so that a context pinned to one (Apple's query generations,
/// `NSManagedObjectContext.setQueryGenerationFrom(_:)`) keeps reading that state while others save: an optional
/// refinement of the store contract; adopting it is the capability.
///
/// Contexts pin to every store; for a store whose backend does not adopt this protocol, or that returns nil from
/// `openGeneration()`, a pinned context reads the store's latest state, as Apple's contexts "gracefully revert to
/// unpinned behavior" with a store that is not SQLite in WAL mode.
///
/// The coordinator calls both requirements under its lock, like every other backend call; a generation is used
/// by one thread at a time, and only through `reading(at:_:)` of the backend that opened it.
public protocol QueryGenerationPinning: PersistentStoreBackend {
    /// Takes a generation of the store as it is now: a read of the committed state that later writes (through
    /// this store, other coordinators or processes, batch requests included) do not change. Nil when the store
    /// cannot keep one now (the SQLite store in a journal mode other than WAL, or in memory).
    ///
    /// The store guarantees: the generation holds only what it needs to read that state (the SQLite store: one
    /// read-only connection holding an open read transaction, which keeps the write-ahead log from being
    /// checkpointed past it); `StoreGeneration.close()` releases it, and so does closing the store.
    ///
    /// - Throws: the store's read error (134070 or its own `NSCocoaErrorDomain` error).
    func openGeneration() throws -> StoreGeneration?

    /// Runs `body`, in which this backend answers its read requirements (`fetch(_:)`, `rows(for:)`,
    /// `relatedKeys(of:through:)`, and those of `AggregatingBackend` and `RelationshipPrefetching`) from
    /// `generation` instead of the latest state. The caller calls no write requirement inside `body`.
    ///
    /// - Throws: what `body` throws; 134060 (`NSCoreDataError`) when `generation` was not opened by this backend or
    ///   was closed.
    func reading<T>(at generation: StoreGeneration, _ body: () throws -> T) throws -> T
}

/// One generation of one store, opened by `QueryGenerationPinning.openGeneration()`: opaque to everyone but its
/// store.
public protocol StoreGeneration: AnyObject {
    /// Releases what the generation holds; reading at it afterwards throws. Closing twice does nothing.
    func close()
}

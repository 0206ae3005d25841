/// A store type that copies whole stores itself, for stores that are not files (a database server's): an
/// optional refinement of the contract. `NSPersistentStoreCoordinator.replacePersistentStore(at:…)` copies
/// the files `storeFiles(at:)` lists for every other store type.
public protocol StoreReplacing: PersistentStoreBackend {
    /// Makes the store at `destination` an exact copy of the store at `source` (same metadata, rows, keys and
    /// versions), all at once or not at all; a store at `destination` is replaced whole; `source` is unchanged.
    /// - Throws: 260 when there is no store at `source`; 134091 when the two URLs are places the store type
    ///   cannot copy between; the store's error when the copy fails (and then `destination` is as it was).
    ///
    /// Conformance: `add-store/replace`.
    static func replaceStore(at destination: URL, destinationOptions: [AnyHashable: Any]?,
                             withStoreFrom source: URL, sourceOptions: [AnyHashable: Any]?) throws
}

/// A store type whose open stores can change location, for `NSPersistentStoreCoordinator.setURL(_:for:)`.
/// The coordinator relocates only stores whose type adopts it; for others `setURL(_:for:)` returns false.
///
/// Conformance: `add-store/set-url`.
public protocol StoreRelocating: PersistentStoreBackend {
    /// Makes `url` the store's location, as Apple documents for `setURL(_:for:)`: a store written whole at each
    /// save writes its next save there (whatever is at `url` then is replaced); a store that writes in place
    /// leaves its current file and opens the one that must already exist at `url`.
    ///
    /// The coordinator calls it holding its lock, with no other call on the store in progress.
    /// - Throws: when the store cannot move to `url` (for a store that writes in place: nothing there, or not a
    ///   copy of this store); the store then stays where it was, unchanged.
    func relocate(to url: URL) throws
}

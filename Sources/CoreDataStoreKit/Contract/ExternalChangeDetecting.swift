/// A store that can tell when its file was changed by another connection: another coordinator of this
/// process or another process. An optional refinement of the contract; adopting it is the capability.
///
/// The coordinator polls it for stores added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`
/// and posts `NSPersistentStoreRemoteChange` when the number changes. The SQLite store adopts it.
public protocol ExternalChangeDetecting: PersistentStoreBackend {
    /// A number that changes whenever another connection commits a change to the store's file, and does not
    /// change for the store's own saves. Called with the coordinator's lock held.
    /// - Throws: the store's error when the file cannot be read.
    func externalChangeCount() throws -> Int64
}

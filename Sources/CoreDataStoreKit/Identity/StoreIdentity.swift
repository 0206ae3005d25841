/// One opened store as object IDs see it: its UUID and a weak link to its public handle.
///
/// An addition to Apple's API. Object IDs from the same opened store share one identity, so comparing IDs
/// compares identities by reference. The public `NSPersistentStore` sets `handle` to itself.
public final class StoreIdentity: @unchecked Sendable {
    /// The store's UUID (`NSStoreUUID`), used in object ID URIs.
    public let identifier: String
    /// The public store object (an `NSPersistentStore`), while it is added to a coordinator.
    public weak var handle: AnyObject?

    /// The identity of an opened store whose UUID is `identifier`, not yet linked to a handle.
    public init(identifier: String) {
        self.identifier = identifier
    }
}

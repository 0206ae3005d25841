/// A store type that can replace the metadata of a store file without opening the store
/// (`NSPersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:options:)`). A store type that
/// does not adopt it makes that call throw 134091.
public protocol StoreMetadataWriting: PersistentStoreBackend {
    /// Writes `metadata` as the metadata of the store at `url`, whole or not at all. `NSStoreUUIDKey` and
    /// `NSStoreTypeKey` keep the store's values when `metadata` lacks them; nil keeps only those two.
    /// - Throws: 260 when there is no store at `url`; 134000/259 when the file is not a store of this type or is
    ///   damaged; 134030 when a value is not a property-list value or the file cannot be written.
    static func setMetadata(_ metadata: [String: Any]?, forStoreAt url: URL, options: [AnyHashable: Any]?) throws
}

/// A store type that can replace the metadata of a store without opening the store
/// (`NSPersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:options:)`): an optional refinement
/// of the store contract; adopting it is the capability. A store type that does not adopt it makes that call
/// throw 134091.
public protocol StoreMetadataWriting: PersistentStoreBackend {
    /// Writes `metadata` as the metadata of the store at `url`.
    ///
    /// The store guarantees: whole or not at all; `NSStoreUUIDKey` and `NSStoreTypeKey` keep the store's values
    /// when `metadata` lacks them (nil keeps only those two); `metadataForStore(at:options:)` and the store once
    /// added return the written keys; the rows are left alone.
    ///
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) when there is no store at `url`; 134000/259 when the file is
    ///   not a store of this type or is damaged; 134030 when a value is not a property-list value or the file
    ///   cannot be written.
    ///
    /// Conformance: `add-store/set-metadata-without-adding`.
    static func setMetadata(_ metadata: [String: Any]?, forStoreAt url: URL, options: [AnyHashable: Any]?) throws
}

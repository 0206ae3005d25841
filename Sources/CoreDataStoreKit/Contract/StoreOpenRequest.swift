/// Everything a store is told when it is added to a coordinator.
public struct StoreOpenRequest {
    /// The coordinator's model.
    public var model: NSManagedObjectModel
    /// The configuration whose entities the store holds; nil for all of them.
    public var configurationName: String?
    /// Where the store's file is; nil for a store without a file.
    public var url: URL?
    /// Apple's option keys and values, as given to `addPersistentStore`.
    public var options: [AnyHashable: Any]
    /// An addition to Apple's API: the model version the store's file was saved with, when the coordinator looked
    /// for it before a lightweight migration and found it among the places automatic migration searches (the
    /// versions of `model`'s package, the folders beside it, the bundles); nil otherwise. Only a store that
    /// cannot read its file by name needs it (an Apple binary file keeps values by position); such a store
    /// also looks among the versions of `model.versionedPackageURL` when this is nil
    /// (`savedModelVersion(matching:)`).
    public var migrationSource: ModelVersion?

    /// A request to open the store at `url` (nil for a store without a file) for `configurationName`'s entities of
    /// `model` (nil: all of them), with Apple's `options`.
    public init(model: NSManagedObjectModel, configurationName: String?, url: URL?, options: [AnyHashable: Any]) {
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
    }

    /// Whether `NSReadOnlyPersistentStoreOption` is set.
    public var isReadOnly: Bool { storeOptionIsSet(options, NSReadOnlyPersistentStoreOption) }

    /// Whether the options ask for automatic lightweight migration (both Apple options set).
    public var allowsLightweightMigration: Bool {
        storeOptionIsSet(options, NSMigratePersistentStoresAutomaticallyOption)
            && storeOptionIsSet(options, NSInferMappingModelAutomaticallyOption)
    }

    /// The entities the store holds: the configuration's, or every entity.
    public var entities: [NSEntityDescription] {
        model.entities(forConfigurationName: configurationName) ?? model.entities
    }

    /// The model version a store whose metadata is `metadata` was saved with, for a lightweight migration that
    /// needs it: `migrationSource` when the metadata's version hashes are its own, else the version of the package
    /// `model` was loaded from whose hashes they are (`NSManagedObjectModel.version(ofModelAt:matchingStoreMetadata:)`,
    /// the current version first), as the SQLite store's migration finds its old model; nil when there is none,
    /// or the metadata records no version hashes.
    /// - Throws: 259/260 when a version of the package cannot be read.
    public func savedModelVersion(matching metadata: [String: Any]) throws -> ModelVersion? {
        if let source = migrationSource, source.matches(storeMetadata: metadata) { return source }
        guard let package = model.versionedPackageURL else { return nil }
        return try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata)
    }
}

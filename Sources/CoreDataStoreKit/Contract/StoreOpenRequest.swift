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
}

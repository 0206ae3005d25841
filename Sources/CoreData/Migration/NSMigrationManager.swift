/// Migrates a store from one model to another with a mapping model (Apple's `NSMigrationManager`).
///
/// `migrateStore(from:type:options:mapping:to:type:options:)` reads the source store through
/// `sourceContext` (a context of a coordinator with the source model, the store added read-only), creates the
/// destination instances in `destinationContext` (a context of a coordinator with the destination model) in
/// three stages run by each entity mapping's `NSEntityMigrationPolicy` (instances, relationships,
/// validation), and saves them once into a new store. Guarantees: the source store is never changed; the
/// destination store is written whole or not at all (a failed, thrown or cancelled migration leaves no file
/// at the destination URL).
///
/// Instances are associated per entity mapping (`associate(sourceInstance:withDestinationInstance:for:)`),
/// which `destinationInstances(forEntityMappingName:sourceInstances:)` and
/// `sourceInstances(forEntityMappingName:destinationInstances:)` look up.
open class NSMigrationManager: NSObject {
    /// The model of the stores migrated from.
    open private(set) var sourceModel: NSManagedObjectModel
    /// The model of the stores migrated to.
    open private(set) var destinationModel: NSManagedObjectModel
    /// The mapping model of the migration running (an empty one before the first).
    open internal(set) var mappingModel = NSMappingModel()
    /// The context the source store is read through (during a migration; before, one without stores).
    open internal(set) var sourceContext: NSManagedObjectContext
    /// The context the destination instances are created in (during a migration; before, one without stores).
    open internal(set) var destinationContext: NSManagedObjectContext
    /// The entity mapping being run (an empty one outside a migration).
    open internal(set) var currentEntityMapping = NSEntityMapping()
    /// The part of the migration done, from 0 to 1: each of the three stages of each entity mapping is one step.
    open internal(set) var migrationProgress: Float = 0
    /// The user's dictionary, kept across migrations.
    open var userInfo: [AnyHashable: Any]?
    /// Apple lets a store type migrate in its own way; here every store migrates through contexts, so this
    /// flag is kept and changes nothing.
    open var usesStoreSpecificMigrationManager = false

    /// The associations of the running migration, by entity mapping name.
    var associations: [String: MigrationAssociations] = [:]
    /// The error that cancelled the migration, or that a custom function reported.
    var cancellation: Error?
    var expressionFailure: Error?

    /// A manager migrating stores of `sourceModel` to `destinationModel`.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        sourceContext = Self.makeContext(NSPersistentStoreCoordinator(managedObjectModel: sourceModel))
        destinationContext = Self.makeContext(NSPersistentStoreCoordinator(managedObjectModel: destinationModel))
        super.init()
    }

    static func makeContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The source model's entity of a mapping, or nil.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity of a mapping, or nil.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Forgets the associations and contexts of the last migration.
    open func reset() {
        associations = [:]
        cancellation = nil
        expressionFailure = nil
        migrationProgress = 0
        currentEntityMapping = NSEntityMapping()
        sourceContext = Self.makeContext(NSPersistentStoreCoordinator(managedObjectModel: sourceModel))
        destinationContext = Self.makeContext(NSPersistentStoreCoordinator(managedObjectModel: destinationModel))
    }

    // MARK: Associations

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`.
    open func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject,
                        for entityMapping: NSEntityMapping) {
        associations[entityMapping.name ?? "", default: MigrationAssociations()].add(source: sourceInstance, destination: destinationInstance)
    }

    /// The destination instances the entity mapping named `mappingName` made from `sourceInstances` (each
    /// source's in creation order); with nil sources, every destination instance it made.
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let recorded = associations[mappingName] else { return [] }
        guard let sourceInstances else { return recorded.allDestinations }
        return sourceInstances.flatMap { recorded.destinations(of: $0) }
    }

    /// The source instances the entity mapping named `mappingName` made `destinationInstances` from; with nil
    /// destinations, every source instance it migrated.
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let recorded = associations[mappingName] else { return [] }
        guard let destinationInstances else { return recorded.allSources }
        return destinationInstances.flatMap { recorded.sources(of: $0) }
    }

    /// The destination instances made from `sourceInstances` by any entity mapping (for
    /// `destinationInstancesForSourceRelationshipNamed:sourceInstances:`), in the mappings' order.
    func destinationInstancesOfAnyMapping(_ sourceInstances: [NSManagedObject]) -> [NSManagedObject] {
        let ordered = (mappingModel.entityMappings ?? []).compactMap { associations[$0.name ?? ""] }
        return sourceInstances.flatMap { source in ordered.flatMap { $0.destinations(of: source) } }
    }

    // MARK: Cancelling

    /// Stops the running migration at the next step: `migrateStore` then throws `error`, and writes nothing.
    open func cancelMigrationWithError(_ error: Error) {
        if cancellation == nil { cancellation = error }
    }

    /// Records the error a custom function of an expression threw; the expression's evaluation then throws it.
    func recordExpressionFailure(_ error: Error) {
        if expressionFailure == nil { expressionFailure = error }
    }

    /// Throws the cancellation error, if the migration was cancelled.
    func checkCancelled() throws {
        if let cancellation { throw cancellation }
    }
}

/// Which source instance became which destination instances, for one entity mapping.
struct MigrationAssociations {
    private var destinationsBySource: [ObjectIdentifier: [NSManagedObject]] = [:]
    private var sourcesByDestination: [ObjectIdentifier: [NSManagedObject]] = [:]
    private(set) var allSources: [NSManagedObject] = []
    private(set) var allDestinations: [NSManagedObject] = []

    mutating func add(source: NSManagedObject, destination: NSManagedObject) {
        if destinationsBySource[ObjectIdentifier(source)] == nil { allSources.append(source) }
        if sourcesByDestination[ObjectIdentifier(destination)] == nil { allDestinations.append(destination) }
        destinationsBySource[ObjectIdentifier(source), default: []].append(destination)
        sourcesByDestination[ObjectIdentifier(destination), default: []].append(source)
    }

    func destinations(of source: NSManagedObject) -> [NSManagedObject] { destinationsBySource[ObjectIdentifier(source)] ?? [] }
    func sources(of destination: NSManagedObject) -> [NSManagedObject] { sourcesByDestination[ObjectIdentifier(destination)] ?? [] }
}

/// The `$manager` variable of a mapping's expressions: the migration manager.
public let NSMigrationManagerKey = "manager"
/// The `$source` variable of a mapping's expressions: the source instance.
public let NSMigrationSourceObjectKey = "source"
/// The `$destination` variable of a mapping's expressions: the destination instance (relationship stage).
public let NSMigrationDestinationObjectKey = "destination"
/// The `$entityMapping` variable of a mapping's expressions: the entity mapping being run.
public let NSMigrationEntityMappingKey = "entityMapping"
/// The `$propertyMapping` variable of a mapping's expressions: the property mapping being evaluated.
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// The `$entityPolicy` variable of a mapping's expressions: the entity mapping's policy.
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// How the instances of one entity mapping are migrated (Apple's `NSEntityMigrationPolicy`): subclass it
/// and name the subclass in the mapping's `entityMigrationPolicyClassName` to split, merge or change
/// instances in code.
///
/// The manager makes one policy per entity mapping (with `init()`), and calls, for every mapping in turn:
/// `begin(_:with:)`, `createDestinationInstances(forSource:in:manager:)` for each source instance,
/// `endInstanceCreation(forMapping:manager:)`; then for every mapping `createRelationships(forDestination:in:manager:)`
/// for each destination instance the mapping made, `endRelationshipCreation(forMapping:manager:)`; then for
/// every mapping `performCustomValidation(forMapping:manager:)` and `end(_:manager:)`. An error thrown by any
/// of them stops the migration, which then writes nothing.
///
/// Custom functions: Swift on Linux has no Objective-C message sending, so
/// `FUNCTION($entityPolicy, "selector:", …)` in a mapping's expression calls ➕ ``customFunction(_:arguments:)``
/// with the selector as written and the arguments' values; a subclass overrides it (see Decisions.md).
open class NSEntityMigrationPolicy: NSObject, PredicateFunctionTarget {
    /// The manager whose migration this policy runs in, while it runs.
    weak var activeManager: NSMigrationManager?

    public required override init() {
        super.init()
    }

    /// Called before the mapping's instances are created. The default does nothing.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination instances of one source instance. The default inserts one instance of the
    /// destination entity into `manager.destinationContext`, sets each attribute that has a value expression
    /// (an expression giving nil sets nil), and associates it with the source (`associate(sourceInstance:
    /// withDestinationInstance:for:)`); for a mapping without a destination entity it does nothing.
    /// - Throws: 134110 when the destination entity is not in the destination model; what an expression's
    ///   custom function throws.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                         manager: NSMigrationManager) throws {
        guard let entityName = mapping.destinationEntityName else { return }
        guard let entity = manager.destinationModel.entitiesByName[entityName] else {
            throw CoreDataError.migrationFailed("the entity mapping \(mapping.name ?? "") names the destination entity \(entityName), which the destination model does not have")
        }
        let objectClass = ManagedObjectClassRegistry.shared.objectClass(for: entity)
        let destination = objectClass.init(instantiating: entity, insertInto: manager.destinationContext)
        for propertyMapping in mapping.attributeMappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression,
                  entity.attributesByName[name] != nil else { continue }
            let value = try manager.evaluate(expression, source: sInstance, destination: destination, mapping: mapping,
                                             propertyMapping: propertyMapping, policy: self)
            destination.setValue(value, forKey: name)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called after every source instance of the mapping was given its destination instances. The default
    /// does nothing.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets the relationships of one destination instance the mapping created: each relationship mapping's
    /// value expression is evaluated with `$source` bound to the instance's source instance, and its value (a
    /// destination instance, or a collection of them) becomes the relationship's. Expressions without a value
    /// leave the relationship alone.
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping,
                                  manager: NSMigrationManager) throws {
        let source = manager.sourceInstances(forEntityMappingName: mapping.name ?? "", destinationInstances: [dInstance]).first
        for propertyMapping in mapping.relationshipMappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression,
                  let relationship = dInstance.entity.relationshipsByName[name] else { continue }
            let value = try manager.evaluate(expression, source: source, destination: dInstance, mapping: mapping,
                                             propertyMapping: propertyMapping, policy: self)
            dInstance.setValue(Self.relationshipValue(value, for: relationship), forKey: name)
        }
    }

    /// Called after the relationships of every destination instance of the mapping are set. The default
    /// does nothing.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Checks the migrated instances in code before they are saved. The default does nothing (the
    /// destination context's save validates every instance against the destination model).
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called last for the mapping. The default does nothing.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// ➕ The value of `FUNCTION($entityPolicy, "selector", arguments…)` in a mapping's expression: override
    /// to supply custom functions, switching on `selector` (spelled as in the expression, colons included).
    /// An error thrown here fails the migration with it.
    /// - Throws: the default throws 134091 naming the selector.
    open func customFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        throw CoreDataError.unsupported("the custom function \"\(selector)\" of \(type(of: self)) (override customFunction(_:arguments:) to supply it)")
    }

    /// `FUNCTION($entityPolicy, …)`: calls `customFunction(_:arguments:)`, handing an error to the manager.
    public func value(ofFunction selector: String, arguments: [Any?]) -> Any? {
        do { return try customFunction(selector, arguments: arguments) } catch {
            activeManager?.recordExpressionFailure(error)
            return nil
        }
    }

    /// A relationship's value from what an expression gave: for a to-one the first managed object, for a
    /// to-many the managed objects as a set (ordered: an ordered set).
    static func relationshipValue(_ value: Any?, for relationship: NSRelationshipDescription) -> Any? {
        let objects = managedObjects(in: value)
        if !relationship.isToMany { return objects.first }
        return relationship.isOrdered ? NSOrderedSet(array: objects) : Set(objects) as Any
    }

    /// The managed objects a value holds: itself, or a collection's elements, in order.
    static func managedObjects(in value: Any?) -> [NSManagedObject] {
        switch value {
        case let object as NSManagedObject: return [object]
        case let list as [Any?]: return list.compactMap { $0 as? NSManagedObject }
        case let list as [NSManagedObject]: return list
        case let set as Set<NSManagedObject>: return Array(set)
        case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        default: return []
        }
    }
}

/// The mapping lightweight migration uses, inferred from two models.
extension NSMappingModel {
    /// The mapping model that migrates stores of `sourceModel` to `destinationModel` by matching names:
    /// each destination entity takes the source entity named by its `renamingIdentifier` (else its own name),
    /// and each of its properties (inherited ones included: the migration manager makes a subentity's instances
    /// from the subentity's mapping alone) the source property named the same way.
    ///
    /// - An entity found in the source gets a copy mapping (equal version hashes) or a transform mapping;
    ///   one not found an add mapping; a source entity nothing takes a remove mapping.
    /// - An attribute found in the source gets `$source.<old name>`; one not found no expression (it keeps its
    ///   default value; a required one without a default then fails the migration's save with 1570).
    /// - A relationship found in the source gets
    ///   `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<old name>", $source.<old name>)`.
    /// - Throws: 134190 (`NSInferredMappingModelError`) naming the entity and property when a property cannot
    ///   be inferred: an attribute whose type changed (other than between integer sizes or between
    ///   floating-point sizes), an attribute that became a relationship or the reverse, or two destination
    ///   entities or properties that take the same source one.
    public class func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel,
                                         destinationModel: NSManagedObjectModel) throws -> NSMappingModel {
        let model = NSMappingModel()
        var taken = Set<String>()
        var mappings: [NSEntityMapping] = []
        for destination in destinationModel.entities.sorted(by: { $0.name ?? "" < $1.name ?? "" }) {
            let destinationName = destination.name ?? ""
            let oldName = destination.renamingIdentifier ?? destinationName
            guard let source = sourceModel.entitiesByName[oldName] ?? (destination.renamingIdentifier != nil ? sourceModel.entitiesByName[destinationName] : nil),
                  let sourceName = source.name else {
                mappings.append(try inferredAddMapping(for: destination))
                continue
            }
            guard taken.insert(sourceName).inserted else {
                throw CoreDataError.cannotInferMapping(entity: destinationName, property: "*",
                                                       reason: "takes the source entity \(sourceName), which another destination entity takes too")
            }
            mappings.append(try inferredMapping(from: source, to: destination))
        }
        for source in sourceModel.entities.sorted(by: { $0.name ?? "" < $1.name ?? "" }) where !taken.contains(source.name ?? "") {
            mappings.append(inferredRemoveMapping(for: source))
        }
        model.entityMappings = mappings
        return model
    }

    private static func fetchExpression(for source: NSEntityDescription) throws -> CoreData.NSExpression {
        try builtExpression("FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", "
            + PredicateConstant.quote(source.name ?? "") + ", \"TRUEPREDICATE\"), $manager.sourceContext, NO)")
    }

    private static func inferredMapping(from source: NSEntityDescription, to destination: NSEntityDescription) throws -> NSEntityMapping {
        let mapping = NSEntityMapping()
        let sourceName = source.name ?? "", destinationName = destination.name ?? ""
        mapping.name = sourceName + "To" + destinationName
        mapping.mappingType = source.versionHash == destination.versionHash && sourceName == destinationName
            ? .copyEntityMappingType : .transformEntityMappingType
        mapping.sourceEntityName = sourceName
        mapping.sourceEntityVersionHash = source.versionHash
        mapping.destinationEntityName = destinationName
        mapping.destinationEntityVersionHash = destination.versionHash
        mapping.sourceExpression = try fetchExpression(for: source)
        var attributes: [NSPropertyMapping] = []
        var relationships: [NSPropertyMapping] = []
        var takenProperties = Set<String>()
        for property in destination.properties.sorted(by: { $0.name < $1.name }) {
            if property is NSFetchedPropertyDescription || property is NSDerivedAttributeDescription { continue }
            if property.isTransient { continue }
            let sourceProperty = source.propertiesByName[property.renamingIdentifier ?? property.name]
                ?? (property.renamingIdentifier != nil ? source.propertiesByName[property.name] : nil)
            if let sourceProperty, !takenProperties.insert(sourceProperty.name).inserted {
                throw CoreDataError.cannotInferMapping(entity: destinationName, property: property.name,
                                                       reason: "takes \(sourceName).\(sourceProperty.name), which another property takes too")
            }
            switch property {
            case let attribute as NSAttributeDescription:
                attributes.append(NSPropertyMapping(name: attribute.name, valueExpression: try inferredValue(
                    of: attribute, from: sourceProperty, entity: destinationName)))
            case let relationship as NSRelationshipDescription:
                relationships.append(NSPropertyMapping(name: relationship.name, valueExpression: try inferredValue(
                    of: relationship, from: sourceProperty, entity: destinationName)))
            default: continue
            }
        }
        mapping.attributeMappings = attributes
        mapping.relationshipMappings = relationships
        return mapping
    }

    private static func inferredValue(of attribute: NSAttributeDescription, from sourceProperty: NSPropertyDescription?,
                                      entity: String) throws -> CoreData.NSExpression? {
        guard let sourceProperty else { return nil }
        guard let old = sourceProperty as? NSAttributeDescription, !(sourceProperty is NSDerivedAttributeDescription) else {
            throw CoreDataError.cannotInferMapping(entity: entity, property: attribute.name,
                                                   reason: "is an attribute, but \(sourceProperty.name) in the source model is not")
        }
        guard convertible(old.attributeType, to: attribute.attributeType) else {
            throw CoreDataError.cannotInferMapping(
                entity: entity, property: attribute.name,
                reason: "changed type from \(old.attributeType.rawValue) to \(attribute.attributeType.rawValue), which the inferred mapping cannot convert")
        }
        return try builtExpression("$source." + old.name)
    }

    private static func inferredValue(of relationship: NSRelationshipDescription, from sourceProperty: NSPropertyDescription?,
                                      entity: String) throws -> CoreData.NSExpression? {
        guard let sourceProperty else { return nil }
        guard sourceProperty is NSRelationshipDescription else {
            throw CoreDataError.cannotInferMapping(entity: entity, property: relationship.name,
                                                   reason: "is a relationship, but \(sourceProperty.name) in the source model is not")
        }
        let quoted = PredicateConstant.quote(sourceProperty.name)
        return try builtExpression("FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \(quoted), $source.\(sourceProperty.name))")
    }

    /// Whether the inferred mapping carries values of type `old` into an attribute of type `new`: the same
    /// type, integers of any size, or floating-point numbers of any size.
    static func convertible(_ old: NSAttributeType, to new: NSAttributeType) -> Bool {
        if old == new { return true }
        let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType]
        let floats: Set<NSAttributeType> = [.floatAttributeType, .doubleAttributeType]
        return (integers.contains(old) && integers.contains(new)) || (floats.contains(old) && floats.contains(new))
    }

    private static func inferredAddMapping(for destination: NSEntityDescription) throws -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.name = destination.name ?? ""
        mapping.mappingType = .addEntityMappingType
        mapping.destinationEntityName = destination.name
        mapping.destinationEntityVersionHash = destination.versionHash
        mapping.attributeMappings = []
        mapping.relationshipMappings = []
        return mapping
    }

    private static func inferredRemoveMapping(for source: NSEntityDescription) -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.name = source.name ?? ""
        mapping.mappingType = .removeEntityMappingType
        mapping.sourceEntityName = source.name
        mapping.sourceEntityVersionHash = source.versionHash
        return mapping
    }
}

/// How to migrate a store from one model to another: one entity mapping per pair of source and destination
/// entities (Apple's `NSMappingModel`).
///
/// Made in code, read from Xcode's `.xcmappingmodel` or Apple's compiled `.cdm` (`init(contentsOf:)`), found
/// among bundles by the models' entity version hashes (`init(from:forSourceModel:destinationModel:)`), or
/// inferred from two models (`inferredMappingModel(forSourceModel:destinationModel:)`). Used by
/// `NSMigrationManager`.
open class NSMappingModel: NSObject {
    /// The entity mappings, in the order the migration manager runs them.
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings by name (a mapping without a name is left out; of two with one name, the first).
    open var entityMappingsByName: [String: NSEntityMapping] {
        var byName: [String: NSEntityMapping] = [:]
        for mapping in entityMappings ?? [] {
            if let name = mapping.name, byName[name] == nil { byName[name] = mapping }
        }
        return byName
    }

    public override init() {
        super.init()
    }

    /// The mapping model a file describes; the expressions' format text is parsed here.
    /// - Throws: 259 naming the file and mapping for an expression that does not parse.
    convenience init(_ file: MappingModelFile, url: URL) throws {
        self.init()
        entityMappings = try file.entityMappings.map { try Self.entityMapping($0, url: url) }
    }

    private static func entityMapping(_ described: MappingModelFile.EntityMapping, url: URL) throws -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.name = described.name ?? ""
        mapping.mappingType = NSEntityMappingType(rawValue: described.mappingType) ?? .undefinedEntityMappingType
        mapping.sourceEntityName = described.sourceEntityName
        mapping.sourceEntityVersionHash = described.sourceEntityVersionHash
        mapping.destinationEntityName = described.destinationEntityName
        mapping.destinationEntityVersionHash = described.destinationEntityVersionHash
        mapping.entityMigrationPolicyClassName = described.entityMigrationPolicyClassName
        mapping.userInfo = described.userInfo
        let place = { (property: String?) in CoreDataError.ModelFilePlace(file: url, entity: described.name, property: property) }
        mapping.sourceExpression = try described.sourceExpressionFormat.map { try expression($0, place: place(nil)) }
        mapping.attributeMappings = try described.attributeMappings.map { try propertyMapping($0, place: place($0.name)) }
        mapping.relationshipMappings = try described.relationshipMappings.map { try propertyMapping($0, place: place($0.name)) }
        return mapping
    }

    private static func propertyMapping(_ described: MappingModelFile.PropertyMapping, place: CoreDataError.ModelFilePlace) throws -> NSPropertyMapping {
        NSPropertyMapping(name: described.name, valueExpression: try described.valueExpressionFormat.map { try expression($0, place: place) },
                          userInfo: described.userInfo)
    }

    /// An expression parsed from format text.
    /// - Throws: 259 at `place` when the text does not parse.
    static func expression(_ format: String, place: CoreDataError.ModelFilePlace) throws -> CoreData.NSExpression {
        do {
            return CoreData.NSExpression(form: .operand(try PredicateOperand(format: format, arguments: [])))
        } catch {
            throw CoreDataError.invalidModelFile(place, reason: "the expression \(format) does not parse (\((error as NSError).localizedDescription))")
        }
    }

    /// An expression parsed from format text this package wrote itself (inferred mappings); parsed by
    /// construction, so a failure is reported as an unsupported request naming the text.
    static func builtExpression(_ format: String) throws -> CoreData.NSExpression {
        do {
            return CoreData.NSExpression(form: .operand(try PredicateOperand(format: format, arguments: [])))
        } catch {
            throw CoreDataError.unsupported("the expression \(format) (\((error as NSError).localizedDescription))")
        }
    }

    open override var description: String {
        "NSMappingModel(" + (entityMappings ?? []).map { $0.name ?? "" }.joined(separator: ", ") + ")"
    }
}

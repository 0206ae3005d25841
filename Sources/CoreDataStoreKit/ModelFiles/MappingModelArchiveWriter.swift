/// Writes a mapping model in Apple's compiled form (`.cdm`): an `NSKeyedArchiver` binary property list whose
/// root is an `NSMappingModel`, with the classes and keys of the `.cdm` Xcode compiled from a fixture
/// `.xcmappingmodel` (and that `MappingModelArchiveReader` reads). An addition to Apple's API; `coredata compile`
/// and the build plugin write `.cdm` files with it, as Xcode's mapping model compiler does.
///
/// What is written (read off Apple's `V2toV3.cdm`):
/// - the root `NSMappingModel`: `NSEntityMappings` (an `NSArray`, in mapping order) and `NSEntityMappingsByName`
///   (an `NSMutableDictionary`; of two mappings with one name, the first, as `NSMappingModel.entityMappingsByName`);
/// - each `NSEntityMapping`: `NSMappingName`, `NSMappingType`, `NSSourceEntityName`, `NSSourceEntityVersionHash`,
///   `NSDestinationEntityName`, `NSDestinationEntityVersionHash`, `NSSourceExpression`,
///   `NSEntityMigrationPolicyClassName`, `NSUserInfo`, `NSAttributeMappings` and `NSRelationshipMappings`
///   (`NSArray`s), every key present and `$null` where there is no value;
/// - each `NSPropertyMapping`: `NSDestinationPropertyName`, `NSValueExpression`, `NSUserInfo` and
///   `NSPropertyTransforms` (always `$null`, as in Apple's file);
/// - expressions as the `.mom` writer archives them (`MOMArchiveWriter+Predicates.swift`): `$source.name` is an
///   `NSKeyPathExpression` on a variable, `FUNCTION($manager, "sel:", …)` an `NSFunctionExpression`, `FETCH(…)` an
///   `NSFetchRequestExpression`. A `FUNCTION`'s arguments are an `NSMutableArray` in value expressions (Apple's
///   compiler parses them from text) and an `NSArray` in source expressions (Xcode builds those in code).
///
/// Guarantees: reading the result back with `MappingModelArchiveReader` gives the same mapping model (names,
/// types, entities, hashes, policy, userInfo, and expressions that print the same), and Xcode's package compiled
/// here decodes to the structure of Apple's `.cdm` of it (`MappingModelWritingTests`).
///
/// Not written (`unsupportedModelFormat`, 3328, naming the mapping and property): an expression that does not
/// parse, or holds what the `.mom` writer does not archive (`SUBQUERY`, `CAST` of a non-constant, collection
/// indexes, object constants); userInfo values other than those `MOMArchiveWriter` writes.
public enum MappingModelArchiveWriter {
    /// The `.cdm` archive of `mapping`; `file` names the mapping model in errors.
    /// - Throws: `unsupportedModelFormat` (3328) for what is not written (see above).
    public static func archive(_ mapping: MappingModelFile, file: URL) throws -> Data {
        var writer = Writer(file: file)
        try writer.writeMappingModel(mapping)
        return writer.builder.data()
    }

    private struct Writer {
        typealias Value = BinaryPropertyList.Value
        let file: URL
        var builder = MOMArchiveWriter.Builder()

        init(file: URL) { self.file = file }

        func failure(_ mapping: String?, _ property: String?, prefix: String) -> (String) -> NSError {
            let file = self.file
            return { CoreDataError.unsupportedModelFormat(.init(file: file, entity: mapping, property: property), reason: prefix + $0) }
        }

        mutating func writeMappingModel(_ mapping: MappingModelFile) throws {
            let root = builder.reserve()
            var references: [Value] = []
            var byName: [(String, Value)] = []
            for entityMapping in mapping.entityMappings {
                let reference = try writeEntityMapping(entityMapping)
                references.append(reference)
                if let name = entityMapping.name, !byName.contains(where: { $0.0 == name }) { byName.append((name, reference)) }
            }
            builder.fill(root, className: "NSMappingModel", fields: [
                ("NSEntityMappings", builder.array(references)),
                ("NSEntityMappingsByName", builder.dictionary(byName, className: "NSMutableDictionary")),
            ])
        }

        mutating func writeEntityMapping(_ mapping: MappingModelFile.EntityMapping) throws -> Value {
            let name = mapping.name
            var fields: [(String, Value)] = [
                ("NSMappingName", optionalString(name)),
                ("NSMappingType", .integer(Int64(mapping.mappingType))),
                ("NSSourceEntityName", optionalString(mapping.sourceEntityName)),
                ("NSSourceEntityVersionHash", mapping.sourceEntityVersionHash.map { builder.bytes($0) } ?? .uid(0)),
                ("NSDestinationEntityName", optionalString(mapping.destinationEntityName)),
                ("NSDestinationEntityVersionHash", mapping.destinationEntityVersionHash.map { builder.bytes($0) } ?? .uid(0)),
            ]
            let sourceFail = failure(name, nil, prefix: "the entity mapping's source expression ")
            fields.append(("NSSourceExpression", try expression(mapping.sourceExpressionFormat, argumentsClassName: "NSArray", fail: sourceFail)))
            fields.append(("NSEntityMigrationPolicyClassName", optionalString(mapping.entityMigrationPolicyClassName)))
            fields.append(("NSUserInfo", try userInfo(mapping.userInfo, fail: failure(name, nil, prefix: "the entity mapping's userInfo: "))))
            fields.append(("NSAttributeMappings", try propertyMappings(mapping.attributeMappings, mapping: name)))
            fields.append(("NSRelationshipMappings", try propertyMappings(mapping.relationshipMappings, mapping: name)))
            return builder.object("NSEntityMapping", fields)
        }

        mutating func propertyMappings(_ mappings: [MappingModelFile.PropertyMapping], mapping: String?) throws -> Value {
            var items: [Value] = []
            for property in mappings {
                let fail = failure(mapping, property.name, prefix: "the value expression ")
                let value = try expression(property.valueExpressionFormat, argumentsClassName: "NSMutableArray", fail: fail)
                let info = try userInfo(property.userInfo, fail: failure(mapping, property.name, prefix: "the property mapping's userInfo: "))
                items.append(builder.object("NSPropertyMapping", [
                    ("NSDestinationPropertyName", optionalString(property.name)), ("NSValueExpression", value),
                    ("NSUserInfo", info), ("NSPropertyTransforms", .uid(0)),
                ]))
            }
            return builder.array(items)
        }

        /// The archived expression for format text; `$null` for none.
        /// - Throws: `fail(reason)` for text that does not parse or holds what is not archived.
        mutating func expression(_ format: String?, argumentsClassName: String, fail: (String) -> NSError) throws -> Value {
            guard let format else { return .uid(0) }
            let operand: PredicateOperand
            do { operand = try PredicateOperand(format: format, arguments: []) } catch {
                throw fail("\(format) does not parse (\((error as NSError).localizedDescription))")
            }
            builder.functionArgumentsClassName = argumentsClassName
            defer { builder.functionArgumentsClassName = "NSArray" }
            return try builder.expression(operand, refuse: { fail("\(format) \($0)") })
        }

        mutating func userInfo(_ info: [AnyHashable: Any]?, fail: (String) -> NSError) throws -> Value {
            guard let info, !info.isEmpty else { return .uid(0) }
            return try builder.plainValue(info, refuse: fail)
        }

        mutating func optionalString(_ text: String?) -> Value {
            text.map { builder.string($0) } ?? .uid(0)
        }
    }
}

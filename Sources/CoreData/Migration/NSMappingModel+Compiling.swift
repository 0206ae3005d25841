/// Mapping models written in Apple's compiled form (`.cdm`), as Xcode compiles an `.xcmappingmodel`: additions to
/// Apple's API, used by `coredata compile` and the build plugin. The archive is `MappingModelArchiveWriter`'s.
extension NSMappingModel {
    /// Writes the mapping model to `url` as Apple's compiled `.cdm`, which `init(contentsOf:)` and
    /// `init(from:forSourceModel:destinationModel:)` read here and on iOS and macOS. The file is replaced whole
    /// (written beside it, then moved), so a failure leaves any previous file as it was.
    ///
    /// Expressions are archived from their format text (`description`); a mapping without a name is written
    /// without one and left out of `NSEntityMappingsByName`.
    /// - Throws: `unsupportedModelFormat` (3328, naming the mapping and property) for an expression the archive
    ///   cannot hold (see `MappingModelArchiveWriter`) or one made with `NSExpression(forFunction:arguments:)`,
    ///   which has no format text; `modelWriteFailed` (512) when the file cannot be written.
    public func write(to url: URL) throws {
        let data = try MappingModelArchiveWriter.archive(try fileDescription(file: url), file: url)
        try MappingModelCompiler.writeWhole(data, to: url)
    }

    /// Compiles Xcode's `.xcmappingmodel` package at `source` into the `.cdm` file `output`, as Xcode does:
    /// the mapping names, types, source expressions and generated value expressions Xcode's compiler makes (see
    /// `XCMappingModelReader`), and the version hashes of the package's embedded models (`MappingModelCompiler`).
    /// - Throws: what `mappingModel(contentsOf:)` throws for a package it cannot read (260, 259, 134000);
    ///   `unsupportedModelFormat` (3328) for a source that is not an `.xcmappingmodel` package (a compiled `.cdm`)
    ///   or holds an expression the archive cannot hold; `modelWriteFailed` (512) when `output` cannot be written.
    public static func compile(_ source: URL, to output: URL) throws {
        try MappingModelCompiler.compile(source, to: output)
    }

    /// The mapping model as a file describes it, its expressions as format text; `file` names it in errors.
    /// - Throws: `unsupportedModelFormat` (3328) for an expression without format text.
    func fileDescription(file: URL) throws -> MappingModelFile {
        try MappingModelFile(entityMappings: (entityMappings ?? []).map { mapping in
            let name = mapping.name
            func text(_ expression: CoreData.NSExpression?, property: String?) throws -> String? {
                guard let expression else { return nil }
                if case .function(let function, _) = expression.form {
                    throw CoreDataError.unsupportedModelFormat(.init(file: file, entity: name, property: property), reason:
                        "the expression \(expression) was made with NSExpression(forFunction: \"\(function)\", arguments:), which has no format text to archive")
                }
                return expression.description
            }
            func describe(_ property: NSPropertyMapping) throws -> MappingModelFile.PropertyMapping {
                MappingModelFile.PropertyMapping(name: property.name, valueExpressionFormat: try text(property.valueExpression, property: property.name),
                                                 userInfo: property.userInfo)
            }
            return MappingModelFile.EntityMapping(
                name: name, mappingType: mapping.mappingType.rawValue,
                sourceEntityName: mapping.sourceEntityName, sourceEntityVersionHash: mapping.sourceEntityVersionHash,
                destinationEntityName: mapping.destinationEntityName, destinationEntityVersionHash: mapping.destinationEntityVersionHash,
                sourceExpressionFormat: try text(mapping.sourceExpression, property: nil),
                entityMigrationPolicyClassName: mapping.entityMigrationPolicyClassName, userInfo: mapping.userInfo,
                attributeMappings: try (mapping.attributeMappings ?? []).map(describe),
                relationshipMappings: try (mapping.relationshipMappings ?? []).map(describe))
        })
    }
}

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
    ///   cannot hold (see `MappingModelArchiveWriter`); `modelWriteFailed` (512) when the file cannot be written.
    public func write(to url: URL) throws {
        let data = try MappingModelArchiveWriter.archive(fileDescription, file: url)
        try Self.writeWhole(data, to: url)
    }

    /// Compiles Xcode's `.xcmappingmodel` package at `source` into the `.cdm` file `output`, as Xcode does:
    /// the mapping names, types, source expressions and generated value expressions Xcode's compiler makes (see
    /// `XCMappingModelReader`), and the version hashes of the package's embedded models.
    /// - Throws: what `mappingModel(contentsOf:)` throws for a package it cannot read (260, 259, 134000);
    ///   `unsupportedModelFormat` (3328) for a source that is not an `.xcmappingmodel` package (a compiled `.cdm`)
    ///   or holds an expression the archive cannot hold; `modelWriteFailed` (512) when `output` cannot be written.
    public static func compile(_ source: URL, to output: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory) else {
            throw CoreDataError.modelFileMissing(.init(file: source))
        }
        guard isDirectory.boolValue else {
            throw CoreDataError.unsupportedModelFormat(.init(file: source), reason: "already compiled; compile an .xcmappingmodel package")
        }
        let data = try MappingModelArchiveWriter.archive(try XCMappingModelReader(package: source).read(), file: source)
        try writeWhole(data, to: output)
    }

    /// The mapping model as a file describes it, its expressions as format text.
    var fileDescription: MappingModelFile {
        MappingModelFile(entityMappings: (entityMappings ?? []).map { mapping in
            MappingModelFile.EntityMapping(
                name: mapping.name, mappingType: mapping.mappingType.rawValue,
                sourceEntityName: mapping.sourceEntityName, sourceEntityVersionHash: mapping.sourceEntityVersionHash,
                destinationEntityName: mapping.destinationEntityName, destinationEntityVersionHash: mapping.destinationEntityVersionHash,
                sourceExpressionFormat: mapping.sourceExpression?.description,
                entityMigrationPolicyClassName: mapping.entityMigrationPolicyClassName, userInfo: mapping.userInfo,
                attributeMappings: (mapping.attributeMappings ?? []).map(Self.describe),
                relationshipMappings: (mapping.relationshipMappings ?? []).map(Self.describe))
        })
    }

    private static func describe(_ mapping: NSPropertyMapping) -> MappingModelFile.PropertyMapping {
        MappingModelFile.PropertyMapping(name: mapping.name, valueExpressionFormat: mapping.valueExpression?.description,
                                         userInfo: mapping.userInfo)
    }

    /// `data` at `url`, written to a temporary file beside it and moved over it.
    /// - Throws: `modelWriteFailed` (512) naming `url`.
    private static func writeWhole(_ data: Data, to url: URL) throws {
        do { try data.write(to: url, options: .atomic) } catch {
            throw CoreDataError.modelWriteFailed(url, reason: error.localizedDescription)
        }
    }
}

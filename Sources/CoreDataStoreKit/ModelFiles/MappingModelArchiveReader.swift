/// Reads Apple's compiled mapping model (`.cdm`: an `NSKeyedArchiver` archive whose root is an
/// `NSMappingModel`), and the archived pieces of Xcode's `.xcmappingmodel` (value expressions, embedded
/// models), walking the archives without instantiating any class.
///
/// What a `.cdm` holds (read off the fixtures): the root's `NSEntityMappings` (an array, in mapping order) and
/// `NSEntityMappingsByName`; each `NSEntityMapping` has `NSMappingName`, `NSMappingType`, `NSSourceEntityName`,
/// `NSSourceEntityVersionHash`, `NSDestinationEntityName`, `NSDestinationEntityVersionHash`,
/// `NSSourceExpression` (an `NSFetchRequestExpression`), `NSEntityMigrationPolicyClassName`, `NSUserInfo`,
/// `NSAttributeMappings` and `NSRelationshipMappings`; each `NSPropertyMapping` has
/// `NSDestinationPropertyName`, `NSValueExpression` and `NSUserInfo` (and `NSPropertyTransforms`, always
/// `$null` in the fixtures, not read).
public enum MappingModelArchiveReader {
    /// The mapping model in `.cdm` bytes; `file` names where they came from in errors.
    /// - Throws: 259 (`NSFileReadCorruptFileError`) naming the file (and mapping) for bytes that are not a
    ///   keyed archive of a mapping model, or whose expressions cannot be read.
    public static func read(_ data: Data, file: URL) throws -> MappingModelFile {
        let archive = try openArchive(data, file: file, what: "compiled mapping model")
        guard let root = archive.object(at: archive.rootIndex), root.className == "NSMappingModel" else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "the archive's root object is not an NSMappingModel")
        }
        guard let items = archive.elements(root.fields["NSEntityMappings"]) else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "the mapping model has no NSEntityMappings array")
        }
        return MappingModelFile(entityMappings: try items.map { try entityMapping($0, archive: archive, file: file) })
    }

    /// The format text of an archived `NSExpression` (Xcode keeps a mapping's custom value expression so);
    /// nil when the archive's root is `$null`.
    /// - Throws: 259 naming the file for bytes that are not such an archive.
    public static func expressionFormat(archivedExpression data: Data, file: URL) throws -> String? {
        // Xcode archives a cleared expression as an archive whose root is `$null` and whose only object it is.
        if let top = BinaryPropertyListCheck.propertyList(from: data, allowingUIDs: true) as? [String: Any],
           let objects = top["$objects"] as? [Any], objects.count == 1 {
            return nil
        }
        let archive = try openArchive(data, file: file, what: "archived expression")
        let text = ArchivedPredicateText(archive: archive)
        do {
            guard archive.object(archive.root) != nil else { return nil }
            return try text.expression(archive.root)
        } catch {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "an archived expression cannot be read (\(error))")
        }
    }

    /// The model Xcode embeds in a mapping model (`sourcemodeldata`, `destinationmodeldata`: an archive of
    /// Xcode's `XDPM*` modelling classes, as an Xcode 3 `elements` file).
    /// - Throws: 259 naming the file for an archive that is not such a model.
    public static func embeddedModel(_ data: Data, file: URL) throws -> NSManagedObjectModel {
        let draft = try XcodeLegacyModelReader.read(data, file: file)
        let model = NSManagedObjectModel()
        try draft.link(into: model)
        return model
    }

    // MARK: Parts

    private static func openArchive(_ data: Data, file: URL, what: String) throws -> KeyedArchive {
        do { return try KeyedArchive(data: data) } catch {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "the \(what) is not a keyed archive (\(error))")
        }
    }

    private static func entityMapping(_ value: Any, archive: KeyedArchive, file: URL) throws -> MappingModelFile.EntityMapping {
        guard let object = archive.object(value), object.className == "NSEntityMapping" else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "an entry of NSEntityMappings is not an NSEntityMapping")
        }
        let fields = object.fields
        let name = archive.string(fields["NSMappingName"])
        func fail(_ reason: String) -> NSError {
            CoreDataError.invalidModelFile(.init(file: file, entity: name), reason: "the entity mapping \(name ?? "without a name") \(reason)")
        }
        let text = ArchivedPredicateText(archive: archive)
        let sourceExpression: String?
        do {
            sourceExpression = archive.resolve(fields["NSSourceExpression"]) == nil ? nil : try text.expression(fields["NSSourceExpression"])
        } catch { throw fail("has a source expression that cannot be read (\(error))") }
        let userInfo: [AnyHashable: Any]?
        do { userInfo = try archive.userInfoDictionary(fields["NSUserInfo"]) } catch { throw fail("has a damaged userInfo (\(error))") }
        guard let type = archive.integer(fields["NSMappingType"]), (0...5).contains(type) else {
            throw fail("has no mapping type between 0 and 5")
        }
        return MappingModelFile.EntityMapping(
            name: name, mappingType: UInt(type),
            sourceEntityName: archive.string(fields["NSSourceEntityName"]),
            sourceEntityVersionHash: archive.resolve(fields["NSSourceEntityVersionHash"]) as? Data,
            destinationEntityName: archive.string(fields["NSDestinationEntityName"]),
            destinationEntityVersionHash: archive.resolve(fields["NSDestinationEntityVersionHash"]) as? Data,
            sourceExpressionFormat: sourceExpression,
            entityMigrationPolicyClassName: archive.string(fields["NSEntityMigrationPolicyClassName"]),
            userInfo: userInfo,
            attributeMappings: try propertyMappings(fields["NSAttributeMappings"], archive: archive, fail: fail),
            relationshipMappings: try propertyMappings(fields["NSRelationshipMappings"], archive: archive, fail: fail))
    }

    private static func propertyMappings(_ value: Any?, archive: KeyedArchive, fail: (String) -> NSError) throws -> [MappingModelFile.PropertyMapping] {
        guard archive.resolve(value) != nil else { return [] }
        guard let items = archive.elements(value) else { throw fail("has property mappings that are not an array") }
        let text = ArchivedPredicateText(archive: archive)
        return try items.map { item in
            guard let object = archive.object(item), object.className == "NSPropertyMapping" else {
                throw fail("has a property mapping that is not an NSPropertyMapping")
            }
            let name = archive.string(object.fields["NSDestinationPropertyName"])
            let expression: String?
            do {
                expression = archive.resolve(object.fields["NSValueExpression"]) == nil ? nil : try text.expression(object.fields["NSValueExpression"])
            } catch { throw fail("has a value expression for \(name ?? "a property") that cannot be read (\(error))") }
            let userInfo: [AnyHashable: Any]?
            do { userInfo = try archive.userInfoDictionary(object.fields["NSUserInfo"]) } catch {
                throw fail("has a damaged userInfo for \(name ?? "a property") (\(error))")
            }
            return MappingModelFile.PropertyMapping(name: name, valueExpressionFormat: expression, userInfo: userInfo)
        }
    }
}

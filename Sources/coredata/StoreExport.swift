import CoreData
import Foundation

/// The JSON document `coredata export` writes and `coredata import` reads: a whole store, lossless, in a
/// text that depends only on the objects, so export → import (into a store of any type) → export gives the
/// same bytes.
///
/// ```
/// {
///   "format": "coredata-export",
///   "version": 1,
///   "entityVersionHashes": {"Author": "<Base64>", "Book": "<Base64>"},
///   "metadata": {"appVersion": "2.1"},
///   "objects": [
///     {"entity": "Author", "ref": "Author/1", "values": {"name": "Le Guin", "books": ["Book/1", "Book/2"]}},
///     {"entity": "Book", "ref": "Book/1", "values": {"title": "Dune", "pages": 412, "author": "Author/1"}}
///   ]
/// }
/// ```
///
/// - `entityVersionHashes`: the model's entity version hashes (Base64), as a store's metadata records them;
///   `import` checks its model against them.
/// - `metadata`: the store's metadata set by its user (keys starting `NSStore`, `NSPersistence` and `_NS`,
///   which the store writes itself, are left out), as property list trees (`ExportValue`).
/// - `objects`: entities by name, each entity's own objects (not its subentities') in the order the store
///   numbered them, one per line. `ref` is `<Entity>/<n>`: the object's place among its entity's objects,
///   from 1, which is what relationships refer to (a store's object IDs change when objects move to another
///   store). `values` has every stored attribute (not transient, not derived) and relationship of the
///   entity, inherited ones too, sorted by name; nil is `null`. Attribute values follow
///   `ExportValue`; a to-one is a ref or `null`; a to-many is an array of refs: in order for an ordered
///   relationship, else sorted by entity and number.
enum StoreExport {
    static let formatName = "coredata-export"
    static let formatVersion = 1

    /// The export of every object `context`'s coordinator holds, as the document's text.
    /// - Throws: the errors of fetching; 134091 for a value the format does not hold (`ExportValue`); 134000
    ///   when a relationship names an object the store does not hold.
    static func document(of context: NSManagedObjectContext, metadata: [String: Any]) throws -> String {
        let model = context.persistentStoreCoordinator?.managedObjectModel ?? NSManagedObjectModel()
        let entities = model.entities.filter { $0.name != nil }.sorted { ($0.name ?? "") < ($1.name ?? "") }
        return try context.performAndWait {
            let objects = try entities.map { try ownObjects(of: $0, in: context) }
            var refs: [NSManagedObjectID: String] = [:]
            for (entity, list) in zip(entities, objects) {
                for (index, object) in list.enumerated() { refs[object.objectID] = "\(entity.name ?? "")/\(index + 1)" }
            }
            var lines: [String] = []
            for list in objects {
                for object in list { lines.append(try objectLine(object, refs: refs).json) }
            }
            return header(model: model, metadata: metadata)
                + (lines.isEmpty ? "  \"objects\": []\n" : "  \"objects\": [\n    " + lines.joined(separator: ",\n    ") + "\n  ]\n")
                + "}\n"
        }
    }

    /// The lines before the objects.
    private static func header(model: NSManagedObjectModel, metadata: [String: Any]) -> String {
        let hashes = model.entityVersionHashesByName.sorted { $0.key < $1.key }.map { ($0.key, FieldValue.string($0.value.base64EncodedString())) }
        let userMetadata = metadata.filter { !isStoreOwnMetadataKey($0.key) }.sorted { $0.key < $1.key }
            .compactMap { key, value in ExportValue.propertyListTree(value).map { (key, $0) } }
        return "{\n"
            + "  \"format\": \(FieldValue.string(formatName).json),\n"
            + "  \"version\": \(formatVersion),\n"
            + "  \"entityVersionHashes\": \(FieldValue.object(hashes).json),\n"
            + "  \"metadata\": \(FieldValue.object(userMetadata).json),\n"
    }

    /// Whether the store writes the metadata key itself (type, UUID, hashes, framework version, …).
    static func isStoreOwnMetadataKey(_ key: String) -> Bool {
        key.hasPrefix("NSStore") || key.hasPrefix("NSPersistence") || key.hasPrefix("_NS")
    }

    /// The entity's own objects (no subentities'), in the order the store numbered them.
    private static func ownObjects(of entity: NSEntityDescription, in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        guard let name = entity.name, !entity.isAbstract else { return [] }
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.includesSubentities = false
        request.returnsObjectsAsFaults = false
        return try context.fetch(request).sorted { QueryField.storeOrder($0.objectID, $1.objectID) }
    }

    /// The properties an object's `values` hold, sorted by name (the order a model gives its properties
    /// depends on where it was read from: a `.xcdatamodel` keeps the file's, a compiled one sorts them).
    static func exportedProperties(of entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.layout.allProperties.filter { property in
            guard !property.isTransient else { return false }
            if property is NSDerivedAttributeDescription { return false }
            return property is NSAttributeDescription || property is NSRelationshipDescription
        }.sorted { $0.name < $1.name }
    }

    /// One object's line.
    private static func objectLine(_ object: NSManagedObject, refs: [NSManagedObjectID: String]) throws -> FieldValue {
        let entityName = object.entity.name ?? ""
        let ref = refs[object.objectID] ?? ""
        var values: [(String, FieldValue)] = []
        for property in exportedProperties(of: object.entity) {
            switch property {
            case let attribute as NSAttributeDescription:
                values.append((attribute.name, try ExportValue.encode(object.value(forKey: attribute.name), attribute: attribute, owner: ref)))
            case let relationship as NSRelationshipDescription:
                values.append((relationship.name, try relationshipValue(object, relationship, refs: refs, owner: ref)))
            default:
                break
            }
        }
        return .object([("entity", .string(entityName)), ("ref", .string(ref)), ("values", .object(values))])
    }

    private static func relationshipValue(_ object: NSManagedObject, _ relationship: NSRelationshipDescription,
                                          refs: [NSManagedObjectID: String], owner: String) throws -> FieldValue {
        let ids = object.objectIDs(forRelationshipNamed: relationship.name)
        let targets = try ids.map { id in
            guard let ref = refs[id] else {
                throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                         "\(owner).\(relationship.name) refers to \(id.uriRepresentation().absoluteString), which the store does not hold.")
            }
            return ref
        }
        if !relationship.isToMany { return targets.first.map { .string($0) } ?? .null }
        let ordered = relationship.isOrdered ? targets : targets.sorted(by: refPrecedes)
        return .array(ordered.map { .string($0) })
    }

    /// Refs by entity name, then by number (`Book/2` before `Book/10`).
    static func refPrecedes(_ a: String, _ b: String) -> Bool {
        let (entityA, numberA) = split(ref: a), (entityB, numberB) = split(ref: b)
        return entityA != entityB ? entityA < entityB : numberA < numberB
    }

    /// A ref's entity name and number (0 when it has none).
    static func split(ref: String) -> (String, Int) {
        guard let slash = ref.lastIndex(of: "/") else { return (ref, 0) }
        return (String(ref[..<slash]), Int(ref[ref.index(after: slash)...]) ?? 0)
    }
}

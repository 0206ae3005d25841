import CoreData
import Foundation

/// Reads a `StoreExport` document into a new store: every object inserted with its attributes, then every
/// relationship set, permanent IDs obtained in the document's order (so each entity's objects are numbered
/// as listed, and an export of the new store lists them in the same order), and one save, which validates
/// every object with the model's rules.
///
/// Guarantees: a document with a mistake is refused before anything is written, with 259
/// (`NSFileReadCorruptFileError`) naming the line and column, or the object (`ref`) and key, and what is
/// wrong; a model whose entity version hashes differ from the document's is refused with 134100 naming the
/// entities.
struct StoreImport {
    /// The parsed document's parts.
    let entityVersionHashes: [String: Data]
    let metadata: [String: Any]
    let objects: [FieldValue]
    /// The file's path, for messages.
    let path: String

    /// Parses and checks the document's frame (format, version, hashes, metadata, the objects' array).
    /// - Throws: 259 for text that is not JSON or not a `coredata-export` document of a version this tool reads.
    init(data: Data, path: String) throws {
        self.path = path
        let root: FieldValue
        do {
            root = try FieldValue.parseJSON(data)
        } catch let syntax as JSONSyntaxError {
            throw Self.corrupt("\(path) is not JSON: \(syntax.description)", path: path)
        }
        guard let members = root.members else { throw Self.corrupt("\(path) is not a coredata export: its JSON is not an object", path: path) }
        guard members["format"]?.json == FieldValue.string(StoreExport.formatName).json else {
            throw Self.corrupt("\(path) is not a coredata export (its \"format\" is not \"\(StoreExport.formatName)\")", path: path)
        }
        guard case .number(let version)? = members["version"], version == "\(StoreExport.formatVersion)" else {
            throw Self.corrupt("\(path) is a coredata export of version \(members["version"]?.json ?? "none"); this tool reads version \(StoreExport.formatVersion)", path: path)
        }
        var hashes: [String: Data] = [:]
        for (name, value) in members["entityVersionHashes"]?.members ?? [:] {
            guard case .string(let text) = value, let hash = Data(base64Encoded: text) else {
                throw Self.corrupt("\(path): the version hash of entity \(name) is not Base64", path: path)
            }
            hashes[name] = hash
        }
        entityVersionHashes = hashes
        var metadata: [String: Any] = [:]
        for (key, value) in members["metadata"]?.members ?? [:] {
            do { metadata[key] = try ExportValue.propertyList(value) } catch {
                throw Self.corrupt("\(path): metadata \"\(key)\": \(error.text)", path: path)
            }
        }
        self.metadata = metadata
        guard case .array(let objects)? = members["objects"] else { throw Self.corrupt("\(path) has no \"objects\" array", path: path) }
        self.objects = objects
    }

    /// 259 with `message`.
    static func corrupt(_ message: String, path: String) -> NSError {
        CoreDataError.make(NSFileReadCorruptFileError, message, userInfo: [NSFilePathErrorKey: path])
    }

    /// The model's entities whose version hashes differ from the document's (or that one of them lacks).
    func mismatchedEntities(of model: NSManagedObjectModel) -> [String] {
        let modelHashes = model.entityVersionHashesByName
        return Set(modelHashes.keys).union(entityVersionHashes.keys).filter { modelHashes[$0] != entityVersionHashes[$0] }.sorted()
    }

    /// Inserts every object into `context` (whose coordinator has the new store), sets metadata on `store`,
    /// and saves. Returns the number of objects per entity name.
    /// - Throws: 259 for an object the model cannot take (unknown entity or key, a wrong value, a ref that
    ///   repeats or names nothing); the save's errors (validation: 1550–1680).
    func insert(into context: NSManagedObjectContext, store: NSPersistentStore) throws -> [String: Int] {
        try context.performAndWait {
            let model = context.persistentStoreCoordinator?.managedObjectModel ?? NSManagedObjectModel()
            var inserted: [(object: NSManagedObject, values: [String: FieldValue], ref: String)] = []
            var byRef: [String: NSManagedObject] = [:]
            var counts: [String: Int] = [:]
            for (index, entry) in objects.enumerated() {
                let (object, values, ref) = try insertObject(entry, number: index + 1, model: model, context: context)
                guard byRef[ref] == nil else { throw Self.corrupt("\(path): object \(index + 1) repeats the ref \(ref)", path: path) }
                byRef[ref] = object
                inserted.append((object, values, ref))
                counts[object.entity.name ?? "", default: 0] += 1
            }
            for item in inserted { try setRelationships(of: item.object, from: item.values, ref: item.ref, byRef: byRef) }
            try context.obtainPermanentIDs(for: inserted.map(\.object))
            if !metadata.isEmpty, let coordinator = context.persistentStoreCoordinator {
                coordinator.setMetadata(coordinator.metadata(for: store).merging(metadata) { _, imported in imported }, for: store)
            }
            try context.save()
            return counts
        }
    }

    /// Inserts one object with its attributes; returns it, its `values` and its ref.
    private func insertObject(_ entry: FieldValue, number: Int, model: NSManagedObjectModel,
                              context: NSManagedObjectContext) throws -> (NSManagedObject, [String: FieldValue], String) {
        let place = "\(path): object \(number)"
        guard let members = entry.members, case .string(let entityName)? = members["entity"], case .string(let ref)? = members["ref"] else {
            throw Self.corrupt("\(place) needs \"entity\" and \"ref\" strings", path: path)
        }
        guard let entity = model.entitiesByName[entityName] else { throw Self.corrupt("\(place) (\(ref)) is of entity \(entityName), which the model lacks", path: path) }
        guard !entity.isAbstract else { throw Self.corrupt("\(place) (\(ref)) is of the abstract entity \(entityName)", path: path) }
        guard StoreExport.split(ref: ref).0 == entityName, StoreExport.split(ref: ref).1 > 0 else {
            throw Self.corrupt("\(place): ref \(ref) is not \(entityName)/<number>", path: path)
        }
        guard let values = members["values"]?.members else { throw Self.corrupt("\(place) (\(ref)) has no \"values\" object", path: path) }
        let properties = Dictionary(StoreExport.exportedProperties(of: entity).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if let unknown = values.keys.sorted().first(where: { properties[$0] == nil }) {
            throw Self.corrupt("\(place) (\(ref)) has \"\(unknown)\", which is not a stored property of entity \(entityName)", path: path)
        }
        let object = NSManagedObject(entity: entity, insertInto: context)
        for (key, json) in values {
            guard let attribute = properties[key] as? NSAttributeDescription else { continue }
            do {
                object.setValue(try ExportValue.decode(json, attribute: attribute), forKey: key)
            } catch {
                throw Self.corrupt("\(ref).\(key) in \(path): \(error.text)", path: path)
            }
        }
        return (object, values, ref)
    }

    /// Sets the relationships `values` names on `object`.
    private func setRelationships(of object: NSManagedObject, from values: [String: FieldValue], ref: String,
                                  byRef: [String: NSManagedObject]) throws {
        for case let relationship as NSRelationshipDescription in StoreExport.exportedProperties(of: object.entity) {
            guard let json = values[relationship.name] else { continue }
            let name = relationship.name
            func target(_ item: FieldValue) throws -> NSManagedObject {
                guard case .string(let targetRef) = item, let target = byRef[targetRef] else {
                    throw Self.corrupt("\(ref).\(name) in \(path): \(item.json) is no object's ref", path: path)
                }
                guard let destination = relationship.destinationEntity, target.entity.isKindOf(entity: destination) else {
                    throw Self.corrupt("\(ref).\(name) in \(path): \(item.json) is not a \(relationship.destinationEntity?.name ?? "destination")", path: path)
                }
                return target
            }
            switch (relationship.isToMany, json) {
            case (false, .null): object.setValue(nil, forKey: name)
            case (false, _): object.setValue(try target(json), forKey: name)
            case (true, .array(let items)):
                let targets = try items.map(target)
                object.setValue(relationship.isOrdered ? NSOrderedSet(array: targets) as Any : NSSet(array: targets) as Any, forKey: name)
            default:
                throw Self.corrupt("\(ref).\(name) in \(path): a to-many relationship needs an array of refs, not \(json.json)", path: path)
            }
        }
    }
}

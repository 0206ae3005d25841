import Testing
import CoreData

/// Helpers shared by the store test targets: temporary directories, opening stores, a model with every
/// attribute type and its contents, error codes, and (in Fuzzing.swift) deterministic file damage.

/// A fresh directory for one test, removed when the value is released.
public final class TemporaryDirectory {
    public let url: URL
    /// `prefix` starts the directory's name, so a left-over directory says which tests made it.
    public init(prefix: String = "store-tests") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// A coordinator with one store of `type` at `url`, and a private-queue context on it.
public func openStore(_ type: NSPersistentStore.StoreType, at url: URL, model: NSManagedObjectModel,
                      options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: type, at: url, options: options)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

/// The primary key in an object ID's URI (".../Entity/p42" → 42).
public func primaryKey(of object: NSManagedObject) -> Int64 {
    Int64(object.objectID.uriRepresentation().lastPathComponent.dropFirst()) ?? -1
}

/// Every object of the model's concrete entities, as "Entity/pN" → property name → a comparable description.
/// To-ones show the destination's key, to-manys the sorted keys.
public func dump(_ context: NSManagedObjectContext, model: NSManagedObjectModel) throws -> [String: [String: String]] {
    try context.performAndWait {
        var result: [String: [String: String]] = [:]
        for entity in model.entities where !entity.isAbstract {
            guard let name = entity.name else { continue }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var values: [String: String] = [:]
                for property in entity.properties(includingInherited: true) {
                    let value = object.value(forKey: property.name)
                    switch value {
                    case nil: continue
                    case let target as NSManagedObject: values[property.name] = "->\(target.entity.name ?? "")/p\(primaryKey(of: target))"
                    case let targets as Set<NSManagedObject>: values[property.name] = "->" + targets.map { "p\(primaryKey(of: $0))" }.sorted().joined(separator: ",")
                    case let data as Data: values[property.name] = "data:" + data.base64EncodedString()
                    case let some?: values[property.name] = "\(type(of: some)):\(some)"
                    }
                }
                result["\(name)/p\(primaryKey(of: object))"] = values
            }
        }
        return result
    }
}

public extension NSEntityDescription {
    /// The entity's properties with its ancestors' first.
    func properties(includingInherited: Bool) -> [NSPropertyDescription] { layout.allProperties }
}

/// The Cocoa error code of a thrown error.
public func errorCode(_ body: () throws -> Void) -> Int? {
    do { try body() } catch { return (error as NSError).code }
    return nil
}

/// A model with every attribute type the atomic stores write, an entity hierarchy and relationships:
/// Item (every type) ←→ Tag (many-to-many), Item → Owner (to-one), Animal ▸ Dog (Dog adds `breed`).
public func everyTypeModel() -> NSManagedObjectModel {
    let item = NSEntityDescription(name: "Item"), tag = NSEntityDescription(name: "Tag"), owner = NSEntityDescription(name: "Owner")
    let animal = NSEntityDescription(name: "Animal"), dog = NSEntityDescription(name: "Dog")
    animal.subentities = [dog]
    let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
    let items = NSRelationshipDescription(name: "items", destination: item, toMany: true)
    inverse(tags, items)
    let itemOwner = NSRelationshipDescription(name: "owner", destination: owner, toMany: false)
    let ownerItems = NSRelationshipDescription(name: "ownedItems", destination: item, toMany: true)
    inverse(itemOwner, ownerItems)
    item.properties = [
        NSAttributeDescription(name: "title", type: .string),
        NSAttributeDescription(name: "count16", type: .integer16),
        NSAttributeDescription(name: "count32", type: .integer32),
        NSAttributeDescription(name: "count64", type: .integer64),
        NSAttributeDescription(name: "price", type: .decimal),
        NSAttributeDescription(name: "ratio", type: .double),
        NSAttributeDescription(name: "weight", type: .float),
        NSAttributeDescription(name: "isDone", type: .boolean),
        NSAttributeDescription(name: "createdAt", type: .date),
        NSAttributeDescription(name: "payload", type: .binaryData),
        NSAttributeDescription(name: "identifier", type: .uuid),
        NSAttributeDescription(name: "link", type: .uri),
        tags, itemOwner,
    ]
    tag.properties = [NSAttributeDescription(name: "name", type: .string), items]
    owner.properties = [NSAttributeDescription(name: "name", type: .string), ownerItems]
    animal.properties = [NSAttributeDescription(name: "name", type: .string)]
    dog.properties = [NSAttributeDescription(name: "breed", type: .string)]
    return NSManagedObjectModel(entities: [item, tag, owner, animal, dog])
}

/// Fills a store of `everyTypeModel()` with `count` items (and a few tags, owners and animals), deterministically.
public func populate(_ context: NSManagedObjectContext, items count: Int, titlePrefix: String = "item") throws {
    try context.performAndWait { () throws -> Void in
        let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
        let tagEntity = try #require(model.entitiesByName["Tag"]), ownerEntity = try #require(model.entitiesByName["Owner"])
        let itemEntity = try #require(model.entitiesByName["Item"])
        let tags = (0..<3).map { index -> NSManagedObject in
            let tag = NSManagedObject(entity: tagEntity, insertInto: context)
            tag.setValue("tag \(index)", forKey: "name")
            return tag
        }
        let owner = NSManagedObject(entity: ownerEntity, insertInto: context)
        owner.setValue("owner", forKey: "name")
        for index in 0..<count {
            let item = NSManagedObject(entity: itemEntity, insertInto: context)
            item.setValue("\(titlePrefix) \(index)", forKey: "title")
            item.setValue(Int16(truncatingIfNeeded: index), forKey: "count16")
            item.setValue(Int32(index) * 1000, forKey: "count32")
            item.setValue(Int64(index) * 1_000_000_007, forKey: "count64")
            item.setValue(Decimal(string: "\(index).25"), forKey: "price")
            item.setValue(Double(index) / 7, forKey: "ratio")
            item.setValue(Float(index) / 3, forKey: "weight")
            item.setValue(index % 2 == 0, forKey: "isDone")
            item.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 0.001), forKey: "createdAt")
            item.setValue(Data((0..<(index % 40)).map { UInt8(truncatingIfNeeded: $0 * 7 + index) }), forKey: "payload")
            item.setValue(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index)), forKey: "identifier")
            item.setValue(URL(string: "https://example.com/items/\(index)?q=a&b=c"), forKey: "link")
            if index % 3 == 0 { item.setValue(owner, forKey: "owner") }
            item.setValue(Set([tags[index % 3]]), forKey: "tags")
        }
        try context.save()
    }
}

/// Opens a store of `everyTypeModel()` at `url`, inserts one Tag and saves: the save's Cocoa error code, if it fails.
public func saveCodeAfterInsertingATag(_ type: NSPersistentStore.StoreType, at url: URL) throws -> Int? {
    let context = try openStore(type, at: url, model: everyTypeModel())
    return context.performAndWait {
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        tag.setValue("one too many", forKey: "name")
        return errorCode { try context.save() }
    }
}

// MARK: Model building

/// An attribute, optionally indexed.
public func attribute(_ name: String, _ type: NSAttributeDescription.AttributeType, indexed: Bool = false) -> NSAttributeDescription {
    let attribute = NSAttributeDescription(name: name, type: type)
    attribute.isIndexed = indexed
    return attribute
}

/// An entity with its properties.
public func entity(_ name: String, _ properties: [NSPropertyDescription], abstract: Bool = false) -> NSEntityDescription {
    let entity = NSEntityDescription(name: name)
    entity.properties = properties
    entity.isAbstract = abstract
    return entity
}

/// Connects two relationships as each other's inverse.
public func inverse(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
    a.inverseRelationship = b
    b.inverseRelationship = a
}

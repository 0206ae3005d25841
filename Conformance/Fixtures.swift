import CoreData

/// Makes the objects cases work with, through Apple's key-value API (no subclasses).
enum Fixtures {
    static func owner(_ context: NSManagedObjectContext, _ name: String) -> NSManagedObject {
        let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
        owner.setValue(name, forKey: "name")
        return owner
    }

    static func item(_ context: NSManagedObjectContext, _ name: String?, rank: Int64, special: Bool = false) -> NSManagedObject {
        let item = NSEntityDescription.insertNewObject(forEntityName: special ? "SpecialItem" : "Item", into: context)
        item.setValue(name, forKey: "name")
        item.setValue(rank, forKey: "rank")
        return item
    }

    static func tag(_ context: NSManagedObjectContext, _ label: String) -> NSManagedObject {
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        tag.setValue(label, forKey: "label")
        return tag
    }

    static func chapter(_ context: NSManagedObjectContext, _ title: String) -> NSManagedObject {
        let chapter = NSEntityDescription.insertNewObject(forEntityName: "Chapter", into: context)
        chapter.setValue(title, forKey: "title")
        return chapter
    }

    static func node(_ context: NSManagedObjectContext, _ name: String) -> NSManagedObject {
        let node = NSEntityDescription.insertNewObject(forEntityName: "Node", into: context)
        node.setValue(name, forKey: "name")
        return node
    }

    /// The primary key of a saved object, read from its URI (".../Entity/p42" → 42); nil for a temporary ID.
    static func primaryKey(_ object: NSManagedObject) -> Int64? {
        let last = object.objectID.uriRepresentation().lastPathComponent
        guard !object.objectID.isTemporaryID, last.first == "p" else { return nil }
        return Int64(last.dropFirst())
    }

    /// All objects of an entity (subentities included), by a string attribute.
    static func byName(_ context: NSManagedObjectContext, _ entity: String, key: String = "name") throws -> [String: NSManagedObject] {
        var result: [String: NSManagedObject] = [:]
        for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
            if let name = object.value(forKey: key) as? String { result[name] = object }
        }
        return result
    }

    /// The string values of `key` of a collection of objects, sorted.
    static func names(_ objects: Any?, key: String = "name") -> [String] {
        let list: [NSManagedObject]
        switch objects {
        case let set as Set<NSManagedObject>: list = Array(set)
        case let ordered as NSOrderedSet: list = ordered.array.compactMap { $0 as? NSManagedObject }
        case let array as [NSManagedObject]: list = array
        default: list = []
        }
        return list.compactMap { $0.value(forKey: key) as? String }.sorted()
    }

    /// The string values of `key` of an ordered relationship, in order.
    static func orderedNames(_ objects: Any?, key: String) -> [String] {
        (objects as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: key) as? String } ?? []
    }
}

/// A small deterministic random number generator (SplitMix64), so data is the same on every run.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import Foundation
import Testing
import CoreData

/// Dictionary-result fetches give, in every store, plain `NSDictionary`s as Apple's do: each saved value of every
/// attribute type under its property's name, in Apple's public form (numbers as `NSNumber`, decimals as
/// `NSDecimalNumber`, a to-one as its object ID, a transformable value unarchived), nil values left out; the
/// dictionaries bridge to `[String: Any]`, compare equal to a dictionary of the same values either way round,
/// and print their values.
@Suite struct DictionaryResultTests {
    private static func model() -> NSManagedObjectModel {
        let owner = NSEntityDescription(name: "Owner")
        owner.properties = [NSAttributeDescription(name: "name", type: .string)]
        let item = NSEntityDescription(name: "Item")
        item.properties = [
            NSAttributeDescription(name: "i16", type: .integer16), NSAttributeDescription(name: "i32", type: .integer32),
            NSAttributeDescription(name: "i64", type: .integer64), NSAttributeDescription(name: "double", type: .double),
            NSAttributeDescription(name: "float", type: .float), NSAttributeDescription(name: "flag", type: .boolean),
            NSAttributeDescription(name: "decimal", type: .decimal), NSAttributeDescription(name: "name", type: .string),
            NSAttributeDescription(name: "date", type: .date), NSAttributeDescription(name: "data", type: .binaryData),
            NSAttributeDescription(name: "uuid", type: .uuid), NSAttributeDescription(name: "uri", type: .uri),
            NSAttributeDescription(name: "tags", type: .transformable),
            NSRelationshipDescription(name: "owner", destination: owner, toMany: false),
        ]
        return NSManagedObjectModel(entities: [owner, item])
    }

    private static let storeTypes: [NSPersistentStore.StoreType] = [.sqlite, .binary, .xml, .inMemory]

    private static func context(_ model: NSManagedObjectModel, _ type: NSPersistentStore.StoreType, at url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The values of the full item, as Apple's dictionary results give them (the owner's ID is added once known).
    private static let fullValues: [String: Any] = [
        "i16": NSNumber(value: Int16(-16)), "i32": NSNumber(value: Int32(32)), "i64": NSNumber(value: Int64(1) << 40),
        "double": NSNumber(value: 2.5), "float": NSNumber(value: Float(0.25)), "flag": NSNumber(value: true),
        "decimal": NSDecimalNumber(string: "12.345"), "name": "full", "date": Date(timeIntervalSinceReferenceDate: 1000),
        "data": Data([1, 2, 3]), "uuid": UUID(uuidString: "8F1C0E0B-9E4F-4B0B-8F33-4A1A2B6C7D8E") as Any,
        "uri": URL(string: "https://example.com/a") as Any, "tags": ["a", "b"],
    ]

    @Test(arguments: storeTypes)
    func everyAttributeTypeAfterAReopen(_ type: NSPersistentStore.StoreType) throws {
        let model = Self.model()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dictionary-results-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("store")
        let writer = try Self.context(model, type, at: url)
        try writer.performAndWait {
            let owner = NSManagedObject(entity: model.entitiesByName["Owner"]!, insertInto: writer)
            owner.setValue("Ann", forKey: "name")
            let full = NSManagedObject(entity: model.entitiesByName["Item"]!, insertInto: writer)
            for (key, value) in Self.fullValues { full.setValue(value, forKey: key) }
            full.setValue(owner, forKey: "owner")
            let sparse = NSManagedObject(entity: model.entitiesByName["Item"]!, insertInto: writer)
            sparse.setValue("sparse", forKey: "name")
            try writer.save()
        }
        // The in-memory store keeps nothing once its coordinator goes: it is read through the same one.
        let reader = type == .inMemory ? writer : try Self.context(model, type, at: url)
        try reader.performAndWait {
            let ownerRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Owner")
            ownerRequest.resultType = .managedObjectIDResultType
            let ownerID = try #require(try reader.fetch(ownerRequest).first)
            let request = NSFetchRequest<NSDictionary>(entityName: "Item")
            request.resultType = .dictionaryResultType
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let results = try reader.fetch(request)
            try #require(results.count == 2, "\(type.rawValue)")
            let (full, sparse) = (results[0], results[1])

            var expected = Self.fullValues
            expected["owner"] = ownerID
            let expectedFull = NSDictionary(dictionary: expected)
            #expect(full == expectedFull && expectedFull == full, "\(type.rawValue): \(full) against \(expectedFull)")
            #expect(Swift.type(of: full) == NSDictionary.self, "a plain NSDictionary, not a subclass")
            #expect(Set(full.allKeys.compactMap { $0 as? String }) == Set(expected.keys), "\(type.rawValue)")
            #expect(full["i64"] as? Int64 == 1 << 40 && full["i64"] as? Int == 1 << 40 && full["i32"] as? NSNumber == 32)
            #expect(full["decimal"] as? NSDecimalNumber == NSDecimalNumber(string: "12.345"))
            #expect(full["flag"] as? Bool == true && full["name"] as? String == "full" && full["tags"] as? [String] == ["a", "b"])
            #expect(full["owner"] as? NSManagedObjectID == ownerID && full["date"] as? Date == Date(timeIntervalSinceReferenceDate: 1000))

            let bridged = try #require(full as? [String: Any], "bridges to a Swift dictionary")
            #expect(bridged.count == expected.count && bridged["uuid"] as? UUID == expected["uuid"] as? UUID)
            #expect(bridged["data"] as? Data == Data([1, 2, 3]) && bridged["uri"] as? URL == URL(string: "https://example.com/a"))
            #expect(full.description.contains("name = full") && full.description.contains("i32 = 32"), "\(full.description)")

            // Nil values are left out: no key, no NSNull.
            #expect(Set(sparse.allKeys.compactMap { $0 as? String }) == ["name"] && sparse.count == 1, "\(type.rawValue): \(sparse)")
            #expect(sparse["i64"] == nil && sparse == NSDictionary(dictionary: ["name": "sparse"]))
            #expect((sparse as? [String: Any])?.keys.sorted() == ["name"])
        }
    }

    /// Rows of a subentity, whose layout adds its own properties, give the inherited properties' values under
    /// the same names; a fetch of the subentity alone gives its own properties too.
    @Test(arguments: storeTypes)
    func subentityRowsGiveTheirInheritedValues(_ type: NSPersistentStore.StoreType) throws {
        let animal = NSEntityDescription(name: "Animal")
        animal.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "legs", type: .integer16)]
        let bird = NSEntityDescription(name: "Bird")
        bird.properties = [NSAttributeDescription(name: "wingspan", type: .double)]
        animal.subentities = [bird]
        let model = NSManagedObjectModel(entities: [animal, bird])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dictionary-results-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let context = try Self.context(model, type, at: folder.appendingPathComponent("store"))
        try context.performAndWait {
            let cat = NSManagedObject(entity: animal, insertInto: context)
            cat.setValue("cat", forKey: "name")
            cat.setValue(4, forKey: "legs")
            let owl = NSManagedObject(entity: bird, insertInto: context)
            owl.setValue("owl", forKey: "name")
            owl.setValue(2, forKey: "legs")
            owl.setValue(1.5, forKey: "wingspan")
            try context.save()
            let animals = NSFetchRequest<NSDictionary>(entityName: "Animal")
            animals.resultType = .dictionaryResultType
            animals.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            #expect(try context.fetch(animals) == [NSDictionary(dictionary: ["name": "cat", "legs": 4]), NSDictionary(dictionary: ["name": "owl", "legs": 2])],
                    "\(type.rawValue)")
            let birds = NSFetchRequest<NSDictionary>(entityName: "Bird")
            birds.resultType = .dictionaryResultType
            #expect(try context.fetch(birds) == [NSDictionary(dictionary: ["name": "owl", "legs": 2, "wingspan": 1.5])], "\(type.rawValue)")
        }
    }

    @Test(arguments: storeTypes)
    func propertiesToFetchAndDistinctResults(_ type: NSPersistentStore.StoreType) throws {
        let model = Self.model()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dictionary-results-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let context = try Self.context(model, type, at: folder.appendingPathComponent("store"))
        try context.performAndWait {
            for (name, number) in [("a", 1), ("b", 1), ("c", 2), ("d", nil)] as [(String, Int64?)] {
                let item = NSManagedObject(entity: model.entitiesByName["Item"]!, insertInto: context)
                item.setValue(name, forKey: "name")
                item.setValue(number, forKey: "i64")
            }
            try context.save()
            let request = NSFetchRequest<NSDictionary>(entityName: "Item")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["i64"]
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let all = try context.fetch(request)
            #expect(all.map { $0["i64"] as? Int64 } == [1, 1, 2, nil], "\(type.rawValue)")
            #expect(all.map(\.count) == [1, 1, 1, 0], "only the properties asked for, nil left out")
            request.returnsDistinctResults = true
            let distinct = try context.fetch(request)
            #expect(Set(distinct.map { $0["i64"] as? Int64 }) == [1, 2, nil] && distinct.count == 3, "\(type.rawValue): \(distinct)")
        }
    }
}

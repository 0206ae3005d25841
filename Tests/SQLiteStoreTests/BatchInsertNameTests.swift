import CoreData
import StoreTestSupport
import Foundation
import Testing

/// A batch insert finds each dictionary's attributes by name whatever order the dictionaries give them in and
/// however many there are, stores values of the attribute's own type as given and converts the rest; checked
/// after a reopen, for every store type that runs batch inserts.
@Suite struct BatchInsertNameTests {
    /// An entity of 24 attributes, more than a small name table holds at first.
    static func wideModel() -> NSManagedObjectModel {
        let numbers = (0..<16).map { attribute("number\($0)", .integer64) }
        let texts = (0..<8).map { attribute("text_\($0)_with_a_name_longer_than_fifteen_bytes", .string) }
        return NSManagedObjectModel(entities: [entity("Wide", numbers + texts)])
    }

    /// Object `i`'s values: every attribute, or (for every third object) every other one.
    static func values(of i: Int) -> [String: Any] {
        var values: [String: Any] = [:]
        for k in 0..<16 where i % 3 != 0 || k % 2 == 0 {
            // Int64 is stored as given; Int and NSNumber are converted.
            switch k % 3 {
            case 0: values["number\(k)"] = Int64(i * 100 + k)
            case 1: values["number\(k)"] = i * 100 + k
            default: values["number\(k)"] = NSNumber(value: i * 100 + k)
            }
        }
        for k in 0..<8 where i % 3 != 0 || k % 2 == 0 {
            values["text_\(k)_with_a_name_longer_than_fifteen_bytes"] = "object \(i) text \(k)"
        }
        return values
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .binary, .xml, .inMemory])
    func everyValueLandsInItsAttribute(_ type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryDirectory(prefix: "batch-insert-names")
        let url = directory.file("store")
        let model = Self.wideModel()
        var objects = (0..<60).map(Self.values(of:))
        // Dictionaries whose keys were added in other orders, and some read back from an NSDictionary.
        objects += (60..<90).map { i in
            Dictionary(uniqueKeysWithValues: Self.values(of: i).sorted { $0.key > $1.key }.map { ($0.key, $0.value) })
        }
        objects += (90..<100).map { i in NSDictionary(dictionary: Self.values(of: i)) as? [String: Any] ?? [:] }
        let context = try openStore(type, at: url, model: model)
        try context.performAndWait {
            let result = try context.execute(NSBatchInsertRequest(entityName: "Wide", objects: objects)) as? NSBatchInsertResult
            #expect((result?.result as? NSNumber)?.boolValue == true)
            if type == .inMemory { try check(context) }
        }
        guard type != .inMemory else { return }
        for store in context.persistentStoreCoordinator!.persistentStores { try context.persistentStoreCoordinator!.remove(store) }
        let reopened = try openStore(type, at: url, model: model)
        try reopened.performAndWait { try check(reopened) }
    }

    /// Every object's values as written, nil where its dictionary had none.
    func check(_ context: NSManagedObjectContext) throws {
        let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Wide"))
        #expect(objects.count == 100)
        var seen = Set<Int>()
        for object in objects {
            let i = Int(try #require(object.value(forKey: "number0") as? Int64) / 100)
            seen.insert(i)
            let complete = i % 3 != 0
            for k in 0..<16 {
                let expected = complete || k % 2 == 0 ? Int64(i * 100 + k) : nil
                #expect(object.value(forKey: "number\(k)") as? Int64 == expected, "object \(i), number\(k)")
            }
            for k in 0..<8 {
                let expected = complete || k % 2 == 0 ? "object \(i) text \(k)" : nil
                #expect(object.value(forKey: "text_\(k)_with_a_name_longer_than_fifteen_bytes") as? String == expected, "object \(i), text \(k)")
            }
        }
        #expect(seen == Set(0..<100))
    }
}

import Testing
import CoreData
import Foundation

/// A fetch from an atomic store sees every save and batch request made since the fetch before it, and gives
/// objects without sort descriptors in the order of their keys (the order they were saved in), for an entity
/// and for an entity with its subentities; a failed save leaves what a fetch gives as it was. (The stores keep
/// each entity's records in key order between changes: every record added or removed must be seen.)
@Suite struct AtomicFetchAfterChangesTests {
    /// `Item` (`number`, unique) with the subentity `Special`.
    private static func model() -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item", properties: [NSAttributeDescription(name: "number", type: .integer64)])
        item.uniquenessConstraints = [["number"]]
        let special = NSEntityDescription(name: "Special", properties: [NSAttributeDescription(name: "note", type: .string)])
        item.subentities = [special]
        let model = NSManagedObjectModel()
        model.entities = [item, special]
        return model
    }

    private static func numbers(_ entityName: String, in context: NSManagedObjectContext, subentities: Bool = true) throws -> [Int64] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        request.includesSubentities = subentities
        return try context.fetch(request).compactMap { $0.value(forKey: "number") as? Int64 }
    }

    /// Inserts and saves one object for each number, in turn, so that keys follow the order of `numbers`.
    private static func save(_ entityName: String, _ numbers: [Int64], in context: NSManagedObjectContext) throws {
        for number in numbers {
            NSEntityDescription.insertNewObject(forEntityName: entityName, into: context).setValue(number, forKey: "number")
            try context.save()
        }
    }

    @Test(arguments: [NSInMemoryStoreType, NSXMLStoreType])
    func fetchesSeeEveryChangeInKeyOrder(storeType: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url: URL? = storeType == NSInMemoryStoreType ? nil : directory.appendingPathComponent("items.xml")
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            try Self.save("Item", [30, 10, 20], in: context)
            #expect(try Self.numbers("Item", in: context) == [30, 10, 20])

            // Saved after the fetch above: later keys, after the earlier objects; the subentity's in key order too.
            try Self.save("Special", [5], in: context)
            try Self.save("Item", [7], in: context)
            try Self.save("Special", [6], in: context)
            #expect(try Self.numbers("Item", in: context) == [30, 10, 20, 5, 7, 6])
            #expect(try Self.numbers("Item", in: context, subentities: false) == [30, 10, 20, 7])
            #expect(try Self.numbers("Special", in: context) == [5, 6])

            // An update keeps an object's place; a deletion removes it.
            let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            all[0].setValue(Int64(31), forKey: "number")
            context.delete(all[1])
            try context.save()
            #expect(try Self.numbers("Item", in: context) == [31, 20, 5, 7, 6])

            // A save that breaks the uniqueness constraint fails and changes nothing a fetch gives.
            for number: Int64 in [40, 20] {
                NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(number, forKey: "number")
            }
            #expect(throws: NSError.self) { try context.save() }
            context.rollback()
            #expect(try Self.numbers("Item", in: context) == [31, 20, 5, 7, 6])

            // A batch delete.
            let small = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
            small.predicate = NSPredicate(format: "number < 7")
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: small))
            context.reset()
            #expect(try Self.numbers("Item", in: context) == [31, 20, 7])

            try Self.save("Item", [1], in: context)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "number < 25")
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "number") as? Int64 } == [20, 7, 1])
        }
        guard let url else { return }

        // The file, opened again, gives the same objects in the same order.
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try reopened.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        second.persistentStoreCoordinator = reopened
        try second.performAndWait {
            #expect(try Self.numbers("Item", in: second) == [31, 20, 7, 1])
            try Self.save("Item", [2], in: second)
            #expect(try Self.numbers("Item", in: second) == [31, 20, 7, 1, 2])
        }
    }
}

import Testing
import CoreData

/// Objects that a fetch's sort descriptors find equal come from an atomic store in the order of their keys
/// (the order they were saved in), as a SQLite store's table scan usually gives them: the same fetch gives the
/// same order every time, whatever order the store keeps its records in memory.
@Suite struct AtomicSortTieTests {
    @Test func objectsTheSortFindsEqualComeInKeyOrder() throws {
        let model = NSManagedObjectModel()
        model.entities = [NSEntityDescription(name: "Item", properties: [
            NSAttributeDescription(name: "group", type: .integer64),
            NSAttributeDescription(name: "number", type: .integer64),
        ])]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for number in 0..<300 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(Int64(number % 3), forKey: "group")
                item.setValue(Int64(number), forKey: "number")
                try context.save()  // one save each: keys follow `number`
            }
            // Records rewritten in the reverse order of their keys, so the store's memory order is not key order.
            for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).reversed() {
                item.setValue(((item.value(forKey: "number") as? Int64) ?? 0) + 1000, forKey: "number")
                try context.save()
                item.setValue(((item.value(forKey: "number") as? Int64) ?? 0) - 1000, forKey: "number")
                try context.save()
            }
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: false)]
            let numbers = try context.fetch(request).compactMap { $0.value(forKey: "number") as? Int64 }
            let expected = [2, 1, 0].flatMap { group in (0..<300).filter { $0 % 3 == group }.map(Int64.init) }
            #expect(numbers == expected)
        }
    }
}

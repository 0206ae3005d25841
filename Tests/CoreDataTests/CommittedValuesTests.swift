import Testing
import CoreData

/// Committed values of objects whose entity has attributes only (their slot array is their row, and saves copy
/// just the changed slots into their committed values).
@Suite struct CommittedValuesTests {
    private func counterModel() -> NSManagedObjectModel {
        let counter = NSEntityDescription(name: "Counter")
        counter.properties = [NSAttributeDescription(name: "label", type: .string),
                              NSAttributeDescription(name: "count", type: .integer64, defaultValue: 0)]
        return NSManagedObjectModel(entities: [counter])
    }

    private func committed(_ object: NSManagedObject) -> [String: String] {
        object.committedValues(forKeys: nil).mapValues { "\($0)" }
    }

    @Test func repeatedSavesKeepCommittedValuesInStep() throws {
        let context = try inMemoryContext(model: counterModel())
        try context.performAndWait {
            let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context)
            counter.setValue("a", forKey: "label")
            try context.save()
            #expect(committed(counter) == ["label": "a", "count": "0"])
            counter.setValue(1, forKey: "count")
            #expect(committed(counter) == ["label": "a", "count": "0"])
            try context.save()
            #expect(committed(counter) == ["label": "a", "count": "1"])
            counter.setValue("b", forKey: "label")
            try context.save()
            #expect(committed(counter) == ["label": "b", "count": "1"])
            counter.setValue(2, forKey: "count")
            counter.setValue("c", forKey: "label")
            context.rollback()
            #expect(counter.value(forKey: "label") as? String == "b")
            #expect(counter.value(forKey: "count") as? Int == 1)
            #expect(committed(counter) == ["label": "b", "count": "1"])
        }
    }

    /// A saved counter labelled "a", its context, and a second context on the same coordinator.
    private func savedCounterAndSecondContext() throws -> (NSManagedObjectContext, NSManagedObject, NSManagedObjectContext) {
        let context = try inMemoryContext(model: counterModel())
        let counter = try context.performAndWait {
            let counter = insert("Counter", ["label": "a"], into: context)
            try context.save()
            return counter
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        return (context, counter, other)
    }

    @Test func fetchedObjectsCommitWhatWasWritten() throws {
        let (_, _, other) = try savedCounterAndSecondContext()
        try other.performAndWait {
            let fetched = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first)
            fetched.setValue(5, forKey: "count")
            try other.save()
            #expect(committed(fetched) == ["label": "a", "count": "5"])
            fetched.setValue(6, forKey: "count")
            try other.save()
            #expect(committed(fetched) == ["label": "a", "count": "6"])
        }
    }

    @Test func mergedConflictsCommitTheStoreValuesUnderTheChanges() throws {
        let (context, counter, other) = try savedCounterAndSecondContext()
        try other.performAndWait {
            let fetched = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first)
            fetched.setValue("from other", forKey: "label")
            try other.save()
        }
        try context.performAndWait {
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            counter.setValue(7, forKey: "count")
            try context.save()
            #expect(counter.value(forKey: "label") as? String == "from other")
            #expect(committed(counter) == ["label": "from other", "count": "7"])
        }
    }
}

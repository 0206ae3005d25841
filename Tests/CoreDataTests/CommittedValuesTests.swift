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

    /// Faults a fetch made hold their row's snapshot, and their committed values are the snapshot's until they are
    /// written: before a fault fires, after it fills from a newer save of its row, after a change and a save, and
    /// after a refresh; checked against the store after a reopen.
    @Test func fetchedFaultsCommitTheirRowsValues() throws {
        let folder = SaveListsTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("faults.sqlite")
        let model = SaveListsTests.model()
        let writer = try SaveListsTests.context(model, stores: [url])
        try writer.performAndWait {
            for number in Int64(0)..<4 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
                item.setValue(number, forKey: "number")
                item.setValue("n\(number)", forKey: "note")
            }
            try writer.save()
        }
        let context = try SaveListsTests.context(model, stores: [url])
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let items = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
            let items = try context.fetch(request)
            #expect(items.count == 4 && items.allSatisfy(\.isFault))
            #expect(items.map { $0.committedValues(forKeys: ["number"])["number"] as? Int64 } == [0, 1, 2, 3])
            #expect(items[0].committedValues(forKeys: nil)["note"] as? String == "n0")
            return items
        }
        try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "number == 1")
            let item = try #require(try other.fetch(request).first)
            item.setValue(Int64(50), forKey: "number")
            try other.save()
        }
        try context.performAndWait {
            // Item 1 fires after another context saved its row: it shows, and commits, the saved values.
            #expect(items[1].value(forKey: "number") as? Int64 == 50)
            #expect(items[1].committedValues(forKeys: ["number", "note"]).mapValues { "\($0)" } == ["number": "50", "note": "n1"])
            // Item 2 fires as it is changed: its change is measured against its fetched row, then saved.
            items[2].setValue(Int64(102), forKey: "number")
            #expect(items[2].changedValues()["number"] as? Int64 == 102)
            #expect(items[2].committedValues(forKeys: ["number"])["number"] as? Int64 == 2)
            try context.save()
            #expect(items[2].committedValues(forKeys: ["number"])["number"] as? Int64 == 102)
            #expect(items[2].changedValues().isEmpty)
            // Item 3, never fired, is refreshed: it reads its row again.
            context.refresh(items[3], mergeChanges: false)
            #expect(items[3].isFault)
            #expect(items[3].value(forKey: "number") as? Int64 == 3)
            #expect(items[3].committedValues(forKeys: ["note"])["note"] as? String == "n3")
        }
        #expect(try SaveListsTests.reopenedNumbers(model, at: url) == [0, 3, 50, 102])
    }
}

@testable import CoreData
import Testing

/// Faults of fetched objects: when they fill, what they hold, what merges and child contexts do to them. The
/// conformance cases `faults/*` check what every store returns; these check the object layer.
@Suite struct FaultTests {
    /// A context with `count` saved authors named "a0", "a1", …, and a second context on its coordinator.
    private func savedAuthors(_ count: Int) throws -> (NSManagedObjectContext, NSManagedObjectContext) {
        let context = try inMemoryContext()
        try context.performAndWait {
            for index in 0..<count {
                let author = Author(context: context)
                author.name = "a\(index)"
                author.age = Int64(index)
            }
            try context.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        return (context, reader)
    }

    private func byAge() -> NSFetchRequest<Author> {
        let request = NSFetchRequest<Author>(entityName: "Author")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        return request
    }

    @Test func awakeFromFetchRunsWhenTheFaultFires() throws {
        let (_, reader) = try savedAuthors(2)
        try reader.performAndWait {
            let authors = try reader.fetch(byAge())
            #expect(authors.allSatisfy { $0.isFault && $0.events.isEmpty })
            #expect(authors[0].name == "a0")
            #expect(authors[0].events == ["awakeFromFetch"] && authors[1].events.isEmpty)
        }
    }

    @Test func aSnapshotFaultHoldsItsRowAndNoSlotValues() throws {
        let (_, reader) = try savedAuthors(1)
        try reader.performAndWait {
            let author = try #require(try reader.fetch(byAge()).first)
            guard case .snapshot = author.faultState else { Issue.record("expected a snapshot fault, got \(author.faultState)"); return }
            #expect(author.slots.sharesStorage(with: author.layout.emptySlots))
            #expect(author.committed?.isEmpty == false)
        }
    }

    @Test func refreshFreesTheValuesAndTheSnapshot() throws {
        let (_, reader) = try savedAuthors(2)
        try reader.performAndWait {
            let authors = try reader.fetch(byAge())
            _ = authors[0].name
            reader.refresh(authors[0], mergeChanges: false)
            reader.refresh(authors[1], mergeChanges: false)
            for author in authors {
                #expect(author.isFault && author.committed == nil && author.slots.sharesStorage(with: author.layout.emptySlots))
                guard case .store = author.faultState else { Issue.record("expected a fault that reads its store"); continue }
            }
            #expect(authors.map(\.name) == ["a0", "a1"])
            reader.refreshAllObjects()
            #expect(authors.allSatisfy { $0.isFault && $0.committed == nil })
        }
    }

    @Test func aFilledBatchIsReleasedByItsObjects() throws {
        let (_, reader) = try savedAuthors(5)
        try reader.performAndWait {
            let request = byAge()
            request.fetchBatchSize = 2
            let authors = try reader.fetch(request)
            weak var firstBatch: FaultBatch?
            if case .batch(let batch) = authors[0].faultState { firstBatch = batch }
            #expect(firstBatch != nil)
            #expect(authors[1].name == "a1")
            #expect(!authors[0].isFault && authors[2].isFault)
            #expect(firstBatch == nil, "no object holds a batch once it is filled")
            #expect(authors.map(\.age) == [0, 1, 2, 3, 4])
        }
    }

    @Test func aMergedUpdateReachesASnapshotFault() throws {
        let (writer, reader) = try savedAuthors(1)
        let fault = try reader.performAndWait { try #require(try reader.fetch(byAge()).first) }
        try writer.performAndWait {
            let author = try #require(try writer.fetch(byAge()).first)
            author.name = "renamed"
        }
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { note in
            reader.performAndWait { reader.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait { try writer.save() }
        reader.performAndWait {
            #expect(fault.isFault)
            #expect(fault.name == "renamed", "the merge dropped the row the fetch read")
        }
    }

    @Test func anUnmergedUpdateSavedThroughTheCoordinatorReachesAFault() throws {
        let (writer, reader) = try savedAuthors(1)
        let fault = try reader.performAndWait { try #require(try reader.fetch(byAge()).first) }
        try writer.performAndWait {
            try #require(try writer.fetch(byAge()).first).name = "renamed"
            try writer.save()
        }
        #expect(reader.performAndWait { fault.name } == "renamed",
                "a fault fills from the coordinator's row cache, which the other context's save updated (Apple's behaviour)")
    }

    @Test func aMergedDeletionClearsAReferenceInASnapshot() throws {
        // A to-one without an inverse: the store keeps the deleted object's key in the row.
        let owner = NSEntityDescription(name: "Owner")
        owner.properties = [NSAttributeDescription(name: "name", type: .string)]
        let pet = NSEntityDescription(name: "Pet")
        pet.properties = [NSAttributeDescription(name: "name", type: .string),
                          NSRelationshipDescription(name: "owner", destination: owner, toMany: false)]
        let context = try inMemoryContext(model: NSManagedObjectModel(entities: [owner, pet]))
        let ann = try context.performAndWait {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            let rex = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
            rex.setValue(ann, forKey: "owner")
            try context.save()
            return ann
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        let pets = try reader.performAndWait {
            _ = try reader.existingObject(with: ann.objectID)  // registered, so the merge knows it
            let pets = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
            #expect(pets.count == 1 && pets[0].isFault)
            return pets
        }
        context.performAndWait { context.delete(ann) }
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
            reader.performAndWait { reader.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.performAndWait { try context.save() }
        #expect(reader.performAndWait { pets[0].value(forKey: "owner") } == nil,
                "the merged deletion cleared the reference in the fetched row, as in a filled object")
    }

    @Test func batchFaultsOfAChildReadTheParentsUnsavedValues() throws {
        let (root, _) = try savedAuthors(4)
        let child = childContext(of: root)
        let request = byAge()
        request.fetchBatchSize = 4
        let authors = try child.performAndWait { try child.fetch(request) }
        #expect(child.performAndWait { authors.count == 4 && authors.allSatisfy(\.isFault) })
        try root.performAndWait {
            try #require(try root.fetch(byAge()).last).name = "changed in the parent"
        }
        #expect(child.performAndWait { authors.map(\.name) } == ["a0", "a1", "a2", "changed in the parent"])
    }
}

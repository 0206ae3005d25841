import CoreData
import StoreTestSupport
import Foundation
import Synchronization
import Testing

/// Persistent history on the SQLite store: recorded in Apple's tables when the store is added with
/// `NSPersistentHistoryTrackingKey`, fetched and deleted with `NSPersistentHistoryChangeRequest`, and read
/// from Apple-written stores.
struct PersistentHistoryTests {
    static let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber]

    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Note", [attribute("title", .string), attribute("rank", .integer64)])])
    }

    func history(_ context: NSManagedObjectContext, _ request: NSPersistentHistoryChangeRequest) throws -> [NSPersistentHistoryTransaction] {
        try context.performAndWait { (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? [] }
    }

    /// `fetchHistory(withFetch:)` with Apple's history fetch requests: transactions by author, changes by type
    /// and entity, a fetch limit; deleting with a fetch request is refused.
    @Test func historyFetchRequestsFilterTransactionsAndChanges() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: Self.model(), url: url, options: Self.tracking)
        let entity = try #require(stack.coordinator.managedObjectModel.entitiesByName["Note"])
        try stack.context.performAndWait {
            for (author, title) in [("importer", "a"), ("app", "b"), ("importer", "c")] {
                stack.context.transactionAuthor = author
                NSManagedObject(entity: entity, insertInto: stack.context).setValue(title, forKey: "title")
                try stack.context.save()
            }
            let notes = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
            stack.context.transactionAuthor = "app"
            notes.first?.setValue("renamed", forKey: "title")
            try stack.context.save()
        }
        let byAuthor = try #require(NSPersistentHistoryTransaction.fetchRequest)
        byAuthor.predicate = NSPredicate(format: "author != %@", "app")
        let imported = try history(stack.context, .fetchHistory(withFetch: byAuthor))
        #expect(imported.count == 2 && imported.allSatisfy { $0.author == "importer" })

        let updates = try #require(NSPersistentHistoryChange.fetchRequest)
        updates.predicate = NSPredicate(format: "changeType == %d AND changedEntity == %@", NSPersistentHistoryChangeType.update.rawValue, entity)
        let updated = try history(stack.context, .fetchHistory(withFetch: updates))
        #expect(updated.count == 1)
        #expect(updated.first?.changes?.map(\.changeType) == [.update])

        byAuthor.predicate = nil
        byAuthor.fetchLimit = 3
        #expect(try history(stack.context, .fetchHistory(withFetch: byAuthor)).count == 3)

        let deletion = NSPersistentHistoryChangeRequest.deleteHistory(before: Date())
        deletion.fetchRequest = byAuthor
        let refused = #expect(throws: NSError.self) { try stack.context.performAndWait { try stack.context.execute(deletion) } }
        #expect(refused?.code == 134091)
        try stack.close()
    }

    @Test func savesAreRecordedAndFetchedAfterATokenAcrossAReopen() throws {
        let url = TemporaryStore.url()
        let writer = try Stack(model: Self.model(), url: url, options: Self.tracking)
        writer.context.name = "editor"
        writer.context.transactionAuthor = "importer"
        let note = try writer.context.performAndWait {
            let note = NSManagedObject(entity: try #require(writer.coordinator.managedObjectModel.entitiesByName["Note"]), insertInto: writer.context)
            note.setValue("first", forKey: "title")
            try writer.context.save()
            return note
        }
        let afterInsert = try #require(writer.coordinator.currentPersistentHistoryToken(fromStores: nil))
        try writer.context.performAndWait {
            note.setValue("renamed", forKey: "title")
            try writer.context.save()
            writer.context.delete(note)
            try writer.context.save()
        }
        try writer.close()
        #expect(RawSQLite.rows(url, "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT") == [["CHANGE"], ["TRANSACTION"], ["TRANSACTIONSTRING"]])

        let reader = try Stack(model: Self.model(), url: url, options: Self.tracking)
        let all = try history(reader.context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
        #expect(all.count == 3)
        #expect(all.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert], [.update], [.delete]])
        #expect(all.allSatisfy { $0.author == "importer" && $0.contextName == "editor" && $0.storeID == reader.store.identifier })
        #expect(all[1].changes?.first?.updatedProperties?.map(\.name) == ["title"])
        #expect(all.map(\.transactionNumber) == all.map(\.transactionNumber).sorted())

        let archived = try NSKeyedArchiver.archivedData(withRootObject: afterInsert, requiringSecureCoding: true)
        let token = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: archived))
        #expect(token == afterInsert)
        let later = try history(reader.context, .fetchHistory(after: token))
        #expect(later.map(\.transactionNumber) == Array(all.map(\.transactionNumber).dropFirst()))

        // The deletion merges into a context that still holds the object.
        try reader.context.performAndWait {
            let id = try #require(all.first?.changes?.first?.changedObjectID)
            _ = reader.context.object(with: id)
            reader.context.mergeChanges(fromContextDidSave: try #require(later.last).objectIDNotification())
            #expect(reader.context.registeredObject(for: id) == nil)
        }

        let delete = NSPersistentHistoryChangeRequest.deleteHistory(before: try #require(later.first))
        delete.resultType = .count
        let deleted = try reader.context.performAndWait { (try reader.context.execute(delete) as? NSPersistentHistoryResult)?.result as? NSNumber }
        #expect(deleted?.intValue == 2)
        #expect(try history(reader.context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).count == 1)
        try reader.close()
    }

    /// Server workers, or an app and its extension, add one new store with history tracking at the same moment:
    /// every add succeeds (one creates the history tables, the others find them), and every coordinator saves.
    @Test func coordinatorsAddingANewTrackedStoreAtOnceAllSucceed() throws {
        for _ in 1...10 {
            let url = TemporaryStore.url()
            let failures = Mutex<[String]>([])
            let coordinators = Mutex<[NSPersistentStoreCoordinator]>([])
            // Six threads wait at a gate and then add the store together.
            let gate = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<6 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    gate.wait()
                    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
                    do {
                        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentHistoryTrackingKey: true])
                        coordinators.withLock { $0.append(coordinator) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            Thread.sleep(forTimeInterval: 0.05)  // every thread waiting at the gate
            for _ in 0..<6 { gate.signal() }
            group.wait()
            #expect(failures.withLock { $0 } == [])
            for (index, coordinator) in coordinators.withLock({ $0 }).enumerated() {
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                try context.performAndWait {
                    NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("worker \(index)", forKey: "title")
                    try context.save()
                }
            }
            let reader = try Stack(model: Self.model(), url: url, options: [NSPersistentHistoryTrackingKey: true])
            #expect(try history(reader.context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).count == coordinators.withLock { $0.count })
            try reader.close()
        }
    }

    @Test func aStoreAddedWithoutTheOptionGetsNoHistoryTables() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: Self.model(), url: url)
        try stack.context.performAndWait {
            NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["Note"]), insertInto: stack.context)
                .setValue("plain", forKey: "title")
            try stack.context.save()
        }
        #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'A%'") == [["0"]])
    }

    @Test(.enabled(if: Fixtures.available)) func historyWrittenByAppleIsRead() throws {
        let url = try Fixtures.copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite")
        let expected = RawSQLite.rows(url, "SELECT count(*) FROM ACHANGE")
        let stack = try Stack(model: try FixtureModels.storeModel("alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite"),
                              url: url, options: [NSReadOnlyPersistentStoreOption: true])
        let transactions = try history(stack.context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
        #expect(!transactions.isEmpty)
        #expect([["\(transactions.flatMap { $0.changes ?? [] }.count)"]] == expected)
        #expect(transactions.allSatisfy { !$0.bundleID.isEmpty || !$0.processID.isEmpty })
        for change in transactions.flatMap({ $0.changes ?? [] }) {
            #expect(change.changeType == .insert)
            #expect(try stack.context.performAndWait { try stack.context.existingObject(with: change.changedObjectID) }.entity.name != nil)
        }
        try stack.close()
    }
}

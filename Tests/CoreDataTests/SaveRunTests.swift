import Foundation
import Testing
import CoreData

/// Saves of many objects of one entity, as the save path handles them in runs (objects that change the same
/// slots share what the store is told; the IDs for the object-ID notification are collected while the objects
/// are marked saved): each object still writes exactly its own changes, and the notifications name every
/// object once.
@Suite struct SaveRunTests {
    private func model() -> NSManagedObjectModel {
        let entity = NSEntityDescription(name: "Row")
        entity.properties = (0..<3).map { NSAttributeDescription(name: "v\($0)", type: .integer64, defaultValue: 0) }
        return NSManagedObjectModel(entities: [entity])
    }

    private func context(_ model: NSManagedObjectModel, at url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The saved values of every row, by `v0`, read through a new coordinator.
    private func reopenedValues(_ model: NSManagedObjectModel, at url: URL) throws -> [Int64: [Int64]] {
        let context = try context(model, at: url)
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Row")).reduce(into: [:]) { values, row in
                let numbers = (0..<3).map { (row.value(forKey: "v\($0)") as? Int64) ?? -1 }
                values[numbers[0]] = numbers
            }
        }
    }

    @Test func updatedObjectsChangingDifferentSlotsEachWriteTheirOwn() throws {
        let model = model()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("save-run-\(UUID().uuidString)/store.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try context(model, at: url)
        try context.performAndWait {
            for index in 0..<12 { _ = insert("Row", ["v0": Int64(index)], into: context) }
            try context.save()
        }
        // Runs of objects changing the same slots, and neighbours changing other ones.
        try context.performAndWait {
            let rows = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Row"))
            for row in rows {
                guard let index = row.value(forKey: "v0") as? Int64 else { continue }
                switch index % 4 {
                case 0, 1: row.setValue(index * 10, forKey: "v1")
                case 2: row.setValue(index * 100, forKey: "v2")
                default:
                    row.setValue(index * 10, forKey: "v1")
                    row.setValue(index * 100, forKey: "v2")
                }
            }
            try context.save()
        }
        let values = try reopenedValues(model, at: url)
        #expect(values.count == 12)
        for index in Int64(0)..<12 {
            let expected: [Int64]
            switch index % 4 {
            case 0, 1: expected = [index, index * 10, 0]
            case 2: expected = [index, 0, index * 100]
            default: expected = [index, index * 10, index * 100]
            }
            #expect(values[index] == expected, "row \(index)")
        }
    }

    @Test func saveNotificationsNameEveryObjectOnce() throws {
        let model = model()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("save-run-\(UUID().uuidString)/store.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try context(model, at: url)
        let objectIDs = try context.performAndWait {
            let rows = (0..<5).map { insert("Row", ["v0": Int64($0)], into: context) }
            try context.save()
            return rows.map(\.objectID)
        }
        let received = ReceivedNotes()
        let center = NotificationCenter.default
        let idObserver = center.addObserver(forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: context, queue: nil) {
            received.append($0)
        }
        let objectObserver = center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) {
            received.append($0)
        }
        defer {
            center.removeObserver(idObserver)
            center.removeObserver(objectObserver)
        }
        try context.performAndWait {
            let rows = try objectIDs.map { try context.existingObject(with: $0) }
            for row in rows.prefix(3) { row.setValue(Int64(7), forKey: "v1") }
            context.delete(rows[4])
            try context.save()
        }
        let notes = received.all
        let idNote = notes.first { $0.name == NSManagedObjectContext.didSaveObjectIDsNotification }
        let objectNote = notes.first { $0.name == .NSManagedObjectContextDidSave }
        #expect(idNote?.userInfo?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> == Set(objectIDs.prefix(3)))
        #expect(idNote?.userInfo?[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID> == [objectIDs[4]])
        #expect(idNote?.userInfo?[NSInsertedObjectIDsKey] == nil)
        let updated = objectNote?.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>
        #expect(Set(updated?.map(\.objectID) ?? []) == Set(objectIDs.prefix(3)))
        #expect((objectNote?.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.map(\.objectID) == [objectIDs[4]])
        let values = try reopenedValues(model, at: url)
        #expect(values.keys.sorted() == [0, 1, 2, 3])
        #expect(values[2] == [2, 7, 0])
        #expect(values[3] == [3, 0, 0])
    }
}

/// Notifications received on any thread, kept under a lock.
private final class ReceivedNotes: @unchecked Sendable {
    private let lock = NSLock()
    private var notes: [Notification] = []
    func append(_ note: Notification) { lock.withLock { notes.append(note) } }
    var all: [Notification] { lock.withLock { notes } }
}

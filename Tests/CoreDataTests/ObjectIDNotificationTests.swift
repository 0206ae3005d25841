import Testing
import CoreData

/// Apple's object-ID notifications and notification keys: `didSaveObjectIDsNotification` after a save and
/// `didMergeChangesObjectIDsNotification` after a merge, each with the IDs under the `…ObjectIDs` keys; the
/// `NotificationKey` raw values are Apple's userInfo keys.
@Suite struct ObjectIDNotificationTests {
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var notes: [Notification] = []
        func append(_ note: Notification) { lock.withLock { notes.append(note) } }
        var all: [Notification] { lock.withLock { notes } }
    }

    static func ids(_ note: Notification?, _ key: NSManagedObjectContext.NotificationKey) -> Set<NSManagedObjectID> {
        note?.userInfo?[key.rawValue] as? Set<NSManagedObjectID> ?? []
    }

    @Test func theKeysAreApplesUserInfoKeys() {
        #expect(NSManagedObjectContext.NotificationKey.sourceContext.rawValue == "managedObjectContext")
        #expect(NSManagedObjectContext.NotificationKey.queryGeneration.rawValue == "newQueryGeneration")
        #expect(NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue == NSInsertedObjectIDsKey)
        #expect(NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue == NSUpdatedObjectIDsKey)
        #expect(NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue == NSDeletedObjectIDsKey)
        #expect(NSManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue == NSRefreshedObjectIDsKey)
        #expect(NSManagedObjectContext.NotificationKey.invalidatedObjectIDs.rawValue == NSInvalidatedObjectIDsKey)
        #expect(NSManagedObjectContext.didSaveObjectIDsNotification.rawValue == "NSManagedObjectContextDidSaveObjectIDsNotification")
        #expect(NSManagedObjectContext.didMergeChangesObjectIDsNotification.rawValue == "NSManagedObjectContextDidMergeChangesObjectIDsNotification")
    }

    @Test func aSavePostsThePermanentIDsItWrote() throws {
        let context = try inMemoryContext()
        let received = Received()
        let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: context, queue: nil) {
            received.append($0)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let (first, second) = try context.performAndWait { () throws -> (NSManagedObjectID, NSManagedObjectID) in
            let first = Author(context: context), second = Author(context: context)
            try context.save()
            second.name = "renamed"
            context.delete(first)
            try context.save()
            return (first.objectID, second.objectID)
        }
        let notes = received.all
        #expect(notes.count == 2)
        #expect(Self.ids(notes.first, .insertedObjectIDs) == [first, second])
        #expect(Self.ids(notes.first, .insertedObjectIDs).allSatisfy { !$0.isTemporaryID })
        #expect(Self.ids(notes.last, .updatedObjectIDs) == [second])
        #expect(Self.ids(notes.last, .deletedObjectIDs) == [first])
        #expect(notes.last?.userInfo?[NSManagedObjectContext.NotificationKey.sourceContext.rawValue] as? NSManagedObjectContext === context)
    }

    @Test func aMergePostsTheIDsItTookIn() throws {
        let writer = try inMemoryContext()
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = writer.persistentStoreCoordinator
        let received = Received()
        let observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: reader, queue: nil) {
            received.append($0)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let saved = try writer.performAndWait { () throws -> Notification? in
            var note: Notification?
            let saveObserver = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { note = $0 }
            defer { NotificationCenter.default.removeObserver(saveObserver) }
            _ = Author(context: writer)
            try writer.save()
            return note
        }
        reader.performAndWait { reader.mergeChanges(fromContextDidSave: try! #require(saved)) }
        let inserted = Self.ids(received.all.first, .insertedObjectIDs)
        #expect(received.all.count == 1)
        #expect(inserted.count == 1 && inserted.allSatisfy { !$0.isTemporaryID })
    }
}

import CoreData
import Foundation
import StoreTestSupport
import Synchronization
import Testing

/// `NSPersistentStoreRemoteChange` is posted for a store added with
/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` after every write, the coordinator's own and another
/// connection's, with Apple's userInfo keys, and not without the option.
@Suite struct RemoteChangeNotificationTests {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Note", [attribute("text", .string)])])
    }

    /// Counts the notifications whose object is `coordinator`, keeping the last userInfo.
    final class Listener: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var info: [AnyHashable: Any]?
        private var observer: NSObjectProtocol?

        init(_ coordinator: NSPersistentStoreCoordinator) {
            observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { [weak self] note in
                guard let self else { return }
                lock.lock(); count += 1; info = note.userInfo; lock.unlock()
            }
        }
        deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

        var seen: (count: Int, info: [AnyHashable: Any]?) { lock.lock(); defer { lock.unlock() }; return (count, info) }

        func wait(seconds: Double) -> Int {
            let deadline = Date().addingTimeInterval(seconds)
            while seen.count == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            return seen.count
        }
    }

    static func save(_ text: String, through coordinator: NSPersistentStoreCoordinator) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue(text, forKey: "text")
            try context.save()
        }
    }

    @Test func anotherCoordinatorsSaveIsPostedWithApplesKeys() throws {
        let url = TemporaryStore.url()
        let watched = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try watched.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let listener = Listener(watched)
        Thread.sleep(forTimeInterval: 0.4)  // the watcher has read the starting count
        let writer = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try writer.addPersistentStore(type: .sqlite, at: url)
        try Self.save("from elsewhere", through: writer)
        #expect(listener.wait(seconds: 5) >= 1)
        let info = listener.seen.info
        #expect(info?[NSStoreUUIDKey] as? String == store.identifier)
        #expect((info?[NSPersistentStoreURLKey] as? URL)?.standardizedFileURL == url.standardizedFileURL)
    }

    /// The option's documentation: a notification "for every write to the store", the coordinator's own saves and
    /// batch requests included (Apple's Earthquakes sample merges its own batch inserts on it); a store added
    /// without the option posts nothing.
    /// Apple posts "for every write to the store": two batch requests in a row and a save are three notifications,
    /// each with the history token right after its write, in the order of the writes.
    @Test func eachOwnWriteIsPostedWithTheTokenAfterIt() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: TemporaryStore.url(),
                                           options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true, NSPersistentHistoryTrackingKey: true])
        let tokens = Mutex<[NSPersistentHistoryToken?]>([])
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { note in
            tokens.withLock { $0.append(note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var expected: [NSPersistentHistoryToken?] = []
        try context.performAndWait {
            for text in ["first", "second"] {
                _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["text": text]]))
                expected.append(coordinator.currentPersistentHistoryToken(fromStores: nil))
            }
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("saved", forKey: "text")
            try context.save()
            expected.append(coordinator.currentPersistentHistoryToken(fromStores: nil))
        }
        let deadline = Date().addingTimeInterval(5)
        while tokens.withLock({ $0.count }) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.6)  // more than the polling interval: no extra notification follows
        let posted = tokens.withLock { $0 }
        #expect(posted.count == 3, "one notification per write")
        #expect(posted == expected, "each with the token right after its write")
        #expect(Set(posted.compactMap { $0 }).count == 3)
    }

    @Test func ownWritesArePostedAndNothingWithoutTheOption() throws {
        let url = TemporaryStore.url()
        let plain = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try plain.addPersistentStore(type: .sqlite, at: url)
        let watched = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try watched.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let plainListener = Listener(plain)
        Thread.sleep(forTimeInterval: 0.4)
        let saveListener = Listener(watched)
        try Self.save("own", through: watched)
        #expect(saveListener.wait(seconds: 5) >= 1, "a coordinator's own save is posted")
        #expect(saveListener.seen.info?[NSStoreUUIDKey] as? String == store.identifier)
        Thread.sleep(forTimeInterval: 0.4)
        let batchListener = Listener(watched)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = watched
        try context.performAndWait {
            _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["text": "batch"]]))
        }
        #expect(batchListener.wait(seconds: 5) >= 1, "a coordinator's own batch insert is posted")
        try Self.save("other", through: plain)
        #expect(plainListener.wait(seconds: 1) == 0, "a store added without the option posts nothing")
    }
}

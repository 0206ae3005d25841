import CoreData
import Foundation
import StoreTestSupport
import Testing

/// `NSPersistentStoreRemoteChange` is posted for a store added with
/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` when another connection changes its file, with
/// Apple's userInfo keys, and not without the option.
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

    @Test func nothingIsPostedWithoutTheOptionOrForOwnSaves() throws {
        let url = TemporaryStore.url()
        let plain = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try plain.addPersistentStore(type: .sqlite, at: url)
        let watched = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try watched.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let plainListener = Listener(plain), watchedListener = Listener(watched)
        Thread.sleep(forTimeInterval: 0.4)
        try Self.save("own", through: watched)
        #expect(watchedListener.wait(seconds: 1) == 0, "a coordinator's own save is not a remote change")
        try Self.save("other", through: watched)
        #expect(plainListener.wait(seconds: 1) == 0, "a store added without the option posts nothing")
    }
}

import CoreData

/// Requirements of the store contract that no other group proves (each is cited in `PersistentStoreBackend`'s
/// documentation).
enum ContractCases {
    static let all: [ConformanceCase] = [
        ConformanceCase("add-store/metadata-of-a-missing-store", requires: .persistsToFile) { env in
            try env.expect(!FileManager.default.fileExists(atPath: env.url.path), "the case's store URL is unused")
            try env.expectError([NSFileReadNoSuchFileError], "reading the metadata of a store that does not exist") {
                _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: env.configuration.storeType, at: env.url)
            }
            try env.expect(!FileManager.default.fileExists(atPath: env.url.path), "reading the metadata created no file")
        },
        ConformanceCase("add-store/set-metadata-without-adding", requires: .persistent, adopting: [.metadataWriting]) { env in
            let type = env.configuration.storeType
            let coordinator = try env.openCoordinator()
            try env.withNewContext(coordinator) { context in
                _ = Fixtures.owner(context, "Kept")
                try context.save()
            }
            let uuid = try env.require(coordinator.persistentStores.first?.identifier, "the store's UUID")
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            try NSPersistentStoreCoordinator.setMetadata(["custom": "written"], forPersistentStoreOfType: type, at: env.url,
                                                         options: env.configuration.options)
            let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: env.url, options: env.configuration.options)
            try env.expectEqual(read["custom"] as? String, "written", "the written key, read without adding the store")
            try env.expectEqual(read[NSStoreUUIDKey] as? String, uuid, "NSStoreUUID is kept when the metadata lacks it")
            try env.expectEqual(read[NSStoreTypeKey] as? String, type, "NSStoreType is kept when the metadata lacks it")
            let reopened = try env.openCoordinator()
            let store = try env.require(reopened.persistentStores.first, "the reopened store")
            try env.expectEqual(reopened.metadata(for: store)["custom"] as? String, "written", "the written key once the store is added")
            try env.expectEqual(try env.withNewContext(reopened) { try $0.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")) }, 1,
                                "writing metadata leaves the rows alone")
            for store in reopened.persistentStores { try reopened.remove(store) }
            try env.expectError([NSFileReadNoSuchFileError], "writing the metadata of a store that does not exist") {
                try NSPersistentStoreCoordinator.setMetadata(["custom": "x"], forPersistentStoreOfType: type, at: env.newStoreURL(),
                                                             options: env.configuration.options)
            }
        },
        ConformanceCase("save/remote-change-notification-for-own-writes") { env in
            // The option's documentation: a notification "for every write to the store", the coordinator's own too.
            let watched = try env.openCoordinator(options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
            let store = try env.require(watched.persistentStores.first, "the watched store")
            let posted = PostedNotifications(.NSPersistentStoreRemoteChange, from: watched)
            try env.withNewContext(watched) { context in
                _ = Fixtures.owner(context, "Own")
                try context.save()
            }
            try env.expect(posted.wait(seconds: 5) >= 1, "a coordinator's own save posts NSPersistentStoreRemoteChange")
            try env.expectEqual(posted.lastUserInfo?[NSStoreUUIDKey] as? String, store.identifier, "the notification names the store")
            for added in watched.persistentStores { try watched.remove(added) }
            let plain = try env.openCoordinator()
            let silent = PostedNotifications(.NSPersistentStoreRemoteChange, from: plain)
            try env.withNewContext(plain) { context in
                _ = Fixtures.owner(context, "Unwatched")
                try context.save()
            }
            try env.expectEqual(silent.wait(seconds: 1), 0, "a store added without the option posts nothing")
        },
        ConformanceCase("save/remote-change-notification", requires: .sharedBetweenCoordinators, adopting: [.externalChangeDetecting]) { env in
            let watched = try env.openCoordinator(options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
            let store = try env.require(watched.persistentStores.first, "the watched store")
            let posted = PostedNotifications(.NSPersistentStoreRemoteChange, from: watched)
            Thread.sleep(forTimeInterval: 0.4)  // the watcher has read the starting count
            try env.withNewContext(try env.openCoordinator()) { context in
                _ = Fixtures.owner(context, "Elsewhere")
                try context.save()
            }
            try env.expect(posted.wait(seconds: 5) >= 1, "another coordinator's save posts NSPersistentStoreRemoteChange")
            try env.expectEqual(posted.lastUserInfo?[NSStoreUUIDKey] as? String, store.identifier, "the notification names the store")
        },
    ]
}

/// Counts the notifications of one name whose object is one coordinator, keeping the last userInfo.
///
/// `@unchecked Sendable`: `count` and `userInfo` are read and written only under `lock`.
final class PostedNotifications: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var userInfo: [AnyHashable: Any]?
    private var observer: NSObjectProtocol?

    init(_ name: Notification.Name, from coordinator: NSPersistentStoreCoordinator) {
        observer = NotificationCenter.default.addObserver(forName: name, object: coordinator, queue: nil) { [weak self] note in
            guard let self else { return }
            lock.lock()
            count += 1
            userInfo = note.userInfo
            lock.unlock()
        }
    }

    deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

    /// The userInfo of the last notification, if any came.
    var lastUserInfo: [AnyHashable: Any]? { lock.lock(); defer { lock.unlock() }; return userInfo }

    /// How many notifications came, waiting up to `seconds` for the first.
    func wait(seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            lock.lock()
            let seen = count
            lock.unlock()
            if seen > 0 || Date() >= deadline { return seen }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

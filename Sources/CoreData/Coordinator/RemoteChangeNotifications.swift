import Dispatch

extension Notification.Name {
    /// Apple's `NSPersistentStoreRemoteChange`: posted for a store added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` after every write to it, as the option's
    /// documentation says: the coordinator's own (a save, a batch delete, update or insert) and those of other
    /// connections to its file (another coordinator of this process, or another process, for a store that can
    /// tell them). The object is the store's coordinator;
    /// userInfo holds `NSPersistentStoreURLKey`, `NSStoreUUIDKey` and, when the store records history,
    /// `NSPersistentHistoryTokenKey`. A store that knows which objects changed (➕ the PostgreSQL store) adds
    /// their IDs under `NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey` and `NSDeletedObjectIDsKey`, so
    /// `mergeChanges(fromContextDidSave:)` brings a context up to date. It is posted on a private queue.
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// The userInfo key of the changed store's URL in `NSPersistentStoreRemoteChange` (Apple's).
public let NSPersistentStoreURLKey = "storeURL"
/// The userInfo key of the history token in `NSPersistentStoreRemoteChange` (Apple's).
public let NSPersistentHistoryTokenKey = "historyToken"

/// Watches one store for writes and posts `NSPersistentStoreRemoteChange` for them.
///
/// The coordinator tells of each of its own writes as it makes it (`noteOwnWrite()`): the watcher posts once for
/// each, with the history token as of that write, so two batch requests in a row are two notifications with their
/// own tokens. For writes by other connections, the store's backend tells a number that their commits change
/// (`ExternalChangeDetecting`); stores whose backend cannot tell (the atomic stores, which read their file once)
/// report their own writes only. Four times a second, on a queue of its own, the watcher reads that number (under
/// the coordinator's lock) and posts once for each interval in which it changed. Posts go out on that queue, in
/// the order of the writes. The watcher stops when the store leaves its coordinator.
///
/// `@unchecked Sendable`: `lastCount` is touched only on `queue` (the timer's handler); `store` and `timer` are set
/// in `init` and then only read, and cancelling a dispatch source is thread-safe.
final class RemoteChangeWatcher: @unchecked Sendable {
    static let interval = DispatchTimeInterval.milliseconds(250)

    /// The timer's queue; `lastCount` is only touched there.
    private let queue = DispatchQueue(label: "NSPersistentStore.remoteChanges")
    private let timer: DispatchSourceTimer
    private weak var store: NSPersistentStore?
    private var lastCount: Int64?

    /// A running watcher for `store`, or nil when it was not added with the option.
    static func start(for store: NSPersistentStore) -> RemoteChangeWatcher? {
        guard storeOptionIsSet(store.options, NSPersistentStoreRemoteChangeNotificationPostOptionKey) else { return nil }
        return RemoteChangeWatcher(store: store)
    }

    /// Posts for a write the coordinator just made to the store (called holding the coordinator's lock, so the
    /// history token read here is the one right after that write).
    func noteOwnWrite() {
        guard let store, let coordinator = store.persistentStoreCoordinator else { return }
        // The user info is made here and only read by the post: handing it to the queue shares nothing mutable.
        nonisolated(unsafe) let info = Self.userInfo(of: store, token: coordinator.currentPersistentHistoryToken(fromStores: [store]))
        queue.async { NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info) }
    }

    /// The notification's user info: the store's UUID and URL, and the history token when there is one.
    private static func userInfo(of store: NSPersistentStore, token: NSPersistentHistoryToken?) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier as Any]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if let token { info[NSPersistentHistoryTokenKey] = token }
        return info
    }

    private init(store: NSPersistentStore) {
        self.store = store
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: Self.interval)
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
    }

    /// Stops watching; safe to call more than once.
    func stop() { timer.cancel() }

    deinit { timer.cancel() }

    private func check() {
        guard let store, let coordinator = store.persistentStoreCoordinator else { return }
        let count = (try? coordinator.externalChangeCount(of: store)) ?? nil
        let externalWrite = lastCount != nil && count != nil && lastCount != count
        if count != nil { lastCount = count }
        guard externalWrite else { return }
        var info = Self.userInfo(of: store, token: coordinator.currentPersistentHistoryToken(fromStores: [store]))
        if let changes = try? coordinator.externalChanges(of: store) {
            info[NSInsertedObjectIDsKey] = changes.inserted.compactMap { store.objectID(for: $0) }
            info[NSUpdatedObjectIDsKey] = changes.updated.compactMap { store.objectID(for: $0) }
            info[NSDeletedObjectIDsKey] = changes.deleted.compactMap { store.objectID(for: $0) }
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
    }
}

extension NSPersistentStoreCoordinator {
    /// The backend's count of changes by other connections, read under the lock; nil for a store that cannot
    /// tell or is no longer added.
    func externalChangeCount(of store: NSPersistentStore) throws -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        guard store.persistentStoreCoordinator === self, let backend = store.backend as? ExternalChangeDetecting else { return nil }
        return try backend.externalChangeCount()
    }

    /// The objects other connections changed since the last call, for a store that can list them; nil
    /// otherwise, or when some change was announced without its objects.
    func externalChanges(of store: NSPersistentStore) throws -> ExternalChanges? {
        lock.lock()
        defer { lock.unlock() }
        guard store.persistentStoreCoordinator === self, let backend = store.backend as? ExternalChangeListing else { return nil }
        let changes = try backend.takeExternalChanges()
        return changes.isIncomplete ? nil : changes
    }
}

import CoreDataInMemory

/// A store added to a coordinator: its type, location, options and metadata (Apple's class of the same name).
///
/// The store's data is handled by a backend that implements the store contract (`PersistentStoreBackend`);
/// this object is the public handle that object IDs, requests and the coordinator refer to.
///
/// `@unchecked Sendable`: `persistentStoreCoordinator`, `url` and the pending metadata are read and written only
/// under `lock`; `remoteChangeWatcher` only under the coordinator's lock (adding and removing the store); every other
/// field is a `let`.
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// A store type name (Apple's `NSPersistentStore.StoreType`).
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The SQLite store (`NSSQLiteStoreType`).
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// The XML store (`NSXMLStoreType`).
        public static let xml = StoreType(rawValue: NSXMLStoreType)
        /// The binary store (`NSBinaryStoreType`).
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
        /// The in-memory store (`NSInMemoryStoreType`).
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        /// ➕ The PostgreSQL store (`NSPostgreSQLStoreType`): its URL is a connection URI,
        /// `postgresql://user@host:port/database?schema=name`. Not Apple's.
        public static let postgreSQL = StoreType(rawValue: NSPostgreSQLStoreType)
    }

    /// The backend holding the store's data.
    let backend: PersistentStoreBackend
    /// Object IDs of this store point here.
    let identity: StoreIdentity

    /// The coordinator the store is added to; nil once it is removed. Read from any context's queue, written
    /// by the coordinator when it adds or removes the store.
    open internal(set) var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { locked { coordinatorReference } }
        set { locked { coordinatorReference = newValue } }
    }
    private weak var coordinatorReference: NSPersistentStoreCoordinator?
    /// The store type name.
    public let type: String
    /// The configuration whose entities the store holds, or nil for all.
    public let configurationName: String
    /// The options the store was added with.
    public let options: [AnyHashable: Any]?
    /// The store's location (for the in-memory store, only a name).
    open var url: URL? {
        get { locked { storedURL } }
        set { locked { storedURL = newValue } }
    }
    private var storedURL: URL?
    /// Metadata set with `setMetadata` and not saved yet, numbered by setting; any context's save may read
    /// and clear it.
    private var pendingMetadata: PendingMetadata?
    private var pendingMetadataSettings = 0
    /// Guards `coordinatorReference`, `storedURL` and the pending metadata, which contexts on any queue reach.
    private let lock = NSLock()
    /// Posts remote-change notifications for a store added with the option (see `RemoteChangeWatcher`).
    var remoteChangeWatcher: RemoteChangeWatcher?

    init(backend: PersistentStoreBackend, type: String, configurationName: String?, url: URL?, options: [AnyHashable: Any]?) {
        self.backend = backend
        self.type = type
        self.configurationName = configurationName ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.storedURL = url
        self.options = options
        let uuid = backend.metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString
        self.identity = StoreIdentity(identifier: uuid)
        super.init()
        identity.handle = self
    }

    /// The store's UUID (`NSStoreUUID`), used in object ID URIs.
    open var identifier: String! { identity.identifier }

    /// The facts the store's backend states about where its data lives (an addition to Apple's API, used by the
    /// conformance suite); what it can do beyond the contract's core is the refinement protocols it adopts.
    public var capabilities: StoreCapabilities { backend.capabilities }

    /// Whether saving to the store is refused.
    open var isReadOnly: Bool { storeOptionIsSet(options, NSReadOnlyPersistentStoreOption) }

    /// The store's metadata, including changes from `setMetadata` not yet saved.
    open var metadata: [String: Any]! {
        get {
            if let pending = peekPendingMetadata() { return pending.values }
            return persistentStoreCoordinator?.backendMetadata(of: self) ?? backend.metadata
        }
        set {
            locked {
                pendingMetadataSettings += 1
                pendingMetadata = newValue.map { PendingMetadata(values: $0, setting: pendingMetadataSettings) }
            }
        }
    }

    /// Metadata set with `setMetadata` and not saved yet, and which setting it was.
    struct PendingMetadata {
        let values: [String: Any]
        let setting: Int
    }

    /// Whether metadata was set since the last save.
    var hasPendingMetadata: Bool { peekPendingMetadata() != nil }

    /// Metadata set since the last save, handed to the store with the next save.
    func peekPendingMetadata() -> PendingMetadata? {
        locked { pendingMetadata }
    }

    /// Forgets the pending metadata once a save wrote `written`; metadata set again since is kept for the
    /// next save.
    func clearPendingMetadata(written: PendingMetadata?) {
        guard let written else { return }
        locked { if pendingMetadata?.setting == written.setting { pendingMetadata = nil } }
    }

    /// Runs `body` holding the store's own lock (a leaf: nothing is called while it is held).
    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Whether this store holds objects of `entity`.
    func holds(_ entity: NSEntityDescription) -> Bool {
        guard configurationName != "PF_DEFAULT_CONFIGURATION_NAME",
              let model = persistentStoreCoordinator?.managedObjectModel,
              let entities = model.entities(forConfigurationName: configurationName)
        else { return true }
        return entities.contains { $0 === entity }
    }

    /// An object ID of this store.
    func objectID(for key: ObjectKey, entity: NSEntityDescription) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: key, store: identity)
    }

    /// The object ID of a key of this store, or nil when its entity number is not in the model.
    func objectID(for key: ObjectKey) -> NSManagedObjectID? {
        persistentStoreCoordinator?.managedObjectModel.entity(withNumber: key.entityNumber).map { objectID(for: key, entity: $0) }
    }

    open override var description: String {
        "<NSPersistentStore \(type) \(url?.path ?? "") \(identity.identifier)>"
    }
}

extension NSManagedObjectID {
    /// The store that holds the object; nil for a temporary ID or a removed store.
    public var persistentStore: NSPersistentStore? { storeIdentity?.handle as? NSPersistentStore }
}

extension NSPersistentStoreRequest {
    /// The stores the request goes to; nil means every store.
    public var affectedStores: [NSPersistentStore]? {
        get { _affectedStoreHandles?.compactMap { $0 as? NSPersistentStore } }
        set { _affectedStoreHandles = newValue }
    }
}

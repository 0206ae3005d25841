/// Connects a model to the stores that hold its objects, and serializes access to them
/// (Apple's class of the same name).
///
/// Store types are plugins: the coordinator finds the backend for a type name in a registry, where the
/// built-in SQLite, XML, binary and in-memory stores are registered, and where users register their own.
///
/// `@unchecked Sendable`: `stores`, and the data of every store, are read and written only under `lock` (the row
/// cache under its own); the model is frozen once a coordinator uses it (`NSManagedObjectModel`), so from then on
/// it is only read; `name` is set before the coordinator is shared, then only read.
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// The model the coordinator's stores hold objects of.
    public let managedObjectModel: NSManagedObjectModel
    /// A name for debugging.
    open var name: String?
    /// The stores, in the order they were added.
    open var persistentStores: [NSPersistentStore] {
        lock.lock()
        defer { lock.unlock() }
        return stores
    }
    private var stores: [NSPersistentStore] = []

    /// Serializes every call into the stores. Taken only by the coordinator's own methods: everything else
    /// reaches the stores through the entry points of `NSPersistentStoreCoordinator+StoreAccess.swift`.
    let lock = NSRecursiveLock()

    /// The rows read and saved through the coordinator, shared by its contexts (see `RowCache`; it has a lock
    /// of its own).
    let rowCache = RowCache()

    /// The query generations taken of the coordinator's stores and still held by a context or token (weakly;
    /// see `QueryGeneration`).
    let queryGenerations = QueryGenerationList()

    /// A coordinator for `model`.
    public init(managedObjectModel model: NSManagedObjectModel) {
        self.managedObjectModel = model
        super.init()
        model.freeze()
    }

    // MARK: The registry

    /// The registered store types and their classes, built-in ones included. Apple wraps each class in an
    /// `NSValue`; Foundation on Linux cannot, so the classes are given directly.
    open class var registeredStoreTypes: [String: AnyClass] {
        StoreRegistry.shared.registeredTypes
    }

    /// Registers `storeClass` for `storeType`; nil removes the registration. The class must implement the store
    /// contract (`PersistentStoreBackend`), which adding a store of the type checks.
    open class func registerStoreClass(_ storeClass: AnyClass?, type storeType: NSPersistentStore.StoreType) {
        StoreRegistry.shared.register(storeClass, for: storeType.rawValue)
    }

    /// Apple's older spelling of `registerStoreClass(_:type:)`.
    open class func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
        StoreRegistry.shared.register(storeClass, for: storeType)
    }

    // MARK: Adding and removing stores

    /// Adds a store of `type` at `url`, creating it when no file exists there.
    ///
    /// With `NSMigratePersistentStoresAutomaticallyOption`, a file store saved with another model is first migrated
    /// with a mapping model found in the bundles, as Apple's is, and only when none is found with the store type's
    /// inferred (lightweight) migration, if `NSInferMappingModelAutomaticallyOption` is set too (see
    /// Migration.md, "Automatic migration when a store is added").
    ///
    /// - Throws: 134000 for a type nobody registered or a file of another type, 259 for a damaged file,
    ///   134100 when the store was saved with an incompatible model, 134070 when a store at `url` is
    ///   already added; with the migration option but not the inference option, 134130 when the model the store
    ///   was saved with is not found and 134140 when no mapping model is; a migration's errors (134110, 134190).
    ///   A file that fails to open or migrate is left as it was.
    @discardableResult
    open func addPersistentStore(type: NSPersistentStore.StoreType, configuration: String? = nil, at url: URL,
                                 options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addStore(type: type.rawValue, configuration: configuration, url: url, options: options)
    }

    /// Apple's older spelling of `addPersistentStore(type:configuration:at:options:)`; `url` may be nil for
    /// the in-memory store.
    @discardableResult
    open func addPersistentStore(ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
                                 options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addStore(type: storeType, configuration: configuration, url: storeURL, options: options)
    }

    /// Adds a store as `addPersistentStore` does; with `usesMappingModels` false, a store added with the migration
    /// options is only ever migrated by inference (a staged migration's lightweight step).
    func addStore(type: String, configuration: String?, url: URL?, options: [AnyHashable: Any]?,
                  usesMappingModels: Bool = true) throws -> NSPersistentStore {
        let backendType = try StoreRegistry.shared.backendType(for: type)
        try managedObjectModel.checkCompositeAttributes()
        if let configuration, configuration != "PF_DEFAULT_CONFIGURATION_NAME",
           managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "The model has no configuration named \"\(configuration)\".")
        }
        if let url, let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager {
            try staged.migrateStore(at: url, type: type, options: options ?? [:], to: managedObjectModel)
        }
        var migrationSource: ModelVersion?
        if let url, usesMappingModels {
            migrationSource = try migrateWithMappingModelIfNeeded(type: type, backend: backendType, configuration: configuration, url: url, options: options ?? [:])
        }
        lock.lock()
        defer { lock.unlock() }
        // A store type that keeps no files at a file URL (in-memory, SQLite at /dev/null) may be added there
        // twice; a URL that is not a file's names a place of its own (a database server's store), which may not.
        if let url, !backendType.storeFiles(at: url).isEmpty || !url.isFileURL,
           stores.contains(where: { $0.url.map { Self.sameLocation($0, url) } ?? false }) {
            throw CoreDataError.operation("The store at \(url.isFileURL ? url.path : url.absoluteString) is already added to this coordinator.")
        }
        var request = StoreOpenRequest(model: managedObjectModel, configurationName: configuration, url: url, options: options ?? [:])
        request.migrationSource = migrationSource
        // A derivation no store computes, or a store that computes none, fails the add, as Apple's does.
        let derivations = try DerivedAttributeDerivation.derivations(in: request.entities)
        if !derivations.isEmpty, !(backendType is DerivedAttributeComputing.Type) {
            throw CoreDataError.unsupported("the \(type) store does not compute derived attributes, and the model has \(derivations.map { "\($0.attribute.entity?.name ?? "").\($0.attribute.name)" }.joined(separator: ", "))")
        }
        let backend = try backendType.init(request)
        let store = NSPersistentStore(backend: backend, type: type, configurationName: configuration, url: url, options: options)
        store.persistentStoreCoordinator = self
        stores.append(store)
        if let url, !backendType.storeFiles(at: url).isEmpty { OpenStoreFiles.shared.add(store, at: url) }
        store.remoteChangeWatcher = RemoteChangeWatcher.start(for: store)
        return store
    }

    /// Removes a store; its objects can no longer be fetched or saved through this coordinator.
    /// - Throws: 134070 when the store is not added to this coordinator.
    open func remove(_ store: NSPersistentStore) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let index = stores.firstIndex(where: { $0 === store }) else {
            throw CoreDataError.operation("The store \(store) is not added to this coordinator.")
        }
        stores.remove(at: index)
        rowCache.forgetAll(in: store)
        queryGenerations.release(store)
        store.remoteChangeWatcher?.stop()
        store.remoteChangeWatcher = nil
        store.backend.close()
        store.persistentStoreCoordinator = nil
        if let url = store.url { OpenStoreFiles.shared.remove(store, at: url) }
    }

    /// The added store at `url`, or nil.
    open func persistentStore(for url: URL) -> NSPersistentStore? {
        lock.lock()
        defer { lock.unlock() }
        return stores.first { $0.url.map { Self.sameLocation($0, url) } ?? false }
    }

    /// The location of `store` (Apple's `url(for:)`): the URL it was added with, or `/dev/null` for a store added
    /// without one (an in-memory store; Apple's documentation does not say what it gives, and `/dev/null` is its
    /// conventional URL of a store with no file).
    open func url(for store: NSPersistentStore) -> URL {
        store.url ?? URL(fileURLWithPath: "/dev/null")
    }

    /// Changes the location of `store` (Apple's `setURL(_:for:)`); true when it moved.
    ///
    /// As Apple documents: an atomic store (XML, binary) writes its next save at `url`, replacing what is there;
    /// a SQLite store gives up its connection and opens the store at `url`, which must already exist; here it
    /// must also be a copy of this store (the same `NSStoreUUID` and tables), since the contexts' objects belong
    /// to it. The in-memory store only takes the new URL. False, with the store unchanged and still where it
    /// was, when `store` is not added to this coordinator, another of its stores is at `url`, the store's type
    /// cannot move (➕ PostgreSQL, a type not adopting `StoreRelocating`), or the store refuses `url`.
    @discardableResult
    open func setURL(_ url: URL, for store: NSPersistentStore) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard stores.contains(where: { $0 === store }), let relocating = store.backend as? StoreRelocating,
              !stores.contains(where: { $0 !== store && $0.url.map { Self.sameLocation($0, url) } ?? false }) else { return false }
        do {
            try relocating.relocate(to: url)
        } catch {
            return false
        }
        rowCache.forgetAll(in: store)
        let hasFiles = !type(of: store.backend).storeFiles(at: url).isEmpty
        if let old = store.url, hasFiles { OpenStoreFiles.shared.remove(store, at: old) }
        store.url = url
        if hasFiles { OpenStoreFiles.shared.add(store, at: url) }
        return true
    }

    /// Whether two store URLs name one place: file URLs after standardizing their paths, others as written.
    static func sameLocation(_ first: URL, _ second: URL) -> Bool {
        guard first.isFileURL, second.isFileURL else { return first.absoluteString == second.absoluteString }
        return first.standardizedFileURL == second.standardizedFileURL
    }

    // MARK: Metadata

    /// The metadata of an added store, including changes made with `setMetadata(_:for:)`.
    open func metadata(for store: NSPersistentStore) -> [String: Any] {
        lock.lock()
        defer { lock.unlock() }
        return store.metadata
    }

    /// Replaces an added store's metadata; written with the next save. `NSStoreType` and `NSStoreUUID` are kept.
    open func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        lock.lock()
        defer { lock.unlock() }
        var updated = metadata ?? [:]
        updated[NSStoreTypeKey] = store.backend.metadata[NSStoreTypeKey]
        updated[NSStoreUUIDKey] = store.backend.metadata[NSStoreUUIDKey]
        store.metadata = updated
    }

    /// The metadata of the store file at `url`, read without adding it.
    /// - Throws: 134000 for an unregistered type or a file of another type, 260 when there is no file.
    open class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL,
                                               options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try StoreRegistry.shared.backendType(for: type.rawValue).metadataForStore(at: url, options: options)
    }

    /// Apple's older spelling of `metadataForPersistentStore(type:at:options:)`.
    open class func metadataForPersistentStore(ofType storeType: String, at url: URL,
                                               options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try StoreRegistry.shared.backendType(for: storeType).metadataForStore(at: url, options: options)
    }

    /// Replaces the metadata of the store file at `url` without adding it, as the store type writes it
    /// (`NSStoreUUIDKey` and `NSStoreTypeKey` keep the file's values when `metadata` lacks them).
    /// - Throws: 134000 for an unregistered type or a file of another type, 260 when there is no file, 134091
    ///   for a store type that cannot write metadata without being added (the XML, binary and in-memory
    ///   stores: add the store and use `setMetadata(_:for:)` with a save instead).
    open class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL,
                                options: [AnyHashable: Any]? = nil) throws {
        let backend = try StoreRegistry.shared.backendType(for: storeType)
        guard let writer = backend as? StoreMetadataWriting.Type else {
            throw CoreDataError.unsupported("setting the metadata of a \(storeType) store without adding it; add the store, call setMetadata(_:for:) and save")
        }
        try writer.setMetadata(metadata, forStoreAt: url, options: options)
    }

    // MARK: Object IDs

    /// The object ID a URI from `NSManagedObjectID.uriRepresentation()` names, or nil when no added store,
    /// entity or key matches it. Temporary IDs' URIs give nil.
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host, !host.isEmpty else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count == 2, let entity = managedObjectModel.entitiesByName[parts[0]],
              parts[1].hasPrefix("p"), let primaryKey = Int64(parts[1].dropFirst()), primaryKey > 0 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let store = stores.first(where: { $0.identity.identifier == host }) else { return nil }
        return store.objectID(for: ObjectKey(entityNumber: entity.entityNumber, primaryKey: primaryKey), entity: entity)
    }

    /// The store holding the object with this ID, for contexts.
    func store(for objectID: NSManagedObjectID) -> NSPersistentStore? {
        guard let store = objectID.storeIdentity?.handle as? NSPersistentStore, store.persistentStoreCoordinator === self else { return nil }
        return store
    }

    // MARK: Serialized access

    /// Runs `block` while holding the coordinator's lock.
    open func performAndWait(_ block: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        block()
    }

    /// Runs `block` on a background queue while holding the coordinator's lock.
    open func perform(_ block: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { [self] in
            lock.lock()
            defer { lock.unlock() }
            block()
        }
    }
}

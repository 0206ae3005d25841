/// Whole stores as files: destroying one, replacing one with a copy of another, and moving a store's contents
/// to a new location or store type.
extension NSPersistentStoreCoordinator {
    // MARK: Destroying

    /// Destroys the store of `type` at `url`, so that adding a store there makes a new, empty one: every file
    /// the store type keeps is deleted, except that a SQLite database file is truncated to zero bytes and left
    /// in place, as Apple's (its log, shared-memory index and external data folder are deleted). A store at
    /// `url` added to this coordinator is removed from it first. Destroying a store that does not exist does
    /// nothing.
    /// - Throws: 134000 for an unregistered type; a file error when a file cannot be deleted.
    public func destroyPersistentStore(at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyStore(at: url, type: type.rawValue)
    }

    /// Apple's older spelling of `destroyPersistentStore(at:type:options:)`.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        try destroyStore(at: url, type: storeType)
    }

    private func destroyStore(at url: URL, type: String) throws {
        let backendType = try StoreRegistry.shared.backendType(for: type)
        if let added = persistentStore(for: url) { try remove(added) }
        if !backendType.storeFiles(at: url).isEmpty, OpenStoreFiles.shared.isOpen(url) {
            throw CoreDataError.operation("The store at \(url.path) is added to another coordinator; remove it there before destroying it.")
        }
        try backendType.destroyStore(at: url)
    }

    // MARK: Replacing

    /// Makes the store at `destinationURL` a copy of the store at `sourceURL` (both of `type`): every file of
    /// the source is copied over, and the destination's files the source lacks are deleted.
    /// - Throws: 134000 for an unregistered type or a source that is not a store of `type`, 260 when there is
    ///   no source, 134070 when the destination is added to this coordinator.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                     withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                     type: NSPersistentStore.StoreType) throws {
        try replaceStore(at: destinationURL, from: sourceURL, sourceOptions: sourceOptions, type: type.rawValue)
    }

    /// Apple's older spelling of `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                     withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                     ofType storeType: String) throws {
        try replaceStore(at: destinationURL, from: sourceURL, sourceOptions: sourceOptions, type: storeType)
    }

    private func replaceStore(at destination: URL, from source: URL, sourceOptions: [AnyHashable: Any]?, type: String) throws {
        let backendType = try StoreRegistry.shared.backendType(for: type)
        if persistentStore(for: destination) != nil || (!backendType.storeFiles(at: destination).isEmpty && OpenStoreFiles.shared.isOpen(destination)) {
            throw CoreDataError.operation("The store at \(destination.path) is added to a coordinator; remove it before replacing it.")
        }
        _ = try backendType.metadataForStore(at: source, options: sourceOptions)
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        for (from, to) in zip(backendType.storeFiles(at: source), backendType.storeFiles(at: destination)) {
            do {
                if fileManager.fileExists(atPath: from.path) {
                    // Copied beside the target, then moved over it, so each file is either old or new.
                    let staging = to.deletingLastPathComponent().appendingPathComponent(".\(to.lastPathComponent).replacing-\(UUID().uuidString)")
                    try fileManager.copyItem(at: from, to: staging)
                    if fileManager.fileExists(atPath: to.path) { try fileManager.removeItem(at: to) }
                    try fileManager.moveItem(at: staging, to: to)
                } else if fileManager.fileExists(atPath: to.path) {
                    try fileManager.removeItem(at: to)
                }
            } catch {
                throw CoreDataError.make(NSFileWriteUnknownError, "Could not replace \(to.path) with \(from.path): \(error.localizedDescription)",
                                         userInfo: [NSFilePathErrorKey: to.path, NSUnderlyingErrorKey: error])
            }
        }
    }

    // MARK: Migrating

    /// Copies everything `store` holds into a new store of `type` at `url`, removes `store` from the
    /// coordinator, and returns the new store, which is added in its place. The new store numbers the objects
    /// itself, so object IDs change: contexts must fetch their objects again.
    ///
    /// Nothing changes when it fails: the new store's files are deleted and `store` stays added.
    /// - Throws: 134070 when `store` is not added here or a file already exists at `url`; the errors of adding
    ///   a store and of saving.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                     type: NSPersistentStore.StoreType) throws -> NSPersistentStore {
        try migrateStore(store, to: url, options: options, type: type.rawValue)
    }

    /// Apple's older spelling of `migratePersistentStore(_:to:options:type:)`.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                     withType storeType: String) throws -> NSPersistentStore {
        try migrateStore(store, to: url, options: options, type: storeType)
    }

    private func migrateStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]?, type: String) throws -> NSPersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.operation("The store to migrate is not added to this coordinator.")
        }
        let backendType = try StoreRegistry.shared.backendType(for: type)
        if backendType.storeFiles(at: url).contains(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            throw CoreDataError.operation("A file already exists at \(url.path); migrating a store never overwrites one.")
        }
        let configuration = store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
        let target = try addPersistentStore(ofType: type, configurationName: configuration, at: url, options: options)
        do {
            try withLock { try copyContents(of: store.backend, into: target.backend) }
        } catch {
            try? remove(target)
            for file in backendType.storeFiles(at: url) { try? FileManager.default.removeItem(at: file) }
            throw error
        }
        try remove(store)
        return target
    }

    /// Whether the store of `backend` holds objects of `root`'s hierarchy (its configuration's entities).
    private func holds(_ root: NSEntityDescription, _ backend: PersistentStoreBackend) -> Bool {
        guard let store = persistentStores.first(where: { $0.backend === backend }) else { return false }
        var stack = [root]
        while let entity = stack.popLast() {
            if store.holds(entity) { return true }
            stack += entity.subentities
        }
        return false
    }

    /// Writes every row, relationship and user metadata key of `source` into the empty store `target`, in one
    /// save. Keys are allocated by `target` (its numbering may differ), and every reference is mapped to them.
    private func copyContents(of source: PersistentStoreBackend, into target: PersistentStoreBackend) throws {
        var rows: [StoreRow] = []
        var newKeys: [ObjectKey: ObjectKey] = [:]
        for root in managedObjectModel.entities where root.superentity == nil && holds(root, source) {
            let request = StoreFetchRequest(entity: root, includesSubentities: true, predicate: nil, result: .rows)
            guard case .rows(let found) = try source.fetch(request), !found.isEmpty else { continue }
            let keys = try target.allocatePrimaryKeys(for: root, count: found.count)
            guard keys.count == found.count else {
                throw CoreDataError.saveFailed("the new store gave \(keys.count) keys for \(found.count) objects")
            }
            for (row, key) in zip(found, keys) { newKeys[row.key] = ObjectKey(entityNumber: row.key.entityNumber, primaryKey: key) }
            rows += found
        }
        func mapped(_ key: ObjectKey) -> ObjectKey? { newKeys[key] }
        var changes = StoreChangeSet()
        changes.inserted.reserveCapacity(rows.count)
        for row in rows {
            guard let key = mapped(row.key) else { continue }
            changes.inserted.append(StoreRow(key: key, version: 0, values: row.values.map { value in
                if let reference = value as? ObjectKey { return mapped(reference) }
                return value
            }))
            // Both sides of every relationship, as a save gives them: the store keeps what it needs.
            guard let entity = managedObjectModel.entity(withNumber: row.key.entityNumber) else { continue }
            for case let relationship as NSRelationshipDescription in entity.layout.allProperties where relationship.isToMany && !relationship.isTransient {
                let destinations = try source.relatedKeys(of: row.key, through: relationship).compactMap(mapped)
                if !destinations.isEmpty { changes.toManyChanges.append(ToManyChange(owner: key, relationship: relationship, destinations: destinations)) }
            }
        }
        let userMetadata = source.metadata.filter { !$0.key.hasPrefix("NSStore") && !$0.key.hasPrefix("NSPersistence") && !$0.key.hasPrefix("_NS") }
        if !userMetadata.isEmpty { changes.metadata = target.metadata.merging(userMetadata) { _, user in user } }
        if !changes.isEmpty { _ = try target.save(changes) }
    }
}

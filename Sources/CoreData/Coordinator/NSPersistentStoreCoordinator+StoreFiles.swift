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
    /// the source is copied over, and the destination's files the source lacks are deleted. A store type with no
    /// files (➕ PostgreSQL) copies the store itself (`StoreReplacing`).
    /// - Throws: 134000 for an unregistered type or a source that is not a store of `type`, 260 when there is
    ///   no source, 134070 when the destination is added to this coordinator.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                     withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                     type: NSPersistentStore.StoreType) throws {
        try replaceStore(at: destinationURL, destinationOptions: destinationOptions, from: sourceURL, sourceOptions: sourceOptions, type: type.rawValue)
    }

    /// Apple's older spelling of `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                     withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                     ofType storeType: String) throws {
        try replaceStore(at: destinationURL, destinationOptions: destinationOptions, from: sourceURL, sourceOptions: sourceOptions, type: storeType)
    }

    private func replaceStore(at destination: URL, destinationOptions: [AnyHashable: Any]?, from source: URL,
                              sourceOptions: [AnyHashable: Any]?, type: String) throws {
        let backendType = try StoreRegistry.shared.backendType(for: type)
        if persistentStore(for: destination) != nil || (!backendType.storeFiles(at: destination).isEmpty && OpenStoreFiles.shared.isOpen(destination)) {
            throw CoreDataError.operation("The store at \(destination.path) is added to a coordinator; remove it before replacing it.")
        }
        if let copier = backendType as? StoreReplacing.Type {
            return try copier.replaceStore(at: destination, destinationOptions: destinationOptions, withStoreFrom: source, sourceOptions: sourceOptions)
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
    /// `options` are the new store's, as in `addPersistentStore`: with `NSReadOnlyPersistentStoreOption` the copy
    /// is written first and the store returned is read-only (a backup copy, as apps make them); an in-memory
    /// store cannot be such a copy (134091).
    ///
    /// Nothing changes when it fails: the new store's files are deleted and `store` stays added.
    /// - Throws: 134070 when `store` is not added here or a file already exists at `url`; 134091 for a
    ///   read-only in-memory copy; the errors of adding a store and of saving.
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
        // A store that is not files (a database server's) exists when its metadata can be read.
        if backendType.storeFiles(at: url).isEmpty, !url.isFileURL, (try? backendType.metadataForStore(at: url, options: options)) != nil {
            throw CoreDataError.operation("A store already exists at \(url.absoluteString); migrating a store never overwrites one.")
        }
        let configuration = store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
        // A read-only store cannot be written: the copy is made writable, then added again as asked.
        let isReadOnly = storeOptionIsSet(options, NSReadOnlyPersistentStoreOption)
        var writingOptions = options
        writingOptions?.removeValue(forKey: NSReadOnlyPersistentStoreOption)
        var target = try addPersistentStore(ofType: type, configurationName: configuration, at: url, options: writingOptions)
        do {
            try copyContents(of: store, into: target)
            if isReadOnly {
                // An in-memory copy would be gone once removed, and a store cannot turn read-only while added.
                guard target.backend.capabilities.contains(.persistent) else {
                    throw CoreDataError.unsupported("a read-only copy in a \(type) store, which keeps nothing once removed")
                }
                try remove(target)
                target = try addPersistentStore(ofType: type, configurationName: configuration, at: url, options: options)
            }
        } catch {
            try? remove(target)
            for file in backendType.storeFiles(at: url) { try? FileManager.default.removeItem(at: file) }
            if backendType.storeFiles(at: url).isEmpty, !url.isFileURL { try? backendType.destroyStore(at: url) }
            throw error
        }
        try remove(store)
        return target
    }
}

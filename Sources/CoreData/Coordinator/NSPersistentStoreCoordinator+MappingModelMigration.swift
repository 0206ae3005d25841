/// Apple's automatic migration with a mapping model: a store added with `NSMigratePersistentStoresAutomaticallyOption`
/// whose version hashes do not match the coordinator's model is migrated with a mapping model found in the bundles
/// ("Core Data will attempt to locate the source and mapping models in the application bundles, and perform a
/// migration"), and only when there is none, inferred ("the coordinator will attempt to infer a mapping model if none
/// can be found", `NSInferMappingModelAutomaticallyOption`), by the store type's own lightweight migration.
extension NSPersistentStoreCoordinator {
    /// Migrates the file store of `type` at `url` with a mapping model from the bundles when the options ask for
    /// automatic migration and the store was saved with another model; called before the store is opened, so the
    /// store type's own lightweight migration runs only when no mapping model was found.
    ///
    /// The source model and the mapping model are looked for as `MigrationResourceSearch` describes, and the store
    /// is migrated in place by `NSMigrationManager` (custom policies, expressions and `FUNCTION($manager, …)` run),
    /// which builds the new store beside the old one and moves it into place, so a crash leaves the old store or
    /// the new one. The store file's exclusive lock (`StoreFileLock`) is held from the decision to the end of the
    /// migration, and the decision is made again once it is held, so two processes that add one old store at once
    /// migrate it once. Nothing happens for a store that does not exist yet, matches the model, is added
    /// read-only or with `NSIgnorePersistentStoreVersioningOption`, or has no files (in-memory, PostgreSQL: their
    /// own migration runs); a store of a named configuration is not migrated with a mapping model (the manager
    /// migrates whole stores).
    /// - Throws: without `NSInferMappingModelAutomaticallyOption`, 134130 (`NSMigrationMissingSourceModelError`)
    ///   when no model the store was saved with is found and 134140 (`NSMigrationMissingMappingModelError`) when
    ///   no mapping model is found, naming the models and where it looked; the migration manager's errors. The
    ///   store is then left as it was.
    /// - Returns: when the store is left to the store type's own lightweight migration, the model version it was
    ///   saved with if the search found one (`StoreOpenRequest.migrationSource`, for a store that reads its file
    ///   by position); nil otherwise.
    @discardableResult
    func migrateWithMappingModelIfNeeded(type: String, backend: PersistentStoreBackend.Type, configuration: String?,
                                         url: URL, options: [AnyHashable: Any]) throws -> ModelVersion? {
        guard storeOptionIsSet(options, NSMigratePersistentStoresAutomaticallyOption),
              !storeOptionIsSet(options, NSReadOnlyPersistentStoreOption),
              !storeOptionIsSet(options, NSIgnorePersistentStoreVersioningOption),
              url.isFileURL, let file = backend.storeFiles(at: url).first,
              FileManager.default.fileExists(atPath: file.path),
              storeMetadataNeedingMigration(type: type, backend: backend, configuration: configuration, url: url, options: options) != nil
        else { return nil }
        let lock = try StoreFileLock(exclusivelyLocking: file)
        defer { lock.unlock() }
        // Decided again under the lock: another process may have migrated the store while this one waited.
        guard let metadata = storeMetadataNeedingMigration(type: type, backend: backend, configuration: configuration, url: url, options: options) else { return nil }
        let infers = storeOptionIsSet(options, NSInferMappingModelAutomaticallyOption)
        let destination = Self.describe(managedObjectModel)
        if let configuration, configuration != "PF_DEFAULT_CONFIGURATION_NAME" {
            if infers { return nil }
            throw CoreDataError.make(NSMigrationMissingMappingModelError,
                                     "Can't find mapping model for migration: the store at \(url.path) of configuration \(configuration) was saved with another model than \(destination), and mapping models are not used for the stores of a named configuration; add it with NSInferMappingModelAutomaticallyOption.",
                                     userInfo: [NSURLErrorKey: url, "destinationModel": managedObjectModel])
        }
        let search = MigrationResourceSearch(model: managedObjectModel)
        guard let source = search.sourceModel(matching: metadata) else {
            if infers { return nil }
            throw CoreDataError.make(NSMigrationMissingSourceModelError,
                                     "Can't find model for source store: the store at \(url.path) was saved with a model none of these places holds: \(search.description).",
                                     userInfo: [NSURLErrorKey: url, "destinationModel": managedObjectModel])
        }
        let sourceName = "version \(source.name) of \(source.model.versionedPackageURL?.lastPathComponent ?? source.url.lastPathComponent)"
        guard let mapping = search.mappingModel(from: source.model, to: managedObjectModel) else {
            MigrationDebugLog.note("no mapping model from \(sourceName) to \(destination) was found in \(search.description)")
            if infers { return source }
            throw CoreDataError.make(NSMigrationMissingMappingModelError,
                                     "Can't find mapping model for migration: no mapping model from \(sourceName) (\(source.url.path)) to \(destination) is in \(search.description).",
                                     userInfo: [NSURLErrorKey: url, "sourceModel": source.model, "destinationModel": managedObjectModel])
        }
        MigrationDebugLog.note("will migrate the \(type) store at \(url.path) from \(sourceName) to \(destination) with a mapping model found in the bundles")
        var plain = options
        for key in [NSMigratePersistentStoresAutomaticallyOption, NSInferMappingModelAutomaticallyOption,
                    NSPersistentStoreStagedMigrationManagerOptionKey] { plain[key] = nil }
        let manager = NSMigrationManager(sourceModel: source.model, destinationModel: managedObjectModel)
        try manager.migrateStore(from: url, sourceType: type, options: plain, with: mapping,
                                 toDestinationURL: url, destinationType: type, destinationOptions: plain)
        return nil
    }

    /// The metadata of the store at `url` when it records a model other than the coordinator's (for the store's
    /// entities); nil when it matches, or cannot be read or is another type's (opening the store then reports why).
    private func storeMetadataNeedingMigration(type: String, backend: PersistentStoreBackend.Type, configuration: String?, url: URL,
                                               options: [AnyHashable: Any]) -> [String: Any]? {
        guard let metadata = try? backend.metadataForStore(at: url, options: options),
              (metadata[NSStoreTypeKey] as? String).map({ $0 == type }) ?? true else { return nil }
        let entities = managedObjectModel.entities(forConfigurationName: configuration) ?? managedObjectModel.entities
        guard case .different = ModelCompatibility.compare(metadata: metadata, entities: entities) else { return nil }
        return metadata
    }

    /// The coordinator's model as error messages name it.
    private static func describe(_ model: NSManagedObjectModel) -> String {
        let package = model.versionedPackageURL.map { " of \($0.lastPathComponent)" } ?? ""
        return "the coordinator's model\(package) (version checksum \(model.versionChecksum))"
    }
}

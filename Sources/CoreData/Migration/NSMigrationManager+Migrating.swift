#if canImport(Glibc)
import Glibc
#endif

/// Running a migration: opening the two stores, running the stages, and putting the new store in place.
extension NSMigrationManager {
    /// Migrates the store of `sourceType` at `sourceURL` (saved with `sourceModel`) into a new store of
    /// `destinationType` at `destinationURL` (for `destinationModel`), using `mapping`.
    ///
    /// The source store is opened read-only and never changed. The destination is built under a temporary name
    /// beside `destinationURL` (`.<name>.<UUID>.tmp`, which opening the store later removes if a crash left it)
    /// and moved into place only after everything saved, so a failure leaves no file at `destinationURL`.
    /// `destinationURL` may be `sourceURL`: the old store is then replaced only when the migration succeeded.
    /// Any two registered store types may be used, file stores or not (a store type without files is written in
    /// place, in its one save).
    /// - Throws: 134150 (`NSMigrationManagerSourceStoreError`) when the source store cannot be opened with the
    ///   source model; 134160 (`NSMigrationManagerDestinationStoreError`) when a store already exists at
    ///   another `destinationURL` or the destination cannot be created or put in place; what a policy, a
    ///   custom function or `cancelMigrationWithError(_:)` gives; 134110 (`NSMigrationError`) for anything
    ///   else (a failed save, with its error under `NSUnderlyingErrorKey`).
    public func migrateStore(from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
                           mapping: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
                           options destinationOptions: [AnyHashable: Any]? = nil) throws {
        try migrate(from: sourceURL, sourceType: sourceType.rawValue, sourceOptions: sourceOptions, mapping: mapping,
                    to: destinationURL, destinationType: destinationType.rawValue, destinationOptions: destinationOptions)
    }

    /// Apple's older spelling of `migrateStore(from:type:options:mapping:to:type:options:)`.
    /// - Throws: 134140 (`NSMigrationMissingMappingModelError`) without a mapping model; else as the newer spelling.
    public func migrateStore(from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
                           with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
                           destinationOptions dOptions: [AnyHashable: Any]? = nil) throws {
        guard let mappings else {
            throw CoreDataError.make(NSMigrationMissingMappingModelError, "The store at \(sourceURL.path) cannot be migrated without a mapping model.")
        }
        try migrate(from: sourceURL, sourceType: sStoreType, sourceOptions: sOptions, mapping: mappings,
                    to: dURL, destinationType: dStoreType, destinationOptions: dOptions)
    }

    private func migrate(from sourceURL: URL, sourceType: String, sourceOptions: [AnyHashable: Any]?, mapping: NSMappingModel,
                         to destinationURL: URL, destinationType: String, destinationOptions: [AnyHashable: Any]?) throws {
        reset()
        mappingModel = mapping
        let destinationBackend = try StoreRegistry.shared.backendType(for: destinationType)
        let inPlace = sourceURL.standardizedFileURL == destinationURL.standardizedFileURL
        if !inPlace, destinationBackend.storeFiles(at: destinationURL).contains(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            throw destinationError("a store already exists at \(destinationURL.path); a migration never overwrites another store")
        }
        let sourceStore = try openSource(at: sourceURL, type: sourceType, options: sourceOptions)
        defer { try? sourceContext.persistentStoreCoordinator?.remove(sourceStore) }
        let staging = destinationBackend.storeFiles(at: destinationURL).isEmpty ? destinationURL : Self.stagingURL(for: destinationURL)
        let destinationStore = try openDestination(at: staging, type: destinationType, options: destinationOptions)
        do {
            try sourceContext.performAndWait {
                try destinationContext.performAndWait {
                    try runStages()
                    try checkCancelled()
                    try saveDestination()
                }
            }
            try destinationContext.persistentStoreCoordinator?.remove(destinationStore)
            if staging != destinationURL {
                try sourceContext.persistentStoreCoordinator?.remove(sourceStore)
                try install(staging, at: destinationURL, backend: destinationBackend)
            }
            migrationProgress = 1
        } catch {
            try? destinationContext.persistentStoreCoordinator?.remove(destinationStore)
            if staging != destinationURL {
                for file in destinationBackend.storeFiles(at: staging) { try? FileManager.default.removeItem(at: file) }
            }
            throw Self.reported(error)
        }
    }

    /// The error a failed migration throws: Core Data's migration and store errors and what a policy threw
    /// as they are; a save's validation error wrapped in 134110.
    private static func reported(_ error: Error) -> Error {
        let error = error as NSError
        guard error.domain == NSCocoaErrorDomain else { return error }
        if (1024...2047).contains(error.code) || error.code == NSManagedObjectConstraintMergeError {
            return CoreDataError.make(NSMigrationError, "The store could not be migrated: the migrated objects do not save (\(error.localizedDescription))",
                                      userInfo: [NSUnderlyingErrorKey: error])
        }
        return error
    }

    private func destinationError(_ reason: String, underlying: Error? = nil) -> NSError {
        CoreDataError.make(NSMigrationManagerDestinationStoreError, "The migration's destination store failed: \(reason).",
                           userInfo: underlying.map { [NSUnderlyingErrorKey: $0] } ?? [:])
    }

    /// Adds the source store, read-only, to the source context's coordinator.
    private func openSource(at url: URL, type: String, options: [AnyHashable: Any]?) throws -> NSPersistentStore {
        var readOnly = options ?? [:]
        readOnly[NSReadOnlyPersistentStoreOption] = true
        readOnly[NSMigratePersistentStoresAutomaticallyOption] = nil
        readOnly[NSInferMappingModelAutomaticallyOption] = nil
        guard let coordinator = sourceContext.persistentStoreCoordinator else { throw CoreDataError.migrationFailed("the source context has no coordinator") }
        do {
            return try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: readOnly)
        } catch {
            throw CoreDataError.make(NSMigrationManagerSourceStoreError,
                                     "The migration's source store at \(url.path) cannot be opened with the source model: \((error as NSError).localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, NSURLErrorKey: url])
        }
    }

    /// Adds the new, empty destination store to the destination context's coordinator.
    private func openDestination(at url: URL, type: String, options: [AnyHashable: Any]?) throws -> NSPersistentStore {
        guard let coordinator = destinationContext.persistentStoreCoordinator else { throw CoreDataError.migrationFailed("the destination context has no coordinator") }
        var plain = options ?? [:]
        plain[NSMigratePersistentStoresAutomaticallyOption] = nil
        plain[NSInferMappingModelAutomaticallyOption] = nil
        do {
            return try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: plain)
        } catch {
            throw destinationError("the store at \(url.path) cannot be created (\((error as NSError).localizedDescription))", underlying: error)
        }
    }

    /// Saves every destination instance in one save.
    private func saveDestination() throws {
        guard destinationContext.hasChanges else { return }
        try destinationContext.save()
    }

    /// `.<name>.<UUID>.tmp` beside `url`: the name the stores use for work in progress, removed when a store
    /// at `url` is opened.
    static func stagingURL(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    }

    /// Moves the staged store over the destination: with the store type's own move when it has one
    /// (`StoreFileMoving`: the SQLite store folds both logs first, so a crash leaves the old store or the new
    /// one, whole); otherwise each file with one `rename` (which replaces a file in one step), the files after
    /// the first (log, index, support folder) before the main file, and a destination file the staged store
    /// lacks is deleted.
    private func install(_ staging: URL, at destination: URL, backend: PersistentStoreBackend.Type) throws {
        if let mover = backend as? StoreFileMoving.Type {
            do {
                return try mover.moveStore(from: staging, to: destination)
            } catch {
                throw destinationError("the new store could not be moved to \(destination.path)", underlying: error)
            }
        }
        let pairs = Array(zip(backend.storeFiles(at: staging), backend.storeFiles(at: destination)))
        for (from, to) in pairs.dropFirst() + pairs.prefix(1) {
            let fileManager = FileManager.default
            if fileManager.fileExists(atPath: from.path) {
                if rename(from.path, to.path) != 0 {
                    let reason = String(cString: strerror(errno))
                    throw destinationError("\(from.path) could not be moved to \(to.path) (\(reason))")
                }
            } else if fileManager.fileExists(atPath: to.path) {
                do { try fileManager.removeItem(at: to) } catch {
                    throw destinationError("the old \(to.path) could not be deleted", underlying: error)
                }
            }
        }
    }
}

/// Opening an atomic store: reading, checking, migrating and loading an existing file, or creating a new store.
extension AtomicStore {
    /// Reads the file at `url`, checks it is this type's and was saved with the request's model (or migrates
    /// it when the options allow a lightweight migration), loads its objects and computes the derived
    /// attributes (a file written elsewhere, or by a model without these derivations, gets them now).
    ///
    /// A migration holds the file's lock from reading to writing, so two processes opening an old store at
    /// once migrate it once; the second reads again what the first wrote.
    /// - Throws: 134000, 259, 134100 when the model differs and no migration is allowed, a migration's error.
    func openFile(at url: URL) throws {
        let request = openRequest
        var snapshot = try Self.readCheckedSnapshot(from: url, for: request)
        var verdict = Self.compatibility(of: snapshot, with: request)
        var migrationLock: StoreFileLock?
        defer { migrationLock?.unlock() }
        if case .different = verdict, request.allowsLightweightMigration, !request.isReadOnly {
            migrationLock = try StoreFileLock(exclusivelyLocking: url)
            snapshot = try Self.readCheckedSnapshot(from: url, for: request)
            verdict = Self.compatibility(of: snapshot, with: request)
        }
        let migrating = try needsMigration(verdict, url: url)
        let uuid = adoptMetadata(of: snapshot)
        let migration = AtomicLightweightMigration(entities: request.entities)
        try load(migrating ? migration.renamed(snapshot) : snapshot, migrating: migrating, url: url)
        if migrating { try migration.completeRequiredValues(Array(records.values)) }
        _ = computeDerivedValues(written: [], savedAt: Date(), remember: { _ in })
        metadata = ModelCompatibility.upgradingLegacy(metadata, storeType: Self.storeTypeName, entities: request.entities, model: request.model)
        if migrating { try finishMigration(of: url, uuid: uuid) }
    }

    /// Starts a new store: fresh metadata, and for a store with a URL its directory and first file.
    /// - Throws: 260 for a read-only store without a file; 512 when the directory cannot be created; a write error.
    func createStore() throws {
        let request = openRequest
        metadata = ModelCompatibility.metadata(storeType: Self.storeTypeName, uuid: UUID().uuidString,
                                               entities: request.entities, model: request.model)
        guard let url = request.url else { return }
        guard !request.isReadOnly else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path) to open read-only.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw CoreDataError.openFailed(url, reason: "its directory could not be created (\(error.localizedDescription))")
        }
        try writeFile()
    }

    /// The file's contents with names matched to the request's model, after checking the file is this type's.
    private static func readCheckedSnapshot(from url: URL, for request: StoreOpenRequest) throws -> AtomicStoreSnapshot {
        let snapshot = try matchNames(in: readSnapshot(from: url), to: request)
        if let storedType = snapshot.metadata[NSStoreTypeKey] as? String, storedType != storeTypeName {
            throw CoreDataError.notAStore(url, type: storeTypeName, reason: "its metadata says it is a \(storedType) store")
        }
        return snapshot
    }

    /// Whether the contents were saved with the request's model. `NSIgnorePersistentStoreVersioningOption`
    /// opens the file with the model in hand whatever hashes it records.
    private static func compatibility(of snapshot: AtomicStoreSnapshot, with request: StoreOpenRequest) -> ModelCompatibility.Verdict {
        storeOptionIsSet(request.options, NSIgnorePersistentStoreVersioningOption)
            ? .same : ModelCompatibility.compare(metadata: snapshot.metadata, entities: request.entities)
    }

    /// Whether the file must be migrated to the request's model.
    /// - Throws: 134100 when it was saved with another model and the options allow no lightweight migration.
    private func needsMigration(_ verdict: ModelCompatibility.Verdict, url: URL) throws -> Bool {
        guard case .different(let reason) = verdict else { return false }
        guard openRequest.allowsLightweightMigration else { throw CoreDataError.incompatibleModel(url, reason: reason) }
        MigrationDebugLog.note("will attempt automatic lightweight migration of the \(Self.storeTypeName) store at \(url.path): \(reason)")
        return true
    }

    /// Takes the file's metadata, with this store's type and the file's UUID (a new one when it has none),
    /// and returns that UUID.
    private func adoptMetadata(of snapshot: AtomicStoreSnapshot) -> String {
        let uuid = snapshot.metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString
        metadata = snapshot.metadata
        metadata[NSStoreTypeKey] = Self.storeTypeName
        metadata[NSStoreUUIDKey] = uuid
        return uuid
    }

    /// Records the request's model in the metadata and, unless the store is read-only, writes the migrated file.
    private func finishMigration(of url: URL, uuid: String) throws {
        let request = openRequest
        metadata = ModelCompatibility.metadata(storeType: Self.storeTypeName, uuid: uuid, entities: request.entities,
                                               model: request.model, keeping: metadata)
        if !request.isReadOnly { try writeFile() }
        MigrationDebugLog.note("migration of \(url.path) to the model with version checksum \(request.model.versionChecksum) completed successfully")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// Automatic lightweight migration of a SQLite store saved with another model, as Apple's inferred mapping
/// does it: entities, attributes and relationships are matched by name or `renamingIdentifier`; added ones
/// start empty (or with their default value), removed ones are dropped; keys (`Z_PK`, `Z_MAX`) are kept so
/// object IDs stay valid, while `Z_ENT` numbers follow the new model.
///
/// The old model is not needed: the store's own tables say what it holds (`SQLMigrationSource`, read by
/// `SQLiteMigrationSourceReader`), and the shared `SQLMigrationPlan` maps it onto the new model. When the
/// new model comes from a versioned package, the version the store was saved with is found by its hashes and
/// places each old property's column exactly, numbered columns of sibling entities included.
/// The new store is built in a file beside the old one (schema, then one `INSERT … SELECT` transaction from
/// the old file attached read-only), then moved over it with `rename`, so a crash leaves either the old store
/// or the new one. When anything fails the old file is left byte-for-byte as it was.
enum SQLiteMigration {
    /// Migrates the store at `url` to `schema` (the new model's, for the store's entities).
    /// - Throws: 134190 (`NSInferredMappingModelError`) for a change the inferred mapping cannot make,
    ///   naming the entity and property; 134110 (`NSMigrationError`) when the data does not fit the new model
    ///   (a required value missing) or a step fails.
    static func migrate(url: URL, request: StoreOpenRequest, schema: SQLSchema) throws {
        try rollBackUnfinishedTransaction(of: url)
        let source: SQLMigrationSource
        do {
            let connection = try SQLiteFileCheck.readOnlyConnection(url: url)
            defer { connection.close() }
            source = try SQLiteMigrationSourceReader.source(connection, url: url, package: request.model.versionedPackageURL)
        }
        MigrationDebugLog.note("will attempt automatic schema migration of the SQLite store at \(url.path) to the model with version checksum \(request.model.versionChecksum)")
        let plan = try SQLMigrationPlan(source: source, schema: schema, newQualifier: "main", oldQualifier: "old")
        MigrationDebugLog.note("inferred a mapping from the store's tables: \(plan.copies.count) copy statements, \(plan.checks.count) checks of required values")
        let temporary = temporaryURL(for: url)
        removeFile(temporary.path)
        let started = Date()
        do {
            try build(temporary, from: url, plan: plan, source: source, request: request, schema: schema)
            try SQLiteFileReplacement.move(temporary, over: url)
        } catch {
            removeFile(temporary.path)
            MigrationDebugLog.note("migration of \(url.path) failed and left the store as it was: \(error.localizedDescription)")
            throw CoreDataError.migrationFailed(error)
        }
        MigrationDebugLog.note("in-place migration of \(url.path) completed successfully in \(String(format: "%.2f", Date().timeIntervalSince(started))) seconds")
    }

    /// Rolls back a transaction a killed process left unfinished in the store at `url` (a hot `-journal`, as a
    /// killed copy into the file leaves it), which must be rolled back before the file can be read as a whole
    /// and must never outlive a file swap; the migration then starts from the store as it was before it.
    /// - Throws: 134110 naming the journal when it is still there afterwards (the file or its folder not
    ///   writable, or SQLite refusing it).
    private static func rollBackUnfinishedTransaction(of url: URL) throws {
        guard SQLiteFileCheck.rollBackUnfinishedTransaction(of: url) else { return }
        throw CoreDataError.make(NSMigrationError,
                                 "The store at \(url.path) has an unfinished transaction (\(url.path)-journal) that SQLite could not roll back; make the store and its folder writable and open it once with its current model, then migrate.",
                                 userInfo: [NSURLErrorKey: url])
    }

    /// Writes the migrated store into `temporary` and closes it, leaving no `-wal` beside it.
    private static func build(_ temporary: URL, from url: URL, plan: SQLMigrationPlan, source: SQLMigrationSource,
                              request: StoreOpenRequest, schema: SQLSchema) throws {
        let connection = try SQLiteConnection(path: temporary.standardizedFileURL.absoluteString,
                                              flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, uri: true)
        defer { connection.close() }
        SQLiteFunctions.register(on: connection)  // the derived attributes' triggers call them
        try connection.execute("PRAGMA page_size = 4096")
        try connection.execute("PRAGMA auto_vacuum = 2")
        try connection.execute("PRAGMA secure_delete = OFF")
        // The old file is read as the read-only check reads it: immutable when it has no log.
        try connection.run("ATTACH DATABASE ? AS old", [.text(SQLiteFileCheck.readOnlyURI(for: url))], cached: false)
        var metadata = source.metadata
        for key in ["NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey"] { metadata[key] = nil }
        metadata = ModelCompatibility.metadata(storeType: NSSQLiteStoreType, uuid: (source.metadata[NSStoreUUIDKey] as? String) ?? UUID().uuidString,
                                               entities: request.entities, model: request.model, keeping: metadata)
        try connection.transaction {
            try SQLiteStore.createSchema(on: connection, schema: schema, model: request.model, metadata: metadata)
            for statement in plan.copies + plan.repairs {
                try connection.run(statement.sql, statement.bindings, cached: false)
            }
            for check in plan.checks {
                let missing = try connection.query(check.statement.sql, check.statement.bindings, cached: false) { $0.int64(at: 0) }.first ?? 0
                if missing > 0 { throw CoreDataError.missingRequiredValue(entity: check.entity, property: check.property, count: missing) }
            }
            // Created once the rows are in, then every derived value computed from them (as Apple's migration
            // runs its triggers' data statements).
            try SQLiteStore.createDerivedAttributeTriggers(on: connection, schema: schema, entities: request.entities, refreshing: true)
            for (entity, largest) in plan.largestKeys {
                try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(largest), .integer(Int64(entity))], cached: false)
            }
            try copyHistory(on: connection, source: source, plan: plan)
        }
        try connection.execute("DETACH DATABASE old")
        try connection.execute("PRAGMA journal_mode = WAL")
    }

    /// Migrates the store at `url` unless it already fits: `validate` (the store's check of the file against the
    /// model) decides, under the store file's exclusive lock, so a store that two processes (or two
    /// coordinators) open at once with a new model is migrated once: the second waits for the first and then
    /// finds the store migrated.
    /// - Returns: what `validate` returns for the store that fits the model.
    /// - Throws: as `migrate(url:request:schema:)`, and `validate`'s errors other than 134100.
    static func migrateUnlessMigrated<Validated>(url: URL, request: StoreOpenRequest, schema: SQLSchema,
                                                 validate: () throws -> Validated) throws -> Validated {
        try StoreFileLock.withExclusiveLock(on: url) {
            do {
                return try validate()
            } catch let error as NSError where error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreIncompatibleVersionHashError {
                MigrationDebugLog.note("the store at \(url.path) does not fit the model: \(error.localizedDescription)")
                try migrate(url: url, request: request, schema: schema)
                return try validate()
            }
        }
    }

    /// Removes the half-built database a migration killed part-way left beside `url`. When the store exists this
    /// is done under its lock, so a migration running in another process is never disturbed (it holds the lock
    /// until its file is in place).
    static func removeLeftover(of url: URL) {
        let temporary = temporaryURL(for: url)
        guard FileManager.default.fileExists(atPath: temporary.path) else { return }
        guard FileManager.default.fileExists(atPath: url.path) else { return removeFile(temporary.path) }
        try? StoreFileLock.withExclusiveLock(on: url) { removeFile(temporary.path) }
    }

    /// The name a migration builds its new database under: `.<store name>.migration`, beside the store.
    private static func temporaryURL(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migration")
    }

    /// Removes a half-built file and its SQLite companions.
    private static func removeFile(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }
}

import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// The SQLite store (`NSSQLiteStoreType`): rows kept in Apple's own schema, read and written row by row.
///
/// Guarantees:
/// - A store created here has the tables, columns, types and indexes Apple's Core Data creates for the same
///   model, and a store written by Apple opens here (its schema is checked against the model, since Apple's
///   version hashes cannot be recomputed).
/// - A file that fails to open (not SQLite, truncated, no Core Data tables, another model) is left
///   byte-for-byte as it was: it is checked through a read-only connection first.
/// - Each save is one `BEGIN IMMEDIATE` transaction; `Z_OPT` is checked for every update and deletion, so
///   two coordinators (or processes) on one file never silently overwrite each other.
/// - Values are always bound as parameters; identifiers come from the model and are quoted when needed.
/// - A new store is created whole: built under a temporary name and moved into place, so a crash leaves no
///   store or a complete one; an open that may write removes the temporary files such a crash left.
public final class SQLiteStore: PersistentStoreBackend, BatchUpdating, BatchInserting, LightweightMigrating, DerivedAttributeComputing, SQLRowSource {
    /// The request the store was opened with.
    public let openRequest: StoreOpenRequest
    public internal(set) var metadata: [String: Any]
    public var capabilities: StoreCapabilities {
        isInMemoryDatabase ? [] : [.persistsToFile, .persistent, .sharedBetweenCoordinators]
    }
    /// Whether the store's URL is `/dev/null`: the database then lives in memory, private to this store, and
    /// nothing is written to any file (Apple's convention for in-memory SQLite stores in tests and previews).
    var isInMemoryDatabase: Bool { Self.isInMemoryDatabase(url) }

    static func isInMemoryDatabase(_ url: URL) -> Bool { url.standardizedFileURL.path == "/dev/null" }

    /// The database file: where the store was opened, or where it was relocated to (`relocate(to:)`).
    var url: URL
    /// The model the store was opened with.
    public let model: NSManagedObjectModel
    /// The model's entities in the file's tables, under the file's names and `Z_ENT` numbers (read when an
    /// existing file is opened; derived from the model for a new store).
    let schema: SQLSchema
    var connection: SQLiteConnection
    let isReadOnly: Bool
    /// Per concrete entity: how its rows are read and written.
    var plans: [Int32: SQLiteRowPlan] = [:]
    /// Whether any entity of the store has uniqueness constraints; without any, a save skips clearing
    /// constrained values (`clearConstrainedValues(of:)`) without a look-up per row.
    let hasUniquenessConstraints: Bool
    /// Whether the file had Apple's persistent-history tables when it was opened.
    var fileHasHistory = false
    /// UPDATE statements' SQL by shape, so a save does not rebuild the text for every row.
    var updateSQL: [UpdateShape: String] = [:]
    /// The query generations the store opened and that are still alive (`SQLiteStore+QueryGenerations.swift`),
    /// closed with the store.
    let generations = SQLiteGenerations()

    public init(_ request: StoreOpenRequest) throws {
        guard let url = request.url, url.isFileURL else {
            throw CoreDataError.openFailed(request.url, reason: "the SQLite store needs a file URL")
        }
        openRequest = request
        self.url = url
        model = request.model
        isReadOnly = request.isReadOnly
        hasUniquenessConstraints = request.entities.contains { $0.layout.hasUniquenessConstraints }
        // The names of a new store: derived from the model.
        let derived = SQLSchema(model: request.model, entities: request.entities, dialect: SQLiteDialect())
        let path = url.path
        if !Self.isInMemoryDatabase(url) && !request.isReadOnly {
            Self.removeCreationLeftovers(of: url)
            SQLiteMigration.removeLeftover(of: url)
            // A new store is built beside the file and moved into place whole (SQLiteStore+Creating.swift).
            if (Self.fileSize(path) ?? 0) == 0 { try Self.createFile(at: url, request: request, schema: derived) }
        }
        let size = Self.fileSize(path)
        if Self.isInMemoryDatabase(url) {
            schema = derived
            connection = try Self.openConnection(path: ":memory:", readOnly: false, options: request.options, creating: true)
            metadata = ModelCompatibility.metadata(storeType: NSSQLiteStoreType, uuid: UUID().uuidString,
                                                   entities: request.entities, model: request.model)
            try createSchema()
        } else if let size, size > 0 {
            try SQLiteFileCheck.checkHeader(at: url, size: size)
            // Check everything through a connection that cannot write, before opening for real; the schema
            // takes the file's names.
            do {
                (metadata, schema) = try Self.validate(url: url, request: request)
            } catch let error as NSError where error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreIncompatibleVersionHashError
                        && request.allowsLightweightMigration && !request.isReadOnly {
                // Saved with another model, and the options ask for an inferred migration (SQLiteMigration),
                // which writes a new store with the derived names, unless another process migrates it first.
                (metadata, schema) = try SQLiteMigration.migrateUnlessMigrated(url: url, request: request, schema: derived) {
                    try SQLiteStore.validate(url: url, request: request)
                }
            }
            metadata = ModelCompatibility.upgradingLegacy(metadata, storeType: NSSQLiteStoreType, entities: request.entities,
                                                          model: request.model)
            connection = try Self.openConnection(path: path, readOnly: request.isReadOnly, options: request.options)
        } else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(path) to open read-only.",
                                     userInfo: [NSFilePathErrorKey: path])
        }
        for entity in model.entitiesInStoreOrder {
            if let table = schema.table(for: entity) { plans[entity.entityNumber] = SQLiteRowPlan(entity: entity, table: table, schema: schema) }
        }
        if !isReadOnly, size != nil { try addMissingDerivedAttributeTriggers() }
        fileHasHistory = (try? connection.tableExists("ATRANSACTION")) ?? false
        if recordsHistory { try createHistoryTablesIfNeeded() }
    }

    /// The database, its rollback journal, write-ahead log and shared-memory index, and the folder of
    /// externally stored binary data (`.<name>_SUPPORT`, as Apple's).
    public static func storeFiles(at url: URL) -> [URL] {
        if isInMemoryDatabase(url) { return [] }
        let support = url.deletingLastPathComponent().appendingPathComponent("." + url.deletingPathExtension().lastPathComponent + "_SUPPORT")
        return [url] + ["-journal", "-wal", "-shm"].map { URL(fileURLWithPath: url.path + $0) } + [support]
    }

    /// Truncates the database file to zero bytes, leaving it in place as Apple's does (a store added there
    /// later is new), and deletes its journal, log, shared-memory index and external data folder.
    public static func destroyStore(at url: URL) throws {
        let files = storeFiles(at: url)
        guard let database = files.first else { return }
        if FileManager.default.fileExists(atPath: database.path) {
            do {
                let handle = try FileHandle(forWritingTo: database)
                defer { try? handle.close() }
                try handle.truncate(atOffset: 0)
                try handle.synchronize()
            } catch {
                throw CoreDataError.make(NSFileWriteUnknownError, "Could not truncate \(database.path) while destroying the store: \(error.localizedDescription)",
                                         userInfo: [NSFilePathErrorKey: database.path, NSUnderlyingErrorKey: error])
            }
        }
        for file in files.dropFirst() where FileManager.default.fileExists(atPath: file.path) {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw CoreDataError.make(NSFileWriteUnknownError, "Could not delete \(file.path) while destroying the store: \(error.localizedDescription)",
                                         userInfo: [NSFilePathErrorKey: file.path, NSUnderlyingErrorKey: error])
            }
        }
    }

    public static func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        let path = url.path
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(path).", userInfo: [NSFilePathErrorKey: path])
        }
        try SQLiteFileCheck.checkHeader(at: url, size: size)
        let connection = try SQLiteFileCheck.readOnlyConnection(url: url)
        defer { connection.close() }
        return try readMetadata(connection, url: url)
    }

    public func close() {
        generations.closeAll()
        connection.close()
    }

    deinit { close() }

    // MARK: Opening

    /// `NSPersistentStoreTimeoutOption` in seconds, 30 when the options do not set it.
    static func busyTimeout(_ options: [AnyHashable: Any]) -> Double {
        (options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? (options[NSPersistentStoreTimeoutOption] as? Double) ?? 30
    }

    /// Opens the connection the store uses, with Apple's settings: WAL unless the pragmas option says
    /// otherwise, the busy timeout from `NSPersistentStoreTimeoutOption` (30 s by default), the functions
    /// Apple's triggers call, and secure delete off.
    static func openConnection(path: String, readOnly: Bool, options: [AnyHashable: Any], creating: Bool = false) throws -> SQLiteConnection {
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (creating ? SQLITE_OPEN_CREATE : 0))
        let connection = readOnly && storeOptionIsSet(options, leavesFilesUntouchedOption)
            ? try untouchedConnection(path: path) : try SQLiteConnection(path: path, flags: flags)
        if let handle = connection.handle { sqlite3_busy_timeout(handle, Int32(max(0, min(busyTimeout(options), 86_400)) * 1000)) }
        SQLiteFunctions.register(on: connection)
        var pragmas: [String: String] = [:]
        for (key, value) in (options[NSSQLitePragmasOption] as? [AnyHashable: Any]) ?? [:] {
            guard let name = key as? String else { continue }
            pragmas[name.lowercased()] = try pragmaValue(value, name: name)
        }
        if creating {
            try connection.execute("PRAGMA page_size = 4096")
            try connection.execute("PRAGMA auto_vacuum = 2")
        }
        if !readOnly {
            try connection.execute("PRAGMA journal_mode = \(pragmas.removeValue(forKey: "journal_mode") ?? "WAL")")
        } else {
            pragmas["journal_mode"] = nil
        }
        try connection.execute("PRAGMA secure_delete = \(pragmas.removeValue(forKey: "secure_delete") ?? "OFF")")
        for (name, value) in pragmas.sorted(by: { $0.key < $1.key }) {
            try connection.execute("PRAGMA \(name) = \(value)")
        }
        return connection
    }

    /// A pragma value as SQL text: numbers and plain words only (pragmas take no bound parameters).
    private static func pragmaValue(_ value: Any, name: String) throws -> String {
        guard name.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 65 && $0 <= 90) || $0 == 95 }), !name.isEmpty else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "\"\(name)\" is not a SQLite pragma name.")
        }
        let text: String
        switch value {
        case let number as NSNumber: text = number.stringValue
        case let string as String: text = string
        default: text = String(describing: value)
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 122) || ($0 >= 65 && $0 <= 90) || $0 == 95 || $0 == 45 || $0 == 46 }) else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "The value \"\(text)\" of SQLite pragma \(name) is not a number or a word.")
        }
        return text
    }

    /// Checks an existing file through a read-only connection: Core Data's tables, the metadata, the model
    /// (by version hash, and by schema), and returns the metadata and the model's schema under the file's
    /// names (`SQLStoredSchema`, read from `Z_PRIMARYKEY`, `sqlite_master` and `pragma_table_info`).
    static func validate(url: URL, request: StoreOpenRequest) throws -> (metadata: [String: Any], schema: SQLSchema) {
        let connection = try SQLiteFileCheck.readOnlyConnection(url: url, busyTimeout: busyTimeout(request.options),
                                                                rollingBack: !request.isReadOnly)
        defer { connection.close() }
        let metadata = try readMetadata(connection, url: url)
        if let type = metadata[NSStoreTypeKey] as? String, type != NSSQLiteStoreType {
            throw CoreDataError.notAStore(url, type: NSSQLiteStoreType, reason: "its metadata says it is a \(type) store")
        }
        let stored = try SQLStoredSchema(reading: SQLiteMigrationSourceReader(connection: connection))
        let schema = SQLSchema(model: request.model, entities: request.entities, dialect: SQLiteDialect(), stored: stored)
        if storeOptionIsSet(request.options, NSIgnorePersistentStoreVersioningOption) { return (metadata, schema) }
        if case .different(let reason) = ModelCompatibility.compare(metadata: metadata, entities: request.entities) {
            throw CoreDataError.incompatibleModel(url, reason: reason + savedVersionNote(metadata, model: request.model))
        }
        try SQLiteSchemaCheck.check(schema: schema, model: request.model, url: url)
        return (metadata, schema)
    }

    /// For a model loaded from a versioned package: which of its versions the store was saved with, as a
    /// clause for the 134100 message (empty when none is, or the package cannot be read).
    private static func savedVersionNote(_ metadata: [String: Any], model: NSManagedObjectModel) -> String {
        guard let package = model.versionedPackageURL,
              let version = try? NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata) else { return "" }
        return "; the store was saved with version \(version.name) of \(package.lastPathComponent)"
    }

    /// The metadata in `Z_METADATA`, with `NSStoreType` and `NSStoreUUID` filled in.
    /// - Throws: 134000 when the file has no Core Data tables, 259 when the plist is damaged.
    static func readMetadata(_ connection: SQLiteConnection, url: URL) throws -> [String: Any] {
        for table in ["Z_METADATA", "Z_PRIMARYKEY"] where try !connection.tableExists(table) {
            throw CoreDataError.notAStore(url, type: NSSQLiteStoreType, reason: "it is a SQLite database without Core Data's \(table) table")
        }
        let rows = try connection.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") { ($0.string(at: 0), $0.data(at: 1)) }
        guard let (uuid, plist) = rows.first else {
            throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "Z_METADATA has no row")
        }
        var metadata: [String: Any] = [:]
        if let plist, !plist.isEmpty {
            guard BinaryPropertyListCheck.isWellFormed(plist),
                  let decoded = try? PropertyListSerialization.propertyList(from: plist, options: [], format: nil) as? [String: Any] else {
                throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "Z_METADATA.Z_PLIST is not a property list dictionary")
            }
            metadata = decoded
        }
        metadata[NSStoreTypeKey] = metadata[NSStoreTypeKey] ?? NSSQLiteStoreType
        metadata[NSStoreUUIDKey] = uuid ?? metadata[NSStoreUUIDKey]
        return metadata
    }

    // MARK: Creating

    private func createSchema() throws {
        try connection.transaction {
            try Self.createSchema(on: connection, schema: schema, model: model, metadata: metadata)
            try Self.createDerivedAttributeTriggers(on: connection, schema: schema, entities: openRequest.entities, refreshing: false)
        }
    }

    /// Gives a store made before its model's derived attributes had triggers (by an older version of this
    /// package) the triggers it lacks, and computes every derived value once. A store with them all (every store
    /// Apple's Core Data or this package made) is left alone. A store that lacks some has its other `Z_DA_…`
    /// triggers dropped first and made again, so an older version's own triggers (its `@sum`, `@min`, `@max` and
    /// many-to-many `@count`, now Apple's, partly under other names) never count a change twice.
    private func addMissingDerivedAttributeTriggers() throws {
        let derived = try SQLiteDerivedAttributeTriggers(schema: schema, entities: openRequest.entities)
        guard !derived.triggers.isEmpty else { return }
        let existing = Set(try connection.query("SELECT name FROM sqlite_master WHERE type = 'trigger'", cached: false) { $0.string(at: 0) ?? "" })
        guard derived.triggers.contains(where: { !existing.contains($0.name) }) else { return }
        try connection.transaction {
            for older in existing where older.hasPrefix("Z_DA_") {
                try connection.execute("DROP TRIGGER IF EXISTS \(q(older))")
            }
            try Self.createDerivedAttributeTriggers(on: connection, schema: schema, entities: openRequest.entities, refreshing: true)
        }
    }

    /// Creates the `Z_DA_…` triggers of the entities' derived attributes (`SQLiteDerivedAttributeTriggers`) that
    /// the database lacks, inside the caller's transaction, and with `refreshing` then sets every derived value
    /// from the rows already there (after a migration has copied them). The connection must have the store's
    /// SQL functions (`SQLiteFunctions`).
    /// - Throws: 134091 for a derivation Core Data does not support; SQLite errors (134180).
    static func createDerivedAttributeTriggers(on connection: SQLiteConnection, schema: SQLSchema, entities: [NSEntityDescription],
                                               refreshing: Bool) throws {
        let derived = try SQLiteDerivedAttributeTriggers(schema: schema, entities: entities)
        for trigger in derived.triggers { try connection.execute(trigger.sql) }
        if refreshing {
            for statement in derived.refreshStatements { try connection.execute(statement) }
        }
        connection.derivedChanges.removeAll()
    }

    /// Creates Core Data's tables, the schema's tables and indexes, one `Z_PRIMARYKEY` row per entity and the
    /// metadata row, inside the caller's transaction.
    static func createSchema(on connection: SQLiteConnection, schema: SQLSchema, model: NSManagedObjectModel,
                             metadata: [String: Any]) throws {
        try connection.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try connection.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try connection.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        if let cache = modelCacheContent(for: model) {
            try connection.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(cache)])
        }
        for statement in schema.createStatements { try connection.execute(statement) }
        for entity in model.entitiesInStoreOrder {
            try connection.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                               [.integer(schema.storedNumber(of: entity)), .text(entity.name.orEmpty),
                                .integer(entity.superentity.map { schema.storedNumber(of: $0) } ?? 0)])
        }
        try writeMetadata(metadata, on: connection)
    }

    /// Writes the metadata row: the UUID in `Z_UUID`, everything else as a binary plist in `Z_PLIST`.
    func writeMetadata(_ metadata: [String: Any]) throws {
        try Self.writeMetadata(metadata, on: connection)
    }

    /// Writes the metadata row through `connection`.
    static func writeMetadata(_ metadata: [String: Any], on connection: SQLiteConnection) throws {
        var entries = metadata
        entries["_NSAutoVacuumLevel"] = entries["_NSAutoVacuumLevel"] ?? "2"
        let row = try SQLMetadataRow(entries)
        try connection.run("DELETE FROM Z_METADATA")
        try connection.run("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", [.text(row.uuid), .blob(row.plist)])
    }

    // MARK: Keys

    /// Keys after the larger of `Z_PRIMARYKEY.Z_MAX` and the table's largest `Z_PK`, recorded in `Z_MAX` in
    /// one `BEGIN IMMEDIATE` transaction, so two coordinators never hand out the same key.
    /// - Throws: 259 when `Z_MAX` is not an integer up to `StoreNumberLimits.largestStoredNumber`; 134030 when
    ///   the keys would pass it, or for a read-only store.
    public func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        try checkWritable()
        let root = entity.rootEntity
        guard let table = schema.table(for: root) else {
            throw CoreDataError.operation("The entity \(entity.name.orEmpty) is not in this store's configuration.")
        }
        let number: SQLValue = .integer(schema.storedNumber(of: root))
        return try connection.transaction {
            let recorded = try connection.query("SELECT Z_MAX, typeof(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT = ?1", [number]) {
                ($0.string(at: 1) == "null" ? 0 : $0.int64(at: 0), $0.string(at: 1))
            }.first
            if let (_, type) = recorded, type != "integer", type != "null" {
                throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "Z_PRIMARYKEY.Z_MAX of \(root.name.orEmpty) is a \(type.orEmpty)")
            }
            let largestRow = try connection.query("SELECT IFNULL(MAX(Z_PK), 0) FROM \(q(table.name))") { $0.int64(at: 0) }.first ?? 0
            let last = max(recorded?.0 ?? 0, largestRow, 0)
            guard last <= StoreNumberLimits.largestStoredNumber else {
                throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "the last key given out for \(root.name.orEmpty) is \(last)")
            }
            guard let keys = StoreNumberLimits.keys(after: last, count: count) else {
                throw CoreDataError.saveFailed("the store at \(url.path) has no primary keys left for \(count) new \(entity.name.orEmpty) objects (the last given out is \(last))")
            }
            if recorded == nil {
                try connection.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?1, ?2, 0, ?3)",
                                   [number, .text(root.name.orEmpty), .integer(keys.upperBound)])
            } else {
                try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ?1 WHERE Z_ENT = ?2", [.integer(keys.upperBound), number])
            }
            return Array(keys)
        }
    }

    func checkWritable() throws {
        if isReadOnly { throw CoreDataError.saveFailed("the store at \(url.path) was added read-only") }
    }

    /// The row plan of the entity the model numbers `entityNumber` (a key's number).
    func plan(for entityNumber: Int32) -> SQLiteRowPlan? { plans[entityNumber] }

    /// The key of a row read with the store's `Z_ENT` and `Z_PK`: keys carry the model's entity numbers
    /// (0, no entity, for a `Z_ENT` the model does not have).
    func storedKey(entity number: Int64, primaryKey: Int64) -> ObjectKey {
        ObjectKey(entityNumber: schema.modelNumber(forStored: number), primaryKey: primaryKey)
    }
}

extension Optional where Wrapped == String {
    /// The string, or "" for nil.
    var orEmpty: String { self ?? "" }
}

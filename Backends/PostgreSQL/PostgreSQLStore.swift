import CoreDataSQL
import CoreDataStoreKit

/// The PostgreSQL store ➕: Apple's SQLite layout (`Z_PRIMARYKEY`, `Z_METADATA`, one table per root entity with
/// `Z_PK`, `Z_ENT`, `Z_OPT`, join tables) in a schema of a PostgreSQL database, so many app servers share
/// one store. The store URL is a connection URI, `postgresql://user@host:port/database?schema=name`.
///
/// Guarantees:
/// - A new store is created in one transaction: a crash or a lost connection leaves no tables or all of them,
///   and two servers creating the same store at once end with one store (the loser opens the winner's).
/// - Each save is one transaction. `Z_OPT` is checked for every update and deletion in the statement that
///   writes it, and PostgreSQL's row locks make a concurrent writer wait and then see the new version, so two
///   servers editing one object get a merge conflict (133020), never a lost update.
/// - Primary keys come from `Z_PRIMARYKEY.Z_MAX`, raised with one `UPDATE … RETURNING` in its own
///   transaction: no two processes are ever handed the same key.
/// - Uniqueness constraints are unique indexes; a violation is Apple's 133021.
/// - A lost connection fails the statement in flight with 134030 (writes) or 134070 (reads), with nothing
///   half-written; the next call reconnects.
/// - A store saved with another model is migrated in one transaction when the options ask for it
///   (`PostgreSQLStore+Migration.swift`): a failure leaves it as it was.
/// - Values are always parameters; identifiers come from the model (see `SQLSchema.quote`).
/// - Derived attributes are computed by the server, with Apple's `Z_DA_…` triggers as PL/pgSQL functions
///   (`PostgreSQLStore+DerivedAttributes.swift`), for every writer of the store; a save returns the values its
///   triggers changed.
public final class PostgreSQLStore: PersistentStoreBackend, BatchUpdating, BatchInserting, LightweightMigrating, DerivedAttributeComputing {
    /// The store type name the coordinator registers (`NSPersistentStore.StoreType.postgreSQL`).
    public static let storeType = NSPostgreSQLStoreType

    public internal(set) var metadata: [String: Any]
    public var capabilities: StoreCapabilities {
        [.persistent, .sharedBetweenCoordinators]
    }

    let url: URL?
    let location: PostgreSQLLocation
    /// The model the store's rows follow.
    public let model: NSManagedObjectModel
    let schema: SQLSchema
    let dialect = PostgreSQLDialect()
    let connection: PostgreSQLConnection
    let isReadOnly: Bool
    /// The `Z_DA_…` triggers of the model's derived attributes (none when it has none).
    let derivedTriggers: PostgreSQLDerivedAttributeTriggers
    /// Per concrete entity: how its rows are read and written.
    var plans: [Int32: PostgreSQLRowPlan] = [:]
    /// Tells this store's own save announcements from those of other connections.
    let connectionIdentity = UUID().uuidString
    /// Whether the connection listens on the store's channel (the remote-change option was set).
    var listening = false
    /// Saves announced by other connections.
    var remoteChanges = RemoteChangeLog()
    /// Whether the store's schema has the persistent-history tables (then every save records history).
    var historyTablesExist = false

    public init(_ request: StoreOpenRequest) throws {
        url = request.url
        location = try PostgreSQLLocation(url: request.url, options: request.options)
        model = request.model
        isReadOnly = request.isReadOnly
        schema = SQLSchema(model: request.model, entities: request.entities, dialect: dialect)
        derivedTriggers = try PostgreSQLDerivedAttributeTriggers(schema: schema, entities: request.entities, schemaName: location.schema,
                                                                 dialect: dialect)
        do {
            connection = try PostgreSQLConnection(parameters: location.connectionParameters, displayName: location.displayName)
        } catch let error as PostgreSQLError {
            throw CoreDataError.openFailed(request.url, reason: error.message)
        }
        for entity in model.entitiesInStoreOrder {
            if let table = schema.table(for: entity) { plans[entity.entityNumber] = PostgreSQLRowPlan(entity: entity, table: table) }
        }
        metadata = [:]
        metadata = try openOrCreate(request)
        try addMissingDerivedAttributeTriggers()
        let historyRequested = storeOptionIsSet(request.options, NSPersistentHistoryTrackingKey)
        try run("set up persistent history", writes: historyRequested && !isReadOnly) { try setUpHistory(requested: historyRequested) }
        try run("listen for remote changes", writes: false) { try listenIfAsked(request.options) }
    }

    /// Reads the store's metadata and checks the model, or creates the store when the schema has none.
    private func openOrCreate(_ request: StoreOpenRequest) throws -> [String: Any] {
        // Two servers may create the same store at once: the one whose transaction loses opens the winner's.
        for attempt in 1...3 {
            if let existing = try Self.readMetadata(connection, location: location, url: url) {
                return try compatibleMetadata(existing, request)
            }
            guard !isReadOnly else {
                throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no PostgreSQL store in \(location.displayName) to open read-only.",
                                         userInfo: url.map { [NSURLErrorKey: $0] } ?? [:])
            }
            let fresh = ModelCompatibility.metadata(storeType: Self.storeType, uuid: UUID().uuidString,
                                                    entities: request.entities, model: request.model)
            do {
                try create(metadata: fresh)
                return fresh
            } catch let error as PostgreSQLError {
                // Another server created the schema or tables first: read its store on the next round.
                guard error.kind == .server, attempt < 3 else { throw CoreDataError.openFailed(url, reason: error.message) }
            }
        }
        throw CoreDataError.openFailed(url, reason: "the store in \(location.displayName) could not be created or read")
    }

    /// `existing` when the store was saved with the request's model; otherwise, when the options ask for a
    /// lightweight migration and the store is writable, the metadata of the store migrated to the model.
    /// - Throws: 134100 (see `checkCompatible`); 134190 or 134110 when the migration fails.
    private func compatibleMetadata(_ existing: [String: Any], _ request: StoreOpenRequest) throws -> [String: Any] {
        do {
            try checkCompatible(existing, request)
            return existing
        } catch let error as NSError where error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreIncompatibleVersionHashError
                    && request.allowsLightweightMigration && !isReadOnly {
            let migrated = try migrate(request)
            try checkCompatible(migrated, request)
            return migrated
        }
    }

    /// 134100 when the store was saved with another model (unless versioning is ignored).
    private func checkCompatible(_ existing: [String: Any], _ request: StoreOpenRequest) throws {
        if let type = existing[NSStoreTypeKey] as? String, type != Self.storeType {
            throw CoreDataError.notAStore(url, type: Self.storeType, reason: "its metadata says it is a \(type) store")
        }
        if storeOptionIsSet(request.options, NSIgnorePersistentStoreVersioningOption) { return }
        if case .different(let reason) = ModelCompatibility.compare(metadata: existing, entities: request.entities) {
            throw CoreDataError.incompatibleModel(url, reason: reason)
        }
    }

    // MARK: Creating

    /// Creates the schema (if missing) and the store's tables (`createTables`), in one transaction.
    /// - Throws: `PostgreSQLError` as the server reports it (the caller retries a lost race).
    private func create(metadata: [String: Any]) throws {
        try connection.transaction {
            try connection.execute("CREATE SCHEMA IF NOT EXISTS \(location.schema)")
            try createTables(metadata: metadata)
            try installDerivedAttributeTriggers(refreshing: false)
        }
    }

    /// Creates Core Data's tables, the model's tables and indexes, one `Z_PRIMARYKEY` row per entity (with
    /// `Z_MAX` 0) and the metadata row, in the first schema of the search path, inside the caller's
    /// transaction. The metadata row is written first, so a schema holding any table of a half-built store
    /// also says whose it is.
    func createTables(metadata: [String: Any]) throws {
        try connection.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BYTEA)")
        try writeMetadata(metadata)
        try connection.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX BIGINT)")
        try connection.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BYTEA)")
        for statement in schema.createStatements { try connection.execute(statement) }
        for entity in model.entitiesInStoreOrder where schema.table(for: entity) != nil {
            try connection.query("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, $3, 0)",
                                 [String(entity.entityNumber), entity.name ?? "", String(entity.superentity?.entityNumber ?? 0)])
        }
    }

    // MARK: Metadata

    /// The metadata in `Z_METADATA`, with `NSStoreType` and `NSStoreUUID` filled in; nil when the schema holds
    /// no store. - Throws: 259 when the metadata row is missing or damaged.
    static func readMetadata(_ connection: PostgreSQLConnection, location: PostgreSQLLocation, url: URL?) throws -> [String: Any]? {
        let found: PostgreSQLResult
        do {
            let exists = try connection.query("SELECT to_regclass($1) IS NOT NULL, to_regclass($2) IS NOT NULL",
                                              ["\(location.schema).z_metadata", "\(location.schema).z_primarykey"])
            guard exists.text(0, 0) == "t" else { return nil }
            guard exists.text(0, 1) == "t" else {
                throw CoreDataError.notAStore(url, type: storeType, reason: "the schema \(location.schema) has Z_METADATA but no Z_PRIMARYKEY table")
            }
            found = try connection.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        } catch let error as PostgreSQLError {
            throw CoreDataError.openFailed(url, reason: error.message)
        }
        guard found.rowCount == 1 else {
            throw CoreDataError.corruptStore(url, type: storeType, reason: "Z_METADATA has no row")
        }
        var metadata: [String: Any] = [:]
        if let text = found.text(0, 1) {
            guard let plist = PostgreSQLText.bytes(text), plist.isEmpty || BinaryPropertyListCheck.isWellFormed(plist) else {
                throw CoreDataError.corruptStore(url, type: storeType, reason: "Z_METADATA.Z_PLIST is not a binary property list")
            }
            if !plist.isEmpty {
                guard let decoded = try? PropertyListSerialization.propertyList(from: plist, options: [], format: nil) as? [String: Any] else {
                    throw CoreDataError.corruptStore(url, type: storeType, reason: "Z_METADATA.Z_PLIST is not a property list dictionary")
                }
                metadata = decoded
            }
        }
        metadata[NSStoreTypeKey] = metadata[NSStoreTypeKey] ?? storeType
        metadata[NSStoreUUIDKey] = found.text(0, 0) ?? metadata[NSStoreUUIDKey]
        return metadata
    }

    /// Writes the metadata row, inside the caller's transaction.
    func writeMetadata(_ metadata: [String: Any]) throws {
        let row = try SQLMetadataRow(metadata)
        try connection.query("DELETE FROM Z_METADATA")
        try connection.query("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, $1, $2)", [row.uuid, PostgreSQLText.format(row.plist)])
    }

    public static func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        let location = try PostgreSQLLocation(url: url, options: options ?? [:])
        let connection: PostgreSQLConnection
        do {
            connection = try PostgreSQLConnection(parameters: location.connectionParameters, displayName: location.displayName)
        } catch let error as PostgreSQLError {
            throw CoreDataError.openFailed(url, reason: error.message)
        }
        defer { connection.close() }
        guard let metadata = try readMetadata(connection, location: location, url: url) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no PostgreSQL store in \(location.displayName).",
                                     userInfo: [NSURLErrorKey: url])
        }
        return metadata
    }

    public func close() { connection.close() }

    // MARK: Keys

    /// Keys after `Z_PRIMARYKEY.Z_MAX` of the entity's hierarchy, raised in one statement in its own
    /// transaction, so concurrent servers never receive the same key.
    /// - Throws: 259 when `Z_MAX` is past `StoreNumberLimits.largestStoredNumber`; 134030 when the keys would
    ///   pass it, for a read-only store, or when the server fails.
    public func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        try checkWritable()
        let root = entity.rootEntity
        guard schema.table(for: root) != nil else {
            throw CoreDataError.operation("The entity \(entity.name ?? "") is not in this store's configuration.")
        }
        let result = try run("allocate primary keys") {
            try connection.query("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 AND Z_MAX <= $3 RETURNING Z_MAX",
                                 [String(count), String(root.entityNumber), String(StoreNumberLimits.largestStoredNumber - Int64(count))])
        }
        guard let last = result.int64(0, 0) else {
            throw CoreDataError.saveFailed("the store in \(location.displayName) has no primary keys left for \(count) new \(entity.name ?? "") objects")
        }
        return Array((last - Int64(count) + 1)...last)
    }

    func checkWritable() throws {
        if isReadOnly { throw CoreDataError.saveFailed("the store in \(location.displayName) was added read-only") }
    }

    func plan(for entityNumber: Int32) -> PostgreSQLRowPlan? { plans[entityNumber] }

    // MARK: Errors

    /// Runs `body`, turning a PostgreSQL failure into Apple's error for `operation`: 134030 for writes (133021
    /// for a unique violation), 134070 for reads.
    func run<T>(_ operation: String, writes: Bool = true, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgreSQLError {
            if error.sqlState == "23505" {
                throw CoreDataError.make(NSManagedObjectConstraintMergeError, "The save violates a uniqueness constraint: \(error.message)",
                                         userInfo: [NSUnderlyingErrorKey: error as NSError])
            }
            let code = writes ? NSPersistentStoreSaveError : NSPersistentStoreOperationError
            throw CoreDataError.make(code, "The PostgreSQL store in \(location.displayName) failed to \(operation): \(error.message)",
                                     userInfo: [NSUnderlyingErrorKey: error as NSError])
        }
    }
}

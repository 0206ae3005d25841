import CoreDataSQL
import CoreDataStoreKit

/// Automatic lightweight migration of a PostgreSQL store saved with another model, with the plan the SQLite
/// store uses (`SQLMigrationPlan`: Apple's inferred mapping, entities and properties matched by name or
/// `renamingIdentifier`, keys kept so object IDs stay valid, `Z_ENT` numbers following the new model). The
/// store's own tables say what it holds (`PostgreSQLMigrationSourceReader`); the old model, when the new one
/// comes from a versioned package, places each old property's column exactly.
///
/// Guarantees:
/// - One transaction (DDL is transactional in PostgreSQL): the new tables are created in the schema
///   `<schema>_migrating`, filled with `INSERT … SELECT` from the old tables, checked, and put in their
///   place. Any failure (a change that cannot be inferred, data that does not fit, a lost connection) rolls
///   everything back: the old store is left as it was.
/// - One migration at a time: the transaction first locks the old `Z_METADATA` (`ACCESS EXCLUSIVE`) and then
///   reads the metadata again, so a server that waited finds the store migrated and only opens it. Every
///   other table of the old store is locked before it is read, so no save made with the old model is lost
///   between the copy and the swap.
/// - Nothing is dropped that depends on the old store's tables: they are dropped one by one, `RESTRICT`, so a
///   view or foreign key on one of them, in any schema, makes the migration fail instead.
/// - A schema other than `public` is the store's own: it is then dropped with what else it holds
///   (`DROP SCHEMA … CASCADE`, as `destroyStore` does) and `<schema>_migrating` renamed in its place. In
///   `public`, the new tables are moved in (`ALTER TABLE … SET SCHEMA`) and every other object of `public`
///   stays as it is.
/// - `<schema>_migrating` is dropped first only when it is empty or holds this store's own half-built copy
///   (its `Z_METADATA` has this store's UUID); any other schema of that name makes the migration fail.
extension PostgreSQLStore {
    /// Migrates the store to the request's model and returns its new metadata; when another server migrated
    /// it meanwhile, returns the metadata found.
    /// - Throws: 134190 (`NSInferredMappingModelError`) for a change the inferred mapping cannot make, naming
    ///   the entity and property; 134110 (`NSMigrationError`) when the data does not fit the new model (a
    ///   required value missing, a number out of the new type's range), the schema name leaves no room for
    ///   `_migrating`, or the server fails, with the server's error under `NSUnderlyingErrorKey`.
    func migrate(_ request: StoreOpenRequest) throws -> [String: Any] {
        let old = location.schema, new = location.schema + "_migrating"
        // PostgreSQL cuts longer names to 63 bytes, which could name the store's own schema.
        guard new.utf8.count <= 63 else {
            throw CoreDataError.migrationFailed("the schema name \(old) leaves no room for \(new) within PostgreSQL's 63 bytes")
        }
        do {
            return try connection.transaction {
                try connection.execute("LOCK TABLE \(old).Z_METADATA IN ACCESS EXCLUSIVE MODE")
                guard let current = try Self.readMetadata(connection, location: location, url: url) else {
                    throw CoreDataError.migrationFailed("the store in \(location.displayName) disappeared")
                }
                if case .same = ModelCompatibility.compare(metadata: current, entities: request.entities) { return current }
                let source = try SQLMigrationSource(reading: PostgreSQLMigrationSourceReader(connection: connection, schema: old),
                                                    metadata: current, package: request.model.versionedPackageURL)
                if let name = Self.overlongName(source: source, entities: request.entities) {
                    throw CoreDataError.migrationFailed("the name \(name) is longer than \(Self.longestName) bytes: PostgreSQL cuts identifiers to 63 bytes, so the migration could not find the tables and columns named after it")
                }
                let plan = try SQLMigrationPlan(source: source, schema: schema, newQualifier: new, oldQualifier: old)
                let tables = Self.storeTables(of: source)
                try connection.execute("LOCK TABLE \(tables.map { "\(old).\(Self.tableName($0))" }.joined(separator: ", ")) IN ACCESS EXCLUSIVE MODE")
                let uuid = (current[NSStoreUUIDKey] as? String) ?? UUID().uuidString
                try prepareMigratingSchema(new, storeUUID: uuid)
                try connection.execute("SET LOCAL search_path = \(new)")
                let metadata = ModelCompatibility.metadata(storeType: Self.storeType, uuid: uuid, entities: request.entities,
                                                           model: request.model, keeping: current)
                try createTables(metadata: metadata)
                try copyRows(plan)
                try copyHistory(from: old, source: source, plan: plan)
                try replace(old, tables: tables, with: new)
                // Created once the rows are in their final schema, then every derived value computed from them
                // (as Apple's migration runs its triggers' data statements).
                try connection.execute("SET LOCAL search_path = \(old)")
                try installDerivedAttributeTriggers(refreshing: true)
                return metadata
            }
        } catch let error as PostgreSQLError {
            throw CoreDataError.make(NSMigrationError, "The PostgreSQL store in \(location.displayName) could not be migrated: \(error.message)",
                                     userInfo: [NSUnderlyingErrorKey: error as NSError])
        } catch {
            throw CoreDataError.migrationFailed(error)
        }
    }

    /// The longest entity or property name the migration accepts: PostgreSQL cuts identifiers to 63 bytes,
    /// and Apple's names add up to 8 (`Z_FOK_`, `Z_15999`, a collision number such as `ZTITLE1`).
    static let longestName = 55

    /// A name longer than `longestName` bytes among the old store's entities and the new entities, their
    /// properties and their renaming identifiers, or nil.
    private static func overlongName(source: SQLMigrationSource, entities: [NSEntityDescription]) -> String? {
        var names = source.entities.values.map(\.name)
        for entity in entities {
            names += [entity.name, entity.renamingIdentifier].compactMap { $0 }
            names += entity.properties.flatMap { [$0.name, $0.renamingIdentifier].compactMap { $0 } }
        }
        return names.first { SQLSchema.upper($0).utf8.count > longestName }
    }

    /// The old store's tables, as `source` names them: Core Data's three, the tables of the entities in
    /// `Z_PRIMARYKEY`, the join tables named after their entity numbers (`Z_<n><REL>`), and the history tables.
    private static func storeTables(of source: SQLMigrationSource) -> [String] {
        let entityTables = Set(source.entities.keys.compactMap(source.table(of:)))
        return source.columns.keys.filter { name in
            ["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE"].contains(name) || entityTables.contains(name)
                || SQLPersistentHistory.tableNames.contains(name)
                || joinTableNumber(name).map { source.entities[$0] != nil } == true
        }.sorted()
    }

    /// A table of the store as its SQL names it: quoted as `SQLSchema.quote` quotes, the history tables bare
    /// (they are created without quotes, so PostgreSQL folds their names to lower case).
    private static func tableName(_ table: String) -> String {
        SQLPersistentHistory.tableNames.contains(table) ? table : SQLSchema.quote(table)
    }

    /// The entity number of a join table's name (`Z_12TAGS` → 12), or nil for another name.
    private static func joinTableNumber(_ name: String) -> Int64? {
        guard name.hasPrefix("Z_") else { return nil }
        let digits = name.dropFirst(2).prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty, name.count > digits.count + 2 else { return nil }
        return Int64(digits)
    }

    /// Makes an empty schema `name` for the new tables, dropping one a failed attempt left.
    /// - Throws: 134110 when a schema of that name holds anything but this store's half-built copy.
    private func prepareMigratingSchema(_ name: String, storeUUID: String) throws {
        let found = try connection.query("""
            SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = n.oid) + (SELECT count(*) FROM pg_type WHERE typnamespace = n.oid)
                   + (SELECT count(*) FROM pg_proc WHERE pronamespace = n.oid), to_regclass($2) IS NOT NULL
            FROM pg_namespace n WHERE n.nspname = $1
            """, [name, "\(name).z_metadata"])
        if found.rowCount == 1 {
            var isLeftover = found.int64(0, 0) == 0
            if !isLeftover, found.text(0, 1) == "t" {
                let owner = try connection.query("SELECT Z_UUID FROM \(name).Z_METADATA")
                isLeftover = owner.rowCount == 1 && owner.text(0, 0) == storeUUID
            }
            guard isLeftover else {
                throw CoreDataError.migrationFailed("the schema \(name), where the migration builds the new tables, exists and holds something other than this store's; rename or drop it")
            }
            try connection.execute("DROP SCHEMA \(name) CASCADE")
        }
        try connection.execute("CREATE SCHEMA \(name)")
    }

    /// Runs the plan's copies and repairs into the new tables, checks required values, and sets `Z_MAX`.
    /// - Throws: 134110 naming the entity and property when a required value is missing.
    private func copyRows(_ plan: SQLMigrationPlan) throws {
        for statement in plan.copies + plan.repairs {
            try connection.query(statement.sql, statement.bindings.map(Self.parameterText))
        }
        for check in plan.checks {
            let missing = try connection.query(check.statement.sql, check.statement.bindings.map(Self.parameterText)).int64(0, 0) ?? 0
            if missing > 0 { throw CoreDataError.missingRequiredValue(entity: check.entity, property: check.property, count: missing) }
        }
        for (entity, largest) in plan.largestKeys.sorted(by: { $0.key < $1.key }) {
            try connection.query("UPDATE Z_PRIMARYKEY SET Z_MAX = $1 WHERE Z_ENT = $2", [String(largest), String(entity)])
        }
    }

    /// Puts the new tables in place of the old store. The old store's `tables` are dropped first, each
    /// `RESTRICT`, so an object that depends on one (a view, a foreign key) fails the migration instead of
    /// being dropped with it. Then the schema `old` is dropped with what else it holds and `new` renamed in
    /// its place, or, in `public`, the new tables are moved in.
    private func replace(_ old: String, tables: [String], with new: String) throws {
        for table in tables { try connection.execute("DROP TABLE \(old).\(Self.tableName(table)) RESTRICT") }
        guard old == "public" else {
            try connection.execute("DROP SCHEMA \(old) CASCADE")
            try connection.execute("ALTER SCHEMA \(new) RENAME TO \(old)")
            return
        }
        let moved = try connection.query("SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", [new])
        for row in 0..<moved.rowCount {
            guard let name = moved.text(row, 0) else { continue }
            try connection.execute("ALTER TABLE \(new).\(Self.quotedName(name)) SET SCHEMA public")
        }
        try connection.execute("DROP SCHEMA \(new) RESTRICT")
    }
}

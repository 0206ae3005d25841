import CoreDataStoreKit

/// Whole stores on the server: destroying one and copying one over another. A PostgreSQL store has no
/// files, so the coordinator leaves both to the store type.
extension PostgreSQLStore: StoreReplacing {
    /// A PostgreSQL store has no files.
    public static func storeFiles(at url: URL) -> [URL] { [] }

    /// Drops the store's tables (see `dropStore(in:on:)`). Destroying a store that does not exist does nothing.
    /// - Throws: 134080 when the URL is not a PostgreSQL URL; 134070 when the server cannot be reached.
    public static func destroyStore(at url: URL) throws {
        let location = try PostgreSQLLocation(url: url, options: [:])
        try onServer(location, url: url, "destroy the store") { connection in
            try connection.transaction { try dropStore(in: location.schema, on: connection) }
        }
    }

    /// Copies the store at `source` over the one at `destination`, in one transaction: the destination's
    /// tables are dropped, and every table of the source's schema is created again (`LIKE … INCLUDING ALL`)
    /// and filled. Both must be in one database (schemas of one server and database name).
    /// - Throws: 260 when there is no store at `source`; 134091 when the two are in different databases.
    public static func replaceStore(at destination: URL, destinationOptions: [AnyHashable: Any]?,
                                    withStoreFrom source: URL, sourceOptions: [AnyHashable: Any]?) throws {
        let from = try PostgreSQLLocation(url: source, options: sourceOptions ?? [:])
        let to = try PostgreSQLLocation(url: destination, options: destinationOptions ?? [:])
        guard from.connectionURI == to.connectionURI else {
            throw CoreDataError.unsupported("replacing a PostgreSQL store with one in another database (\(from.displayName) → \(to.displayName))")
        }
        guard from.schema != to.schema else { return }
        try onServer(to, url: destination, "replace the store") { connection in
            guard try readMetadata(connection, location: from, url: source) != nil else {
                throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no PostgreSQL store in \(from.displayName) to copy.",
                                         userInfo: [NSURLErrorKey: source])
            }
            let tables = try connection.query("SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", [from.schema])
            try connection.transaction {
                try dropStore(in: to.schema, on: connection)
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \(to.schema)")
                for row in 0..<tables.rowCount {
                    guard let name = tables.text(row, 0) else { continue }
                    let table = quotedName(name)
                    try connection.execute("CREATE TABLE \(to.schema).\(table) (LIKE \(from.schema).\(table) INCLUDING ALL)")
                    try connection.execute("INSERT INTO \(to.schema).\(table) SELECT * FROM \(from.schema).\(table)")
                }
            }
        }
    }

    /// Drops a store in `schema`, inside the caller's transaction: the whole schema when it is not `public`; in
    /// `public`, Core Data's tables (`Z_METADATA`, `Z_PRIMARYKEY`, `Z_MODELCACHE`), every table with `Z_PK`,
    /// `Z_ENT` and `Z_OPT` columns, every table named like a join table (`Z_<number>…`) and the derived
    /// attributes' `z_da_…` functions, and nothing else.
    static func dropStore(in schema: String, on connection: PostgreSQLConnection) throws {
        if schema != "public" {
            try connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            return
        }
        let tables = try connection.query("""
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind = 'r' AND (c.relname IN ('z_metadata', 'z_primarykey', 'z_modelcache')
              OR c.relname ~ '^z_[0-9]+'
              OR (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname IN ('z_pk', 'z_ent', 'z_opt')) = 3)
            """)
        for row in 0..<tables.rowCount {
            guard let name = tables.text(row, 0) else { continue }
            try connection.execute("DROP TABLE IF EXISTS public.\(quotedName(name)) CASCADE")
        }
        let functions = try connection.query("""
            SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public' AND lower(p.proname) LIKE 'z\\_da\\_%'
            """)
        for row in 0..<functions.rowCount {
            guard let function = functions.text(row, 0) else { continue }
            try connection.execute("DROP FUNCTION IF EXISTS \(function) CASCADE")
        }
    }

    /// A name from the catalog as a quoted identifier.
    static func quotedName(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Runs `body` on a new connection to `location`, closed afterwards; server failures become 134070.
    private static func onServer<T>(_ location: PostgreSQLLocation, url: URL, _ operation: String,
                                    _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        do {
            let connection = try PostgreSQLConnection(parameters: location.connectionParameters, displayName: location.displayName)
            defer { connection.close() }
            return try body(connection)
        } catch let error as PostgreSQLError {
            throw CoreDataError.make(NSPersistentStoreOperationError, "Could not \(operation) in \(location.displayName): \(error.message)",
                                     userInfo: [NSURLErrorKey: url, NSUnderlyingErrorKey: error as NSError])
        }
    }
}

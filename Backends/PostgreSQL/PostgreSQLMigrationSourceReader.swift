import CoreDataSQL
import CoreDataStoreKit

/// How a PostgreSQL store is read for a lightweight migration (`SQLMigrationSource`), inside the migration's
/// transaction: `Z_PRIMARYKEY`, the columns of the base tables of the store's schema from
/// `information_schema.columns` (types as `PostgreSQLDialect` spells them: `data_type` uppercased, such as
/// `BIGINT` or `TIMESTAMP WITH TIME ZONE`), and `MAX(Z_PK)`.
///
/// Names are reported as the store's SQL reaches them. PostgreSQL folds the schema's bare names to lower
/// case (`ZITEM` is the table `zitem`), so a catalog name is reported uppercased when `SQLSchema.quote` of
/// the uppercased name reaches it, and left out otherwise (a table `"Zitem"` made by hand is not the store's).
struct PostgreSQLMigrationSourceReader: SQLMigrationSourceReader {
    let connection: PostgreSQLConnection
    /// The store's schema, a plain identifier (`PostgreSQLLocation`).
    let schema: String

    func primaryKeyRows() throws -> [SQLMigrationSource.Entity] {
        let result = try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM \(schema).Z_PRIMARYKEY")
        return (0..<result.rowCount).map { row in
            SQLMigrationSource.Entity(number: result.int64(row, 0) ?? 0, name: result.text(row, 1) ?? "",
                                      superNumber: result.int64(row, 2) ?? 0, max: result.int64(row, 3) ?? 0)
        }
    }

    func columnsByTable() throws -> [String: [String: String]] {
        let result = try connection.query("""
            SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
            JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE'
            """, [schema])
        var columns: [String: [String: String]] = [:]
        for row in 0..<result.rowCount {
            guard let table = result.text(row, 0).flatMap(Self.storeName), let column = result.text(row, 1).flatMap(Self.storeName),
                  let type = result.text(row, 2) else { continue }
            columns[table, default: [:]][column] = type.uppercased()
        }
        return columns
    }

    func largestStoredKey(in table: String) throws -> Int64 {
        try connection.query("SELECT COALESCE(MAX(Z_PK), 0) FROM \(schema).\(SQLSchema.quote(table))").int64(0, 0) ?? 0
    }

    /// The name the schema writes for a catalog name (`zitem` → `ZITEM`, `achange` → `ACHANGE`: the history
    /// tables are written without quotes too), or nil when the schema's SQL does not reach that name.
    static func storeName(_ catalogName: String) -> String? {
        let name = catalogName.uppercased()
        let isBare = SQLSchema.quote(name) == name || SQLPersistentHistory.tableNames.contains(name)
        return (isBare ? name.lowercased() : name) == catalogName ? name : nil
    }
}

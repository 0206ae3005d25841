import CoreDataStoreKit

/// What a store reads of its own tables for a lightweight migration, each store through its own driver
/// (SQLite: `sqlite_master` and `PRAGMA table_info`; PostgreSQL: `information_schema.columns` of the store's
/// schema). Names and types are reported as the store's SQL reaches them, so the plan can compare them with
/// `SQLSchema`'s: table and column names uppercased as the schema writes them (`ZITEM`, `ZNAME`, `Z_1TAGS`),
/// and column types as the dialect's `columnType(of:)` and `keyColumnType` spell them (`VARCHAR`, `BIGINT`).
public protocol SQLMigrationSourceReader {
    /// The rows of `Z_PRIMARYKEY`.
    func primaryKeyRows() throws -> [SQLMigrationSource.Entity]

    /// Every table the store's SQL can reach by name, with each column's declared type, by column name.
    func columnsByTable() throws -> [String: [String: String]]

    /// The largest `Z_PK` of `table` (a name `columnsByTable()` returned), 0 when the table is empty.
    func largestStoredKey(in table: String) throws -> Int64
}

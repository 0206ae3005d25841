import CoreDataSQL
import CoreDataStoreKit

/// How a SQLite store file is read for a lightweight migration (`SQLMigrationSource`), through a read-only
/// connection: `Z_PRIMARYKEY`, every table of `sqlite_master` with its columns' declared types from
/// `pragma_table_info` (normalized: `varchar(255)` is `VARCHAR`), and `MAX(Z_PK)`.
struct SQLiteMigrationSourceReader: SQLMigrationSourceReader {
    let connection: SQLiteConnection

    /// The source of the store at `url`; `package` is the versioned package the new model came from.
    /// - Throws: 134000/259 as `SQLiteStore.readMetadata`, 134180 for SQLite failures; 259/260 when a version
    ///   of `package` cannot be read.
    static func source(_ connection: SQLiteConnection, url: URL, package: URL?) throws -> SQLMigrationSource {
        let metadata = try SQLiteStore.readMetadata(connection, url: url)
        return try SQLMigrationSource(reading: SQLiteMigrationSourceReader(connection: connection), metadata: metadata, package: package)
    }

    func primaryKeyRows() throws -> [SQLMigrationSource.Entity] {
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY", cached: false) {
            SQLMigrationSource.Entity(number: $0.int64(at: 0), name: $0.string(at: 1).orEmpty, superNumber: $0.int64(at: 2), max: $0.int64(at: 3))
        }
    }

    func columnsByTable() throws -> [String: [String: String]] {
        var columns: [String: [String: String]] = [:]
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'", cached: false) { $0.string(at: 0).orEmpty }
        for table in tables {
            let info = try connection.query("SELECT name, type FROM pragma_table_info(?)", [.text(table)], cached: false) {
                ($0.string(at: 0).orEmpty, Self.normalizedType($0.string(at: 1).orEmpty))
            }
            columns[table] = Dictionary(info, uniquingKeysWith: { first, _ in first })
        }
        return columns
    }

    func largestStoredKey(in table: String) throws -> Int64 {
        try connection.query("SELECT IFNULL(MAX(Z_PK), 0) FROM \(q(table))", cached: false) { $0.int64(at: 0) }.first ?? 0
    }

    /// A declared type as the schema writes it: `varchar(255)` → `VARCHAR`.
    static func normalizedType(_ declared: String) -> String {
        let base = declared.split(separator: "(", maxSplits: 1).first.map(String.init) ?? declared
        return base.trimmingCharacters(in: .whitespaces).uppercased()
    }
}

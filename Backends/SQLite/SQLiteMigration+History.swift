import CoreDataSQL
import CoreDataStoreKit

/// Persistent history survives a lightweight migration: the old database (attached as `old`) has its history
/// copied into the new file's tables as `SQLPersistentHistory.migrationCopies` describes.
extension SQLiteMigration {
    static func copyHistory(on connection: SQLiteConnection, source: SQLMigrationSource, plan: SQLMigrationPlan) throws {
        let copies = SQLPersistentHistory.migrationCopies(from: "old", source: source, plan: plan)
        guard !copies.isEmpty else { return }
        try SQLiteStore.createHistoryTables(on: connection)
        for statement in copies { try connection.run(statement, cached: false) }
    }
}

import CoreDataSQL
import CoreDataStoreKit

/// Persistent history survives a lightweight migration: transactions and their strings are copied as they
/// are, changes are kept for the entities the new model still has (renumbered and re-keyed as the migration
/// maps the rows: by renaming identifier, then by name, with the key offsets of merged tables), and the history
/// entities' `Z_MAX` carry over. An update's changed columns are dropped (they
/// name properties of the old model), so `updatedProperties` of migrated updates is nil.
extension SQLiteMigration {
    static func copyHistory(on connection: SQLiteConnection, source: SQLMigrationSource, plan: SQLMigrationPlan) throws {
        guard let transactions = source.columns["ATRANSACTION"], let changes = source.columns["ACHANGE"],
              let strings = source.columns["ATRANSACTIONSTRING"] else { return }
        try SQLiteStore.createHistoryTables(on: connection)
        func select(_ wanted: [String], from available: [String: String]) -> String {
            wanted.map { available[$0] != nil ? $0 : "NULL" }.joined(separator: ", ")
        }
        let stringColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"]
        try connection.run("INSERT INTO ATRANSACTIONSTRING (\(stringColumns.joined(separator: ", "))) SELECT \(select(stringColumns, from: strings)) FROM old.ATRANSACTIONSTRING",
                           cached: false)
        let transactionColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS", "ZTIMESTAMP",
                                  "ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID", "ZQUERYGEN"]
        try connection.run("INSERT INTO ATRANSACTION (\(transactionColumns.joined(separator: ", "))) SELECT \(select(transactionColumns, from: transactions)) FROM old.ATRANSACTION",
                           cached: false)
        // Old entity numbers and keys to new ones, as the rows moved; changes of entities the model dropped
        // are left out. The numbers are integers of this package's own plan, not input.
        let mapping = plan.entityMapping
        if !mapping.isEmpty, changes["ZENTITY"] != nil, changes["ZENTITYPK"] != nil {
            let entities = mapping.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ")
            let offsets = mapping.map { "WHEN \($0.old) THEN \($0.keyOffset)" }.joined(separator: " ")
            let kept = mapping.map { "\($0.old)" }.joined(separator: ", ")
            try connection.run("""
                INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
                SELECT Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, CASE ZENTITY \(entities) END, ZENTITYPK + CASE ZENTITY \(offsets) ELSE 0 END,
                       ZTRANSACTIONID, NULL
                FROM old.ACHANGE WHERE ZENTITY IN (\(kept))
                """, cached: false)
        }
        try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT o.Z_MAX FROM old.Z_PRIMARYKEY o WHERE o.Z_ENT = Z_PRIMARYKEY.Z_ENT) WHERE Z_ENT >= 16000 AND Z_ENT IN (SELECT Z_ENT FROM old.Z_PRIMARYKEY)",
                           cached: false)
    }
}

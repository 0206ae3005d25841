import CoreDataStoreKit
import Foundation

/// What the SQL stores share of persistent history in Apple's tables: `ATRANSACTION` (one row per recorded
/// save or batch request: its time, and its author, bundle, context and process names as keys into
/// `ATRANSACTIONSTRING`), `ACHANGE` (one row per changed object: kind 0/1/2 for insert, update, delete, the
/// object's stored `Z_ENT` and `Z_PK`, its transaction, and for an update the changed columns), and their
/// `Z_PRIMARYKEY` entities 16001–16003, as Apple's Core Data writes them.
///
/// `ZCOLUMNS` of an update is written as a bitmask over the entity's properties in model order, bit 0 of byte 0
/// first: Apple's encoding of that column is undocumented and no fixture shows one, so an update's
/// `updatedSlots` read from an Apple-written store may be wrong or nil.
public enum SQLPersistentHistory {
    /// The `Z_ENT` of `ACHANGE` rows and their `Z_PRIMARYKEY` row.
    public static let changeEntity: Int64 = 16001
    /// The `Z_ENT` of `ATRANSACTION` rows and their `Z_PRIMARYKEY` row.
    public static let transactionEntity: Int64 = 16002
    /// The `Z_ENT` of `ATRANSACTIONSTRING` rows and their `Z_PRIMARYKEY` row.
    public static let stringEntity: Int64 = 16003

    /// The history tables, as the stores' SQL names them (without quotes).
    public static let tableNames = ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]

    /// The history entities' `Z_PRIMARYKEY` rows: number and `Z_NAME`.
    public static let primaryKeyRows: [(entity: Int64, name: String)] = [
        (changeEntity, "CHANGE"), (transactionEntity, "TRANSACTION"), (stringEntity, "TRANSACTIONSTRING"),
    ]

    /// The columns of `ATRANSACTIONSTRING`, in Apple's order (what a migration copies).
    public static let stringColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"]
    /// The columns of `ATRANSACTION`, in Apple's order (what a migration copies).
    public static let transactionColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS",
                                            "ZTIMESTAMP", "ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID", "ZQUERYGEN"]

    /// The statements that copy an old store's history into the new tables of a lightweight migration (created
    /// already), reading the old tables through `old` (a schema or attached database name): transactions and
    /// their strings as they are (columns the old tables lack as NULL); changes kept for the entities the new
    /// model still has, renumbered and re-keyed as the plan moved their rows (by renaming identifier, then by
    /// name, with the key offsets of merged tables); the history entities' `Z_MAX` carried over. An update's
    /// changed columns are dropped (they name properties of the old model), so `updatedProperties` of migrated
    /// updates is nil. Empty when the old store has no history tables.
    public static func migrationCopies(from old: String, source: SQLMigrationSource, plan: SQLMigrationPlan) -> [String] {
        guard let transactions = source.columns["ATRANSACTION"], let changes = source.columns["ACHANGE"],
              let strings = source.columns["ATRANSACTIONSTRING"] else { return [] }
        func select(_ wanted: [String], from available: [String: String]) -> String {
            wanted.map { available[$0] != nil ? $0 : "NULL" }.joined(separator: ", ")
        }
        var statements = [
            "INSERT INTO ATRANSACTIONSTRING (\(stringColumns.joined(separator: ", "))) SELECT \(select(stringColumns, from: strings)) FROM \(old).ATRANSACTIONSTRING",
            "INSERT INTO ATRANSACTION (\(transactionColumns.joined(separator: ", "))) SELECT \(select(transactionColumns, from: transactions)) FROM \(old).ATRANSACTION",
        ]
        // The numbers are integers of this package's own plan, not input.
        let mapping = plan.entityMapping
        if !mapping.isEmpty, changes["ZENTITY"] != nil, changes["ZENTITYPK"] != nil {
            let entities = mapping.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ")
            let offsets = mapping.map { "WHEN \($0.old) THEN \($0.keyOffset)" }.joined(separator: " ")
            let kept = mapping.map { "\($0.old)" }.joined(separator: ", ")
            statements.append("""
                INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
                SELECT Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, CASE ZENTITY \(entities) END, ZENTITYPK + CASE ZENTITY \(offsets) ELSE 0 END,
                       ZTRANSACTIONID, NULL
                FROM \(old).ACHANGE WHERE ZENTITY IN (\(kept))
                """)
        }
        statements.append("""
            UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT o.Z_MAX FROM \(old).Z_PRIMARYKEY o WHERE o.Z_ENT = Z_PRIMARYKEY.Z_ENT)
            WHERE Z_ENT >= 16000 AND Z_ENT IN (SELECT Z_ENT FROM \(old).Z_PRIMARYKEY)
            """)
        return statements
    }

    /// Who made a batch request: the process (batch requests carry no context's author or name).
    public static var batchTransactionInfo: StoreTransactionInfo {
        StoreTransactionInfo(author: nil, contextName: nil, bundleID: Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName,
                             processID: String(ProcessInfo.processInfo.processIdentifier))
    }

    /// The number of the newest transaction given out, kept or deleted since: the larger of the newest kept and
    /// `Z_MAX` of the transaction entity (a store Apple wrote may lack the latter), 0 when there was none.
    /// (Written for both SQLite and PostgreSQL, which have no common two-argument maximum.)
    public static let newestTransactionQuery = "SELECT CASE WHEN kept > given THEN kept ELSE given END FROM (SELECT "
        + "COALESCE((SELECT MAX(Z_PK) FROM ATRANSACTION), 0) AS kept, "
        + "COALESCE((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(transactionEntity)), 0) AS given) AS numbers"

    /// The query that gives what `checkTokenNotExpired` needs: the oldest transaction number kept and the last
    /// one given out (`Z_MAX` of the transaction entity in `Z_PRIMARYKEY`).
    public static let retainedRangeQuery = "SELECT (SELECT MIN(Z_PK) FROM ATRANSACTION), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(transactionEntity))"

    /// Throws 134301 (`NSPersistentHistoryTokenExpiredError`) when history after transaction `number` is no
    /// longer complete: a transaction numbered above it was deleted. Transaction numbers come one by one from
    /// `Z_PRIMARYKEY` inside the transaction that records them, so they have no gaps, and the transactions
    /// deleted are those below `oldestKept` (every one given out, up to `lastGivenOut`, when none is kept).
    public static func checkTokenNotExpired(after number: Int64, oldestKept: Int64?, lastGivenOut: Int64?) throws {
        let deletedThrough = oldestKept.map { $0 - 1 } ?? lastGivenOut ?? 0
        guard number >= deletedThrough else {
            throw CoreDataError.make(NSPersistentHistoryTokenExpiredError,
                                     "The persistent history token (transaction \(number)) has expired: the history after it was deleted up to transaction \(deletedThrough). Fetch the history again without a token.")
        }
    }

    /// The rows a save's change set records: its inserted, updated (with their changed slots as a mask) and
    /// deleted objects, in that order.
    public static func changes(of changeSet: StoreChangeSet) -> [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)] {
        var rows: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)] = []
        rows.reserveCapacity(changeSet.inserted.count + changeSet.updated.count + changeSet.deleted.count)
        rows += changeSet.inserted.map { ($0.key, .insert, nil) }
        rows += changeSet.updated.map { ($0.row.key, .update, columnMask($0.changedSlots)) }
        rows += changeSet.deleted.map { ($0.key, .delete, nil) }
        return rows
    }

    /// The changed slots as a bitmask, bit 0 of byte 0 first.
    public static func columnMask(_ slots: [Int]) -> Data {
        var bytes = [UInt8](repeating: 0, count: ((slots.max() ?? 0) / 8) + 1)
        for slot in slots where slot >= 0 { bytes[slot / 8] |= 1 << UInt8(slot % 8) }
        return Data(bytes)
    }

    /// The slots a bitmask names, keeping those within `slotCount`.
    public static func slots(inMask data: Data, slotCount: Int) -> [Int] {
        var slots: [Int] = []
        for (index, byte) in data.enumerated() {
            for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 {
                let slot = index * 8 + bit
                if slot < slotCount { slots.append(slot) }
            }
        }
        return slots
    }
}

import CoreDataSQL
import CoreDataStoreKit
import Foundation

/// Persistent history in Apple's tables (`SQLPersistentHistory`: `ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`
/// and their `Z_PRIMARYKEY` entities 16001–16003, as Apple's Core Data writes them).
///
/// The tables are created when the store is added with `NSPersistentHistoryTrackingKey` (a store written
/// without it gains nothing). History a file already holds, Apple's included, is read either way. Saves and
/// batch deletes, updates and inserts are recorded (a batch request's transaction has the process's names and
/// no author; a batch delete records every row it deletes, cascades included).
extension SQLiteStore: PersistentHistoryBackend {
    /// Saves are recorded when the store was added with the option, and also when its file already records
    /// history (an app that reads the history would otherwise miss those saves; Apple's Core Data makes such a
    /// store read-only instead, which would refuse every save).
    public var recordsHistory: Bool { !isReadOnly && (fileHasHistory || storeOptionIsSet(openRequest.options, NSPersistentHistoryTrackingKey)) }

    /// Creates the history tables and their `Z_PRIMARYKEY` rows when they are missing. Several connections (other
    /// coordinators, other processes) may add a new store at once: the check is made again inside the write
    /// transaction, which holds the database's write lock, so one creates the tables and the others find them.
    func createHistoryTablesIfNeeded() throws {
        guard try !connection.tableExists("ATRANSACTION") else { return }
        try connection.transaction {
            guard try !connection.tableExists("ATRANSACTION") else { return }
            try Self.createHistoryTables(on: connection)
        }
    }

    /// Creates Apple's history tables, indexes and `Z_PRIMARYKEY` rows (inside the caller's transaction).
    static func createHistoryTables(on connection: SQLiteConnection) throws {
        try connection.execute("""
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
            CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
            CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
            CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS);
            CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS);
            CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS);
            CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS);
            """)
        for (number, name) in SQLPersistentHistory.primaryKeyRows {
            try connection.run("INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)",
                               [.integer(number), .text(name)], cached: false)
        }
    }

    // MARK: Recording

    /// Records a save's changes as one transaction; called inside the save's SQL transaction.
    func recordHistory(of changes: StoreChangeSet) throws {
        guard recordsHistory else { return }
        try recordHistory(SQLPersistentHistory.changes(of: changes), info: changes.transaction ?? SQLPersistentHistory.batchTransactionInfo)
    }

    /// Records one transaction of changed rows; called inside the SQL transaction that changed them. Nothing is
    /// recorded when history is off or no row changed.
    func recordHistory(_ rows: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)], info: StoreTransactionInfo) throws {
        guard recordsHistory, !rows.isEmpty else { return }
        let transaction = try nextHistoryKey(SQLPersistentHistory.transactionEntity, count: 1)
        try connection.run("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, ?, NULL, ?, ?, ?, ?, ?)
            """, [.integer(transaction), .integer(SQLPersistentHistory.transactionEntity),
                  try stringKey(info.author), try stringKey(info.bundleID), try stringKey(info.contextName), try stringKey(info.processID),
                  .real(Date().timeIntervalSinceReferenceDate)])
        var key = try nextHistoryKey(SQLPersistentHistory.changeEntity, count: Int64(rows.count))
        let statement = try connection.statement("""
            INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, ?, NULL, ?, ?, ?, ?, ?)
            """)
        for (object, kind, columns) in rows {
            defer { statement.reset() }
            try statement.bind([.integer(key), .integer(SQLPersistentHistory.changeEntity), .integer(Int64(kind.rawValue)),
                                .integer(schema.storedNumber(forModel: object.entityNumber)), .integer(object.primaryKey), .integer(transaction),
                                columns.map { .blob($0) } ?? .null])
            while try statement.step() {}
            key += 1
        }
    }

    /// The first of `count` new keys of a history entity (its `Z_MAX` moves past them).
    private func nextHistoryKey(_ entity: Int64, count: Int64) throws -> Int64 {
        let current = try connection.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(entity)]) { $0.int64(at: 0) }.first ?? 0
        try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(current + count), .integer(entity)])
        return current + 1
    }

    /// The `ATRANSACTIONSTRING` key of a name, adding it when new; NULL for nil.
    private func stringKey(_ name: String?) throws -> SQLValue {
        guard let name else { return .null }
        if let existing = try connection.query("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", [.text(name)], { $0.int64(at: 0) }).first {
            return .integer(existing)
        }
        let key = try nextHistoryKey(SQLPersistentHistory.stringEntity, count: 1)
        try connection.run("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)",
                           [.integer(key), .integer(SQLPersistentHistory.stringEntity), .text(name)])
        return .integer(key)
    }

    // MARK: Reading

    public func newestHistoryTransactionNumber() throws -> Int64? {
        guard try connection.tableExists("ATRANSACTION") else { return nil }
        return try connection.query(SQLPersistentHistory.newestTransactionQuery) { $0.int64(at: 0) }.first ?? 0
    }

    public func historyTransactions(after position: StoreHistoryPosition) throws -> [StoreHistoryTransaction] {
        guard try connection.tableExists("ATRANSACTION") else { return [] }
        if case .transaction(let number) = position {
            let range = try connection.query(SQLPersistentHistory.retainedRangeQuery) { row in
                (row.isNull(at: 0) ? nil : row.int64(at: 0), row.isNull(at: 1) ? nil : row.int64(at: 1))
            }.first
            try SQLPersistentHistory.checkTokenNotExpired(after: number, oldestKept: range?.0 ?? nil, lastGivenOut: range?.1 ?? nil)
        }
        let (condition, bindings) = Self.condition(position, after: true)
        var strings: [Int64: String] = [:]
        try connection.forEachRow("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING") { strings[$0.int64(at: 0)] = $0.string(at: 1) }
        func name(_ statement: SQLiteStatement, _ column: Int32) -> String? {
            statement.isNull(at: column) ? nil : strings[statement.int64(at: column)]
        }
        var transactions: [StoreHistoryTransaction] = []
        var index: [Int64: Int] = [:]
        try connection.forEachRow("""
            SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS FROM ATRANSACTION WHERE \(condition) ORDER BY Z_PK
            """, bindings) { row in
            let info = StoreTransactionInfo(author: name(row, 2), contextName: name(row, 4), bundleID: name(row, 3) ?? "", processID: name(row, 5) ?? "")
            index[row.int64(at: 0)] = transactions.count
            transactions.append(StoreHistoryTransaction(number: row.int64(at: 0), timestamp: Date(timeIntervalSinceReferenceDate: row.double(at: 1)),
                                                        info: info, changes: []))
        }
        guard let first = transactions.first?.number else { return [] }
        try connection.forEachRow("""
            SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID >= ? ORDER BY Z_PK
            """, [.integer(first)]) { row in
            guard let at = index[row.int64(at: 4)], let kind = StoreHistoryChange.Kind(rawValue: Int(row.int64(at: 1))),
                  case let entityNumber = schema.modelNumber(forStored: row.int64(at: 2)), entityNumber > 0, row.int64(at: 3) > 0 else { return }
            var updated: [Int]?
            if kind == .update, let mask = row.data(at: 5), let entity = model.entity(withNumber: entityNumber) {
                updated = SQLPersistentHistory.slots(inMask: mask, slotCount: entity.layout.slotCount)
            }
            transactions[at].changes.append(StoreHistoryChange(number: row.int64(at: 0), key: ObjectKey(entityNumber: entityNumber, primaryKey: row.int64(at: 3)),
                                                               kind: kind, updatedSlots: updated))
        }
        return transactions
    }

    public func deleteHistory(before position: StoreHistoryPosition) throws -> Int {
        try checkWritable()
        guard try connection.tableExists("ATRANSACTION") else { return 0 }
        let (condition, bindings) = Self.condition(position, after: false)
        return try connection.transaction {
            try connection.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))", bindings, cached: false)
            return try connection.run("DELETE FROM ATRANSACTION WHERE \(condition)", bindings, cached: false)
        }
    }

    /// The SQL condition on `ATRANSACTION` for transactions after a position, or up to it. A transaction
    /// position is the point just after that transaction (a token's meaning): fetching after it leaves the
    /// transaction out, deleting up to it takes it too.
    private static func condition(_ position: StoreHistoryPosition, after: Bool) -> (String, [SQLValue]) {
        switch position {
        case .start: return (after ? "1" : "0", [])
        case .date(let date): return (after ? "ZTIMESTAMP > ?" : "ZTIMESTAMP < ?", [.real(date.timeIntervalSinceReferenceDate)])
        case .transaction(let number): return (after ? "Z_PK > ?" : "Z_PK <= ?", [.integer(number)])
        }
    }
}

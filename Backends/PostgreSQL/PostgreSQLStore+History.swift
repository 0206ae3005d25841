import CoreDataSQL
import CoreDataStoreKit
import Foundation

/// Persistent history in Apple's tables (`SQLPersistentHistory`: `ATRANSACTION`, `ACHANGE`,
/// `ATRANSACTIONSTRING` and their `Z_PRIMARYKEY` rows), in the store's schema, as the SQLite store keeps it.
///
/// Guarantees:
/// - The tables are created when a writable store is added with `NSPersistentHistoryTrackingKey` (a store
///   added without it gains nothing); a store added to a schema that already has them records history either
///   way, so an app that reads the history misses no save of a server that added the store after them.
/// - Each save and batch request is recorded in its own transaction, so a transaction's history commits with
///   its rows or not at all.
/// - Transaction numbers follow the commit order across servers: the number comes from an `UPDATE` of the
///   transaction entity's `Z_PRIMARYKEY` row, whose lock is held until the transaction ends, so a second
///   server recording history waits for the first to commit before it takes the next number. A reader that
///   fetched up to a number never later finds a smaller one committed (history tokens stay valid).
/// - A lightweight migration keeps the history (`copyHistory`, as the SQLite store's migration does).
extension PostgreSQLStore: PersistentHistoryBackend {
    public var recordsHistory: Bool { !isReadOnly && historyTablesExist }

    /// Creates the history tables when the options ask for history and the schema lacks them, and notes
    /// whether the schema has them (the caller maps a server failure).
    func setUpHistory(requested: Bool) throws {
        historyTablesExist = try hasHistoryTables()
        guard requested, !historyTablesExist, !isReadOnly else { return }
        try connection.transaction {
            // Two servers adding the store at once: the second waits here and then finds the tables.
            try connection.execute("LOCK TABLE Z_PRIMARYKEY IN SHARE ROW EXCLUSIVE MODE")
            if try !hasHistoryTables() { try createHistoryTables() }
        }
        historyTablesExist = true
    }

    /// Whether the store's schema has `ATRANSACTION`.
    private func hasHistoryTables() throws -> Bool {
        try connection.query("SELECT to_regclass($1) IS NOT NULL", ["\(location.schema).atransaction"]).text(0, 0) == "t"
    }

    /// Creates the history tables, their indexes and `Z_PRIMARYKEY` rows in the first schema of the search path,
    /// inside the caller's transaction. Transaction strings are unique, as in Apple's store.
    func createHistoryTables() throws {
        try connection.execute("""
            CREATE TABLE ACHANGE ( Z_PK BIGINT PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK BIGINT, ZTRANSACTIONID BIGINT, ZCOLUMNS BYTEA );
            CREATE TABLE ATRANSACTION ( Z_PK BIGINT PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS BIGINT, ZBUNDLEIDTS BIGINT, ZCONTEXTNAMETS BIGINT, ZPROCESSIDTS BIGINT, ZTIMESTAMP DOUBLE PRECISION, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BYTEA );
            CREATE TABLE ATRANSACTIONSTRING ( Z_PK BIGINT PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
            CREATE INDEX ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP);
            CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME);
            """)
        for (number, name) in SQLPersistentHistory.primaryKeyRows {
            try connection.query("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, 0, 0) ON CONFLICT (Z_ENT) DO NOTHING",
                                 [String(number), name])
        }
    }

    /// Copies the old store's history into the migration's new tables (`SQLPersistentHistory.migrationCopies`),
    /// inside the migration's transaction with the new schema first in the search path. Nothing happens when the
    /// old store has no history tables.
    func copyHistory(from old: String, source: SQLMigrationSource, plan: SQLMigrationPlan) throws {
        let copies = SQLPersistentHistory.migrationCopies(from: old, source: source, plan: plan)
        guard !copies.isEmpty else { return }
        try createHistoryTables()
        for statement in copies { try connection.execute(statement) }
    }

    // MARK: Recording

    /// Records a save's changes as one transaction, inside the save's SQL transaction.
    func recordHistory(of changes: StoreChangeSet) throws {
        guard recordsHistory else { return }
        try recordHistory(SQLPersistentHistory.changes(of: changes), info: changes.transaction ?? SQLPersistentHistory.batchTransactionInfo)
    }

    /// Records one transaction of changed rows, inside the SQL transaction that changed them: the transaction
    /// number first (its row lock orders the recording servers), then the names, then every change in one
    /// statement. Nothing is recorded when history is off or no row changed.
    func recordHistory(_ rows: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)], info: StoreTransactionInfo) throws {
        guard recordsHistory, !rows.isEmpty else { return }
        let transaction = try nextHistoryKeys(SQLPersistentHistory.transactionEntity, count: 1)
        let names = [try stringKey(info.author), try stringKey(info.bundleID), try stringKey(info.contextName), try stringKey(info.processID)]
        var parameters: [String?] = [String(transaction), String(SQLPersistentHistory.transactionEntity)]
        parameters += names.map { $0.map(String.init) }
        parameters.append(PostgreSQLText.format(Date().timeIntervalSinceReferenceDate))
        try connection.query("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES ($1, $2, NULL, $3, $4, $5, $6, $7)
            """, parameters)
        let first = try nextHistoryKeys(SQLPersistentHistory.changeEntity, count: rows.count)
        // Columns as hex text (no quoting needed in an array literal), decoded by the server.
        try connection.query("""
            INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
            SELECT $1::bigint + change.position - 1, $2, NULL, change.kind, change.entity, change.primary_key, $3, decode(change.columns, 'hex')
            FROM unnest($4::integer[], $5::integer[], $6::bigint[], $7::text[]) WITH ORDINALITY
                 AS change(kind, entity, primary_key, columns, position)
            """, [String(first), String(SQLPersistentHistory.changeEntity), String(transaction),
                  Self.arrayLiteral(rows.map { String($0.kind.rawValue) }),
                  Self.arrayLiteral(rows.map { String(schema.storedNumber(forModel: $0.key.entityNumber)) }),
                  Self.arrayLiteral(rows.map { String($0.key.primaryKey) }),
                  Self.arrayLiteral(rows.map { $0.columns.map(Self.hex) ?? "NULL" })])
    }

    /// The first of `count` new keys of a history entity (its `Z_MAX` moves past them; the row stays locked
    /// until the transaction ends).
    private func nextHistoryKeys(_ entity: Int64, count: Int) throws -> Int64 {
        let result = try connection.query("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX",
                                          [String(count), String(entity)])
        guard let last = result.int64(0, 0) else {
            throw CoreDataError.saveFailed("the store in \(location.displayName) has no Z_PRIMARYKEY row for history entity \(entity)")
        }
        return last - Int64(count) + 1
    }

    /// The `ATRANSACTIONSTRING` key of a name, adding it when new; nil for nil.
    private func stringKey(_ name: String?) throws -> Int64? {
        guard let name else { return nil }
        if let existing = try connection.query("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = $1", [name]).int64(0, 0) {
            return existing
        }
        let key = try nextHistoryKeys(SQLPersistentHistory.stringEntity, count: 1)
        try connection.query("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES ($1, $2, NULL, $3)",
                             [String(key), String(SQLPersistentHistory.stringEntity), name])
        return key
    }

    /// An array literal of elements that need no quoting (numbers, hex digits, `NULL`).
    private static func arrayLiteral(_ elements: [String]) -> String { "{" + elements.joined(separator: ",") + "}" }

    /// The bytes as hexadecimal digits.
    private static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(data.count * 2)
        for byte in data { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: Reading

    public func newestHistoryTransactionNumber() throws -> Int64? {
        try run("read persistent history", writes: false) {
            guard try hasHistoryTables() else { return nil }
            return try connection.query(SQLPersistentHistory.newestTransactionQuery).int64(0, 0) ?? 0
        }
    }

    public func historyTransactions(after position: StoreHistoryPosition) throws -> [StoreHistoryTransaction] {
        try run("read persistent history", writes: false) {
            guard try hasHistoryTables() else { return [] }
            // One snapshot for the three reads: a transaction committed in between is in all or none of them.
            return try connection.transaction(isolation: "REPEATABLE READ") { try readTransactions(after: position) }
        }
    }

    /// The transactions after `position` with their changes (inside a read transaction).
    private func readTransactions(after position: StoreHistoryPosition) throws -> [StoreHistoryTransaction] {
        if case .transaction(let number) = position {
            let range = try connection.query(SQLPersistentHistory.retainedRangeQuery)
            try SQLPersistentHistory.checkTokenNotExpired(after: number, oldestKept: range.int64(0, 0), lastGivenOut: range.int64(0, 1))
        }
        var strings: [Int64: String] = [:]
        let names = try connection.query("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING")
        for row in 0..<names.rowCount {
            if let key = names.int64(row, 0) { strings[key] = names.text(row, 1) }
        }
        let (condition, parameters) = Self.condition(position, after: true)
        let found = try connection.query("""
            SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS FROM ATRANSACTION WHERE \(condition) ORDER BY Z_PK
            """, parameters)
        var transactions: [StoreHistoryTransaction] = []
        var index: [Int64: Int] = [:]
        for row in 0..<found.rowCount {
            guard let number = found.int64(row, 0) else { continue }
            func name(_ column: Int) -> String? { found.int64(row, column).flatMap { strings[$0] } }
            let info = StoreTransactionInfo(author: name(2), contextName: name(4), bundleID: name(3) ?? "", processID: name(5) ?? "")
            let seconds = found.text(row, 1).flatMap(PostgreSQLText.double) ?? 0
            index[number] = transactions.count
            transactions.append(StoreHistoryTransaction(number: number, timestamp: Date(timeIntervalSinceReferenceDate: seconds), info: info, changes: []))
        }
        guard let first = transactions.first?.number else { return [] }
        let changes = try connection.query("""
            SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID >= $1 ORDER BY Z_PK
            """, [String(first)])
        for row in 0..<changes.rowCount {
            guard let number = changes.int64(row, 0), let transaction = changes.int64(row, 4), let at = index[transaction],
                  let kind = changes.int64(row, 1).flatMap({ StoreHistoryChange.Kind(rawValue: Int($0)) }),
                  let stored = changes.int64(row, 2), case let entityNumber = schema.modelNumber(forStored: stored), entityNumber > 0,
                  let primaryKey = changes.int64(row, 3), primaryKey > 0 else { continue }
            var updated: [Int]?
            if kind == .update, let mask = changes.text(row, 5).flatMap(PostgreSQLText.bytes), let entity = model.entity(withNumber: entityNumber) {
                updated = SQLPersistentHistory.slots(inMask: mask, slotCount: entity.layout.slotCount)
            }
            transactions[at].changes.append(StoreHistoryChange(number: number, key: ObjectKey(entityNumber: entityNumber, primaryKey: primaryKey),
                                                               kind: kind, updatedSlots: updated))
        }
        return transactions
    }

    public func deleteHistory(before position: StoreHistoryPosition) throws -> Int {
        try checkWritable()
        return try run("delete persistent history") {
            guard try hasHistoryTables() else { return 0 }
            let (condition, parameters) = Self.condition(position, after: false)
            return try connection.transaction {
                try connection.query("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))", parameters)
                return try connection.query("DELETE FROM ATRANSACTION WHERE \(condition)", parameters).affectedRows
            }
        }
    }

    /// The SQL condition on `ATRANSACTION` for transactions after a position, or up to it. A transaction
    /// position is the point just after that transaction (a token's meaning): fetching after it leaves the
    /// transaction out, deleting up to it takes it too.
    private static func condition(_ position: StoreHistoryPosition, after: Bool) -> (String, [String?]) {
        switch position {
        case .start: return (after ? "TRUE" : "FALSE", [])
        case .date(let date): return (after ? "ZTIMESTAMP > $1" : "ZTIMESTAMP < $1", [PostgreSQLText.format(date.timeIntervalSinceReferenceDate)])
        case .transaction(let number): return (after ? "Z_PK > $1" : "Z_PK <= $1", [String(number)])
        }
    }
}

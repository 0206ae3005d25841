import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// One connection to a SQLite database file, with a cache of prepared statements keyed by SQL text.
///
/// Not thread-safe: the coordinator calls a store from one thread at a time. Every SQLite failure becomes an
/// `NSError` with code `NSSQLiteError` (134180) and the SQLite result code under `NSSQLiteErrorDomain`.
final class SQLiteConnection {
    /// The raw handle; nil after `close()`.
    private(set) var handle: OpaquePointer?
    /// The path the connection was opened with.
    let path: String
    private var statements: [String: SQLiteStatement] = [:]
    /// The objects whose derived attributes the `Z_DA_…` triggers changed since it was last emptied
    /// (`SQLiteFunctions` fills it).
    let derivedChanges = SQLiteDerivedChanges()

    /// Opens `path` (a file path, or a `file:` URI when `uri` is true) with SQLite open flags.
    /// - Throws: 134180 when SQLite cannot open it.
    init(path: String, flags: Int32, uri: Bool = false) throws {
        self.path = path
        var db: OpaquePointer?
        let result = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0), nil)
        guard result == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteConnection.error(code: result, message: message, sql: nil)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    /// Finalizes every cached statement and closes the connection. Safe to call twice.
    func close() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs SQL text that takes no parameters (schema statements, pragmas, transaction control).
    /// - Throws: 134180 with SQLite's message.
    func execute(_ sql: String) throws {
        guard let handle else { throw SQLiteConnection.closedError() }
        let started = SQLDebugLog.recordingLevel > 0 ? DispatchTime.now().uptimeNanoseconds : nil
        defer {
            if let started {
                SQLDebugLog.report(SQLStatementRecord(sql: sql, bindings: [], duration: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9,
                                                      rowCount: 0, database: path))
            }
        }
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        if result != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteConnection.error(code: result, message: text, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reset and with its bindings cleared, from the cache when it was
    /// prepared before.
    /// - Throws: 134180 when SQLite rejects the SQL.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// A statement that is not cached (for SQL that varies with the data, such as IN lists of many sizes).
    /// `traced: false` keeps its runs out of the SQL debug log (the log's own queries).
    func prepare(_ sql: String, traced: Bool = true) throws -> SQLiteStatement {
        guard let handle else { throw SQLiteConnection.closedError() }
        var raw: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard result == SQLITE_OK, let raw else {
            throw SQLiteConnection.error(code: result, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        return SQLiteStatement(raw, connection: self, sql: sql, traced: traced)
    }

    /// The rows of a query, each read by `body`.
    func query<T>(_ sql: String, _ bindings: [SQLValue] = [], cached: Bool = true, _ body: (SQLiteStatement) throws -> T) throws -> [T] {
        let statement = cached ? try statement(sql) : try prepare(sql)
        defer { cached ? statement.reset() : statement.finalize() }
        try statement.bind(bindings)
        var result: [T] = []
        while try statement.step() { result.append(try body(statement)) }
        return result
    }

    /// Calls `body` on each row of a query (for callers that keep only some rows, without an array of all).
    func forEachRow(_ sql: String, _ bindings: [SQLValue] = [], _ body: (SQLiteStatement) throws -> Void) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() { try body(statement) }
    }

    /// Runs a statement that returns no rows, and returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ bindings: [SQLValue] = [], cached: Bool = true) throws -> Int {
        let statement = cached ? try statement(sql) : try prepare(sql)
        defer { cached ? statement.reset() : statement.finalize() }
        try statement.bind(bindings)
        while try statement.step() {}
        return changes
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// Whether a table (or view) of this name exists.
    func tableExists(_ name: String) throws -> Bool {
        try !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) { _ in true }.isEmpty
    }

    /// The column names of a table, in order.
    func columns(of table: String) throws -> [String] {
        try query("SELECT name FROM pragma_table_info(?)", [.text(table)]) { $0.string(at: 0) ?? "" }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws. Inside a transaction
    /// already open, `body` simply runs as part of it (the outer transaction commits or rolls back).
    func transaction<T>(_ body: () throws -> T) throws -> T {
        if let handle, sqlite3_get_autocommit(handle) == 0 { return try body() }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` inside one read transaction (`BEGIN … COMMIT`), so its statements read one snapshot of
    /// the database and take the file's locks once rather than once each. Inside a transaction already open,
    /// `body` simply runs as part of it.
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        if let handle, sqlite3_get_autocommit(handle) == 0 { return try body() }
        try run("BEGIN")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    // MARK: Errors

    /// The Core Data error for a SQLite result code (134180, or 259 for a damaged file).
    static func error(code: Int32, message: String, sql: String?) -> NSError {
        var info: [String: Any] = [NSSQLiteErrorDomain: Int(code & 0xff), "NSSQLiteExtendedErrorCode": Int(code)]
        if let sql { info["NSSQLiteStatement"] = sql }
        let primary = code & 0xff
        if primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB {
            return CoreDataError.make(NSFileReadCorruptFileError, "The SQLite store is damaged: \(message).", userInfo: info)
        }
        return CoreDataError.make(NSSQLiteError, "SQLite error \(code): \(message).", userInfo: info)
    }

    static func closedError() -> NSError {
        CoreDataError.make(NSSQLiteError, "The SQLite store is closed.", userInfo: [NSSQLiteErrorDomain: Int(SQLITE_MISUSE)])
    }
}

/// A prepared statement; owned by its connection's cache or by the caller that prepared it.
final class SQLiteStatement {
    /// The statement's handle; nil after `finalize()`. Every access is a single load or store, so it takes no run-time
    /// exclusivity check (`@exclusivity(unchecked)`: one per step and per column read before, a twentieth of a fetch's
    /// rows in a profile).
    @exclusivity(unchecked) private(set) var handle: OpaquePointer?
    unowned let connection: SQLiteConnection
    let sql: String
    /// Whether runs are reported to the SQL debug log.
    private let traced: Bool
    /// The values bound since the last reset, kept only while the SQL debug log records.
    private var loggedBindings: [Int32: SQLValue] = [:]
    /// The run being recorded for the SQL debug log, from its first step to its end. Every access is a single load or
    /// store (a row is recorded on a copy taken out of it), so it takes no run-time exclusivity check.
    @exclusivity(unchecked) private var trace: SQLiteStatementTrace?

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String, traced: Bool = true) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
        self.traced = traced
    }

    func finalize() {
        endTrace()
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    func reset() {
        endTrace()
        guard let handle else { return }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        if !loggedBindings.isEmpty { loggedBindings.removeAll() }
    }

    /// Reports a recorded run to the SQL debug log.
    private func endTrace() {
        guard let finished = trace else { return }
        trace = nil
        SQLDebugLog.report(finished.record(of: self))
    }

    /// Binds values to parameters 1…n.
    func bind(_ values: [SQLValue]) throws {
        for (index, value) in values.enumerated() { try bind(value, at: Int32(index + 1)) }
    }

    /// Binds one value to a 1-based parameter index.
    func bind(_ value: SQLValue, at index: Int32) throws {
        guard let handle else { throw SQLiteConnection.closedError() }
        if traced && SQLDebugLog.recordingLevel > 0 { loggedBindings[index] = value }
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(handle, index)
        case .integer(let v): result = sqlite3_bind_int64(handle, index, v)
        case .real(let v): result = sqlite3_bind_double(handle, index, v)
        case .text(let v): result = sqlite3_bind_text(handle, index, v, -1, csqlite_transient())
        case .blob(let v):
            result = v.withUnsafeBytes { buffer in
                // A zero-length blob must still be a blob, not NULL.
                sqlite3_bind_blob64(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(buffer.count), csqlite_transient())
            }
        }
        if result != SQLITE_OK { throw failure(result) }
    }

    func bind(_ value: Int64, at index: Int32) {
        if traced && SQLDebugLog.recordingLevel > 0 { loggedBindings[index] = .integer(value) }
        if let handle { sqlite3_bind_int64(handle, index, value) }
    }

    /// Advances to the next row: true when a row is ready, false when the statement is done.
    /// - Throws: 134180 (or 259 for a damaged file).
    func step() throws -> Bool {
        guard let handle else { throw SQLiteConnection.closedError() }
        if traced, trace == nil, case let level = SQLDebugLog.recordingLevel, level > 0 {
            trace = SQLiteStatementTrace(self, bound: loggedBindings, level: level)
        }
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW:
            if var running = trace {
                trace = nil  // the copy is the only holder of its buffers while it records
                running.recordRow(self)
                trace = running
            }
            return true
        case SQLITE_DONE:
            endTrace()
            return false
        default:
            endTrace()
            let error = failure(result)
            sqlite3_reset(handle)
            throw error
        }
    }

    private func failure(_ code: Int32) -> NSError {
        let message = connection.handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed"
        return SQLiteConnection.error(code: code, message: message, sql: sql)
    }

    // MARK: Columns

    var columnCount: Int32 { handle.map { sqlite3_column_count($0) } ?? 0 }

    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func columnType(at column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column's text (its UTF-8 bytes, ill-formed sequences repaired), read by its length rather than up to a NUL.
    func string(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func data(at column: Int32) -> Data? {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let bytes = sqlite3_column_blob(handle, column) else { return isNull(at: column) ? nil : Data() }
        return Data(bytes: bytes, count: count)
    }

    func columnName(at column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }
}

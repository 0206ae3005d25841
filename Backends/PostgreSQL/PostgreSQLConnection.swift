import CLibPQ
import CoreDataStoreKit

/// One libpq connection to a PostgreSQL server, used from one thread at a time (the coordinator's lock).
///
/// Guarantees:
/// - Every statement runs with its values as separate parameters in libpq's text format; SQL text never
///   carries a value. A statement text sent a second time is prepared on the server and run from then on
///   without being parsed again (`PostgreSQLPreparedStatements`).
/// - The session is set to UTC, ISO dates and UTF-8, so values read back the same on every server.
/// - A connection the server dropped (a restart, a network failure) is reset before the next statement that
///   runs outside a transaction, and a statement outside a transaction that finds the connection dropped is
///   sent once more on the new one. A statement inside a transaction (its `COMMIT` included) fails with
///   `PostgreSQLError.connectionLost` and is never sent again: the server rolls the transaction back, so
///   nothing of it is written.
/// - Secrets are never part of an error message: messages name the host, port and database only.
final class PostgreSQLConnection {
    private var handle: OpaquePointer?
    /// Where the connection goes, without user or password, for messages.
    let displayName: String
    /// Whether a transaction opened by `transaction(_:)` is running.
    private(set) var inTransaction = false
    /// Statements that set up the session beyond the connection parameters (`LISTEN`), run again after the
    /// connection is reset, since a new session starts without them.
    var sessionStatements: [String] = []
    /// The statements prepared in this session.
    private var preparedStatements = PostgreSQLPreparedStatements()

    /// Connects with libpq's connection parameters (`host`, `port`, `dbname`, `user`, `password`, …; a
    /// `dbname` holding a `postgresql://` URI is expanded as libpq does). Parameters libpq does not name
    /// here come from the standard `PG*` environment variables.
    /// - Throws: `PostgreSQLError` when the server cannot be reached or refuses the connection.
    init(parameters: [(String, String)], displayName: String) throws {
        self.displayName = displayName
        let session = "-c TimeZone=UTC -c DateStyle=ISO,YMD -c extra_float_digits=3 -c IntervalStyle=iso_8601"
        var all = parameters
        all.append(("client_encoding", "UTF8"))
        if !all.contains(where: { $0.0 == "options" }) { all.append(("options", session)) }
        all.append(("application_name", "swift-coredata"))
        handle = Self.connect(all)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.map { Self.message(of: $0) } ?? "libpq could not allocate a connection"
            if let handle { PQfinish(handle) }
            self.handle = nil
            throw PostgreSQLError(kind: .connectionFailed, sqlState: nil, message: "cannot connect to \(displayName): \(message)")
        }
        // Notices (`DROP … CASCADE` lists what it drops) are for interactive sessions, not a library's stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    private static func connect(_ parameters: [(String, String)]) -> OpaquePointer? {
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordPointers = keywords.map { UnsafePointer<CChar>($0) } + [nil]
        let valuePointers = values.map { UnsafePointer<CChar>($0) } + [nil]
        return keywordPointers.withUnsafeBufferPointer { keys in
            valuePointers.withUnsafeBufferPointer { vals in
                PQconnectdbParams(keys.baseAddress, vals.baseAddress, 1)
            }
        }
    }

    deinit { close() }

    /// Closes the connection; later statements throw.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedStatements.removeAll()
    }

    /// The server's version number (150018 for 15.18).
    var serverVersion: Int32 { handle.map { PQserverVersion($0) } ?? 0 }

    // MARK: Statements

    /// Runs one statement with its parameters (nil is SQL NULL) and returns its rows.
    /// - Throws: `PostgreSQLError` with the server's SQLSTATE, or `.connectionLost`.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgreSQLResult {
        let level = SQLDebugLog.recordingLevel
        guard level > 0 else { return try resending { try send(sql, parameters) } }
        let started = DispatchTime.now().uptimeNanoseconds
        let result = try resending { try send(sql, parameters) }
        report(sql, parameters, started: started, result: result, level: level)
        return result
    }

    /// Runs statements without parameters (several may be separated by semicolons).
    func execute(_ sql: String) throws {
        let started = SQLDebugLog.recordingLevel > 0 ? DispatchTime.now().uptimeNanoseconds : nil
        try resending { _ = try checked(PQexec(try usableHandle(), sql), sql: sql) }
        if let started { report(sql, [], started: started, result: nil, level: 1) }
    }

    /// Hands a statement that ran to the SQL debug log (`SQLDebugLog`): parameters as text in quotes, and at
    /// level 3 the rows' values.
    private func report(_ sql: String, _ parameters: [String?], started: UInt64, result: PostgreSQLResult?, level: Int) {
        let rows = level >= 3 ? (result.map { result in
            (0..<result.rowCount).map { row in
                (0..<result.columnCount).map { column in result.text(row, column).map { "\"\($0)\"" } ?? "NULL" }.joined(separator: ", ")
            }
        } ?? []) : []
        SQLDebugLog.report(SQLStatementRecord(sql: sql, bindings: parameters.map { $0.map { "\"\($0)\"" } ?? "NULL" },
                                              duration: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9,
                                              rowCount: result?.rowCount ?? 0, database: displayName, rows: rows))
    }

    /// Runs `attempt`, and once more when it found the connection dropped outside a transaction.
    private func resending<T>(_ attempt: () throws -> T) throws -> T {
        do {
            return try attempt()
        } catch let error as PostgreSQLError where error.kind == .connectionLost && !inTransaction {
            return try attempt()
        }
    }

    /// Sends one statement: through the statement prepared for its text when there is one, preparing it first
    /// on its second send (`PostgreSQLPreparedStatements`), else with its text.
    private func send(_ sql: String, _ parameters: [String?]) throws -> PostgreSQLResult {
        let handle = try usableHandle()
        let text = PostgreSQLParameterText(parameters)
        let count = Int32(parameters.count)
        return try text.withPointers { values in
            if let name = preparedStatements.name(of: sql) {
                do {
                    return try checked(PQexecPrepared(handle, name, count, values.baseAddress, nil, nil, 0), sql: sql)
                } catch let error as PostgreSQLError where error.sqlState == "0A000" {
                    // "cached plan must not change result type": a table it reads changed (a migration). The
                    // statement is sent with its text from now on; inside a transaction the error stands.
                    preparedStatements.forget(sql)
                    guard !inTransaction else { throw error }
                }
            } else if let name = preparedStatements.nameToPrepare(sql) {
                _ = try checked(PQprepare(handle, name, sql, count, nil), sql: sql)
                preparedStatements.didPrepare(sql, as: name)
                return try checked(PQexecPrepared(handle, name, count, values.baseAddress, nil, nil, 0), sql: sql)
            }
            return try checked(PQexecParams(handle, sql, count, nil, values.baseAddress, nil, nil, 0), sql: sql)
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws. Nested calls
    /// join the outer transaction.
    func transaction<T>(isolation: String = "READ COMMITTED", _ body: () throws -> T) throws -> T {
        if inTransaction { return try body() }
        try execute("BEGIN ISOLATION LEVEL \(isolation)")
        inTransaction = true
        defer { inTransaction = false }
        do {
            let value = try body()
            // Inside the transaction still: a COMMIT whose answer is lost is never sent again.
            _ = try checked(PQexec(try usableHandle(), "COMMIT"), sql: "COMMIT")
            return value
        } catch {
            if let handle, PQstatus(handle) == CONNECTION_OK { _ = try? checked(PQexec(handle, "ROLLBACK"), sql: "ROLLBACK") }
            throw error
        }
    }

    // MARK: Notifications

    /// The notifications that have arrived, after reading what the server sent (does not wait).
    func pendingNotifications() throws -> [(channel: String, payload: String)] {
        let handle = try usableHandle()
        guard PQconsumeInput(handle) == 1 else {
            throw PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "the connection to \(displayName) was lost: \(Self.message(of: handle))")
        }
        var found: [(String, String)] = []
        while let notification = PQnotifies(handle) {
            found.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return found
    }

    /// The connection's socket, to wait on for notifications; -1 when closed.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    // MARK: Errors

    /// The handle, reset first when the server dropped the connection outside a transaction.
    private func usableHandle() throws -> OpaquePointer {
        guard let handle else {
            throw PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "the connection to \(displayName) is closed")
        }
        if PQstatus(handle) != CONNECTION_OK {
            guard !inTransaction else {
                throw PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "the connection to \(displayName) was lost during a transaction")
            }
            PQreset(handle)
            preparedStatements.removeAll()
            guard PQstatus(handle) == CONNECTION_OK else {
                throw PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "cannot reconnect to \(displayName): \(Self.message(of: handle))")
            }
            for statement in sessionStatements { _ = try checked(PQexec(handle, statement), sql: statement) }
        }
        return handle
    }

    private func checked(_ result: OpaquePointer?, sql: String) throws -> PostgreSQLResult {
        guard let result else {
            throw PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "no answer from \(displayName): \(handle.map(Self.message(of:)) ?? "")")
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgreSQLResult(result)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            var message = PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
            PQclear(result)
            message = message.trimmingCharacters(in: .whitespacesAndNewlines)
            let lost = handle.map { PQstatus($0) != CONNECTION_OK } ?? true
            let kind: PostgreSQLError.Kind = lost || (state?.hasPrefix("08") ?? false) || state == "57P01" ? .connectionLost : .server
            throw PostgreSQLError(kind: kind, sqlState: state, message: message + " (in: \(Self.excerpt(sql)))")
        }
    }

    private static func message(of handle: OpaquePointer) -> String {
        PQerrorMessage(handle).map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    /// The start of a statement, for messages (statements hold no values).
    private static func excerpt(_ sql: String) -> String {
        sql.count > 160 ? String(sql.prefix(160)) + "…" : sql
    }
}

/// The rows of one statement, in libpq's text format.
final class PostgreSQLResult {
    private let result: OpaquePointer
    let rowCount: Int
    let columnCount: Int

    init(_ result: OpaquePointer) {
        self.result = result
        rowCount = Int(PQntuples(result))
        columnCount = Int(PQnfields(result))
    }

    deinit { PQclear(result) }

    /// The number of rows an `INSERT`, `UPDATE` or `DELETE` touched.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    /// The value's text in place (valid while this result lives), or nil for NULL.
    func cString(_ row: Int, _ column: Int) -> UnsafePointer<CChar>? {
        if isNull(row, column) { return nil }
        return UnsafePointer(PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// The value's text, or nil for NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        if isNull(row, column) { return nil }
        return String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// The value as an integer, or nil for NULL or text that is not one.
    func int64(_ row: Int, _ column: Int) -> Int64? {
        if isNull(row, column) { return nil }
        return PostgreSQLText.int64(PQgetvalue(result, Int32(row), Int32(column)))
    }
}

/// A failure reported by libpq or the server.
struct PostgreSQLError: Error, CustomStringConvertible {
    enum Kind {
        /// The server could not be reached or refused the connection.
        case connectionFailed
        /// The connection broke; a transaction in flight was not committed.
        case connectionLost
        /// The server refused a statement (`sqlState` says why).
        case server
    }

    let kind: Kind
    /// The five-character SQLSTATE, when the server sent one (`23505` unique violation, `40001` serialization).
    let sqlState: String?
    let message: String

    var description: String { sqlState.map { "PostgreSQL error \($0): \(message)" } ?? "PostgreSQL: \(message)" }
}

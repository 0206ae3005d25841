import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// What the SQL debug log (`SQLDebugLog`, Apple's `-com.apple.CoreData.SQLDebug N`) records of one run of a
/// statement, from its first step to its last (or its reset): the values bound, the rows returned, the time,
/// and at level 4 SQLite's query plan. Made only while the log records.
struct SQLiteStatementTrace {
    let level: Int
    let started = DispatchTime.now().uptimeNanoseconds
    let bindings: [String]
    let queryPlan: [String]
    var rowCount = 0
    var rows: [String] = []

    /// Starts recording a run of `statement`, whose parameters hold `bound` (by 1-based index).
    init(_ statement: SQLiteStatement, bound: [Int32: SQLValue], level: Int) {
        self.level = level
        let count = bound.keys.max() ?? 0
        bindings = count > 0 ? (1...count).map { Self.text(bound[$0] ?? .null) } : []
        queryPlan = level >= 4 && Self.isQuery(statement.sql) ? statement.connection.queryPlan(of: statement.sql, bound: bound) : []
    }

    /// Counts the row the statement is on, and at level 3 keeps its values.
    mutating func recordRow(_ statement: SQLiteStatement) {
        rowCount += 1
        if level >= 3 {
            rows.append((0..<statement.columnCount).map { Self.text(columnOf: statement, $0) }.joined(separator: ", "))
        }
    }

    /// The record of the finished run, for `SQLDebugLog.report(_:)`.
    func record(of statement: SQLiteStatement) -> SQLStatementRecord {
        SQLStatementRecord(sql: statement.sql, bindings: bindings,
                           duration: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9,
                           rowCount: rowCount, database: statement.connection.path, queryPlan: queryPlan, rows: rows)
    }

    static func isQuery(_ sql: String) -> Bool {
        let head = sql.prefix(8).uppercased()
        return head.hasPrefix("SELECT") || head.hasPrefix("WITH")
    }

    /// A value as the log prints it: numbers as they are, text in quotes, data as its length.
    static func text(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "\"\(value)\""
        case .blob(let value): return "<\(value.count) bytes>"
        }
    }

    private static func text(columnOf statement: SQLiteStatement, _ column: Int32) -> String {
        switch statement.columnType(at: column) {
        case SQLITE_NULL: return "NULL"
        case SQLITE_INTEGER: return String(statement.int64(at: column))
        case SQLITE_FLOAT: return String(statement.double(at: column))
        case SQLITE_TEXT: return "\"\(statement.string(at: column) ?? "")\""
        default: return "<\(statement.data(at: column)?.count ?? 0) bytes>"
        }
    }
}

extension SQLiteConnection {
    /// SQLite's `EXPLAIN QUERY PLAN` of `sql` with the same values bound: one line per step of the plan. Empty
    /// when SQLite cannot explain it. The explaining statement is not itself logged.
    func queryPlan(of sql: String, bound: [Int32: SQLValue]) -> [String] {
        guard let explain = try? prepare("EXPLAIN QUERY PLAN " + sql, traced: false) else { return [] }
        defer { explain.finalize() }
        for (index, value) in bound { try? explain.bind(value, at: index) }
        var lines: [String] = []
        while (try? explain.step()) == true { lines.append(explain.string(at: 3) ?? "") }
        return lines
    }
}

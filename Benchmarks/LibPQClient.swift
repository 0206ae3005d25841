// The benchmark's own libpq client: the "raw" side of the PostgreSQL workloads, written as an application that
// talks to PostgreSQL directly would write it (prepared statements, integer parameters and results in libpq's
// text format, one transaction around a run of writes). It shares no code with the PostgreSQL store.
//
// With `BENCHMARK_RAW_UNPREPARED=1` it prepares nothing: each statement is sent with its SQL text
// (`PQexecParams`), so the server parses and plans it every time, as the PostgreSQL store's statements are.
import CLibPQ
import Foundation

/// One libpq connection, used by one thread.
final class LibPQClient {
    private let handle: OpaquePointer
    /// The text of the integer parameters of the statement being run, 24 bytes each, reused and grown as needed.
    private var parameterText = UnsafeMutablePointer<CChar>.allocate(capacity: 16 * 24)
    private var parameterCapacity = 16
    private var parameterPointers = [UnsafePointer<CChar>?](repeating: nil, count: 16)
    /// Whether `prepare(_:_:)` prepares on the server; when not, it keeps the SQL text of each name here.
    private let preparesStatements = ProcessInfo.processInfo.environment["BENCHMARK_RAW_UNPREPARED"] != "1"
    private var unpreparedStatements: [String: String] = [:]

    /// Connects with a libpq connection URI and, when `schema` is given, puts that schema first on the
    /// search path (libpq itself knows no `schema` parameter).
    /// - Throws: `RawFailure` when the server cannot be reached.
    init(uri: String, schema: String? = nil) throws {
        guard let handle = PQconnectdb(uri), PQstatus(handle) == CONNECTION_OK else {
            throw RawFailure(description: "libpq cannot connect to \(uri)")
        }
        self.handle = handle
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        if let schema { try execute("SET search_path TO \(schema)") }
    }

    deinit {
        PQfinish(handle)
        parameterText.deallocate()
    }

    /// Runs statements without parameters (several may be separated by semicolons).
    /// - Throws: `RawFailure` with the server's message.
    func execute(_ sql: String) throws {
        PQclear(try checked(PQexec(handle, sql)))
    }

    /// Prepares `sql` under `name` for `run(_:_:)` (with `BENCHMARK_RAW_UNPREPARED=1`, only notes it).
    /// - Throws: `RawFailure` with the server's message.
    func prepare(_ name: String, _ sql: String) throws {
        guard preparesStatements else { unpreparedStatements[name] = sql; return }
        PQclear(try checked(PQprepare(handle, name, sql, 0, nil)))
    }

    /// Runs the prepared statement `name` with integer parameters and returns its result, which the caller
    /// reads and then frees with `PQclear`.
    /// - Throws: `RawFailure` with the server's message.
    func run(_ name: String, _ values: [Int64]) throws -> OpaquePointer {
        if values.count > parameterCapacity {
            parameterText.deallocate()
            parameterCapacity = values.count
            parameterText = .allocate(capacity: parameterCapacity * 24)
            parameterPointers = [UnsafePointer<CChar>?](repeating: nil, count: parameterCapacity)
        }
        for (index, value) in values.enumerated() {
            let slot = parameterText + index * 24
            Self.writeDecimal(value, to: slot)
            parameterPointers[index] = UnsafePointer(slot)
        }
        let result = parameterPointers.withUnsafeBufferPointer { pointers in
            if let sql = unpreparedStatements[name] {
                return PQexecParams(handle, sql, Int32(values.count), nil, pointers.baseAddress, nil, nil, 0)
            }
            return PQexecPrepared(handle, name, Int32(values.count), pointers.baseAddress, nil, nil, 0)
        }
        return try checked(result)
    }

    /// Runs the prepared statement `name` for its effect only.
    /// - Throws: `RawFailure` with the server's message.
    func command(_ name: String, _ values: [Int64]) throws {
        PQclear(try run(name, values))
    }

    /// Runs a statement without parameters and returns its result, which the caller frees with `PQclear`.
    func query(_ sql: String) throws -> OpaquePointer {
        try checked(PQexec(handle, sql))
    }

    /// The integer in column `column` of row `row` (text format), 0 for NULL.
    static func int64(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64 {
        strtoll(PQgetvalue(result, row, column), nil, 10)
    }

    private func checked(_ result: OpaquePointer?) throws -> OpaquePointer {
        guard let result else { throw RawFailure(description: "libpq: no result: \(String(cString: PQerrorMessage(handle)))") }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            let message = String(cString: PQresultErrorMessage(result))
            PQclear(result)
            throw RawFailure(description: "libpq: \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// Writes `value` in decimal, NUL-terminated, into the 24 bytes at `buffer`.
    private static func writeDecimal(_ value: Int64, to buffer: UnsafeMutablePointer<CChar>) {
        var start = 0
        if value < 0 { buffer[0] = 45; start = 1 }   // "-"
        var digitCount = 0
        var remaining = value.magnitude
        repeat { digitCount += 1; remaining /= 10 } while remaining > 0
        remaining = value.magnitude
        for offset in stride(from: start + digitCount - 1, through: start, by: -1) {
            buffer[offset] = CChar(48 + remaining % 10)
            remaining /= 10
        }
        buffer[start + digitCount] = 0
    }
}

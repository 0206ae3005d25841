// The PostgreSQL server of the PostgreSQL workloads: the URI given with `--postgres URI` or in
// `COREDATA_POSTGRES_URL`, or else a throwaway cluster started with `Scripts/postgres-test-server` and stopped
// when the benchmark ends (its watchdog stops it if the benchmark dies first).
import CLibPQ
import Foundation

/// A PostgreSQL server to measure on, and the fresh schemas each measurement runs in.
final class PostgreSQLBenchmarkServer {
    /// The server's libpq connection URI, without a `schema` parameter.
    let uri: String
    /// The cluster folder when this process started the server (stopped by `stop()`), else nil.
    private var startedDirectory: String?
    /// A connection of the benchmark's own, for dropping schemas, analysing tables and reading the version.
    private lazy var admin: LibPQClient? = try? LibPQClient(uri: uri)

    /// Uses `given` (from `--postgres`), else `COREDATA_POSTGRES_URL`, else starts a throwaway cluster.
    /// - Throws: `RawFailure` when no server was given and the script cannot start one.
    init(given: String?) throws {
        if let given = given ?? ProcessInfo.processInfo.environment["COREDATA_POSTGRES_URL"], !given.isEmpty {
            uri = given
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-benchmark-postgres-\(UUID().uuidString)").path
        let started = Self.script(["start", directory, String(ProcessInfo.processInfo.processIdentifier)])
        let printed = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard started.status == 0, !printed.isEmpty else {
            throw RawFailure(description: "no PostgreSQL server: give --postgres URI or COREDATA_POSTGRES_URL, or install Debian's postgresql package (\(started.errors.trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
        uri = printed
        startedDirectory = directory
    }

    /// Whether the server is a throwaway cluster of this run (`fsync` off, Unix socket).
    var isThrowaway: Bool { startedDirectory != nil }

    /// Stops the server when this process started it; does nothing otherwise. Safe to call twice.
    func stop() {
        admin = nil
        guard let directory = startedDirectory else { return }
        _ = Self.script(["stop", directory])
        startedDirectory = nil
    }

    deinit { stop() }

    /// The server's version string (`SHOW server_version`).
    func version() -> String {
        guard let admin, let result = try? admin.query("SHOW server_version") else { return "unknown" }
        defer { PQclear(result) }
        return String(cString: PQgetvalue(result, 0, 0))
    }

    /// A new schema name, never used before: `bench_` and 32 hexadecimal digits.
    func freshSchema() -> String {
        "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// The store URL of a schema: the server's URI with `schema=` added.
    func storeURL(schema: String) -> URL { Self.storeURL(uri: uri, schema: schema) }

    /// The store URL of a schema on the server at `uri`.
    static func storeURL(uri: String, schema: String) -> URL {
        URL(string: uri + (uri.contains("?") ? "&" : "?") + "schema=" + schema)!
    }

    /// Drops a schema and everything in it; a schema that does not exist is no failure.
    func drop(schema: String) throws {
        guard let admin else { throw RawFailure(description: "libpq cannot connect to \(uri)") }
        try admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }

    /// Runs `ANALYZE` on a table of a schema, so the planner knows its rows before the fetches are timed
    /// (autovacuum would otherwise do it at a moment of its own choosing).
    func analyze(schema: String, table: String) throws {
        guard let admin else { throw RawFailure(description: "libpq cannot connect to \(uri)") }
        try admin.execute("ANALYZE \(schema).\(table)")
    }

    /// The rows of `zrecord` in a schema, and how many of them were updated once after their insert
    /// (`Z_OPT` 2): what the concurrent clients are checked against.
    func recordCounts(schema: String) throws -> (rows: Int, updatedOnce: Int) {
        guard let admin else { throw RawFailure(description: "libpq cannot connect to \(uri)") }
        let result = try admin.query("SELECT count(*), count(*) FILTER (WHERE Z_OPT = 2) FROM \(schema).ZRECORD")
        defer { PQclear(result) }
        return (Int(LibPQClient.int64(result, 0, 0)), Int(LibPQClient.int64(result, 0, 1)))
    }

    /// Runs `Scripts/postgres-test-server` through `system(3)`, its output in temporary files. (Foundation's
    /// `Process.waitUntilExit` was seen to hang when the script leaves its watchdog running in the background.)
    private static func script(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-test-server-\(UUID().uuidString)").path
        let output = base + ".out", errors = base + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        let quoted = ([scriptPath] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let status = system("/bin/bash " + quoted.joined(separator: " ") + " >'\(output)' 2>'\(errors)' </dev/null")
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (status == 0 ? 0 : max(1, status >> 8), read(output), read(errors))
    }

    /// The script in this package's source tree (the benchmark is run from its checkout).
    private static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/postgres-test-server").path
    }
}

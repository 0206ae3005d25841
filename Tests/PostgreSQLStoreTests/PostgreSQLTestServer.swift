import CoreData
import Foundation

/// The PostgreSQL server the tests use: `COREDATA_POSTGRES_URL` when set (`.ci/run` starts a throwaway
/// cluster and sets it), otherwise a throwaway cluster started here with `Scripts/postgres-test-server`,
/// stopped when the test process ends. When neither works, `url` is nil, the reason is printed to standard
/// error, and the PostgreSQL tests are reported as skipped (`unavailableReason`).
enum PostgreSQLTestServer {
    /// The server's connection URI, or nil when no server could be had. Starting the cluster takes seconds, so
    /// only the first use starts it: a test process that runs no PostgreSQL test (a `--filter` run, the child
    /// processes the crash tests start) never does.
    static let url: URL? = start.url
    /// Why there may be no server, for the skip message. Fixed text, because the suites' traits are made when
    /// the tests are listed, filtered out or not, and asking the server for its reason there would start it;
    /// the start's own error is printed to standard error when it fails.
    static let unavailableReason = "no PostgreSQL server: set COREDATA_POSTGRES_URL, or install Debian's postgresql package for Scripts/postgres-test-server (its error, if it failed, is on standard error)"

    /// A fresh store URL on the server: its own schema, so stores never see each other's tables.
    static func newStoreURL() -> URL {
        let base = url?.absoluteString ?? "postgresql://localhost/coredata"
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return URL(string: base + (base.contains("?") ? "&" : "?") + "schema=" + schema)!
    }

    private static let start: (url: URL?, reason: String?) = {
        if let given = ProcessInfo.processInfo.environment["COREDATA_POSTGRES_URL"], !given.isEmpty {
            guard let url = URL(string: given) else {
                FileHandle.standardError.write(Data("no PostgreSQL server: COREDATA_POSTGRES_URL is not a URL: \(given)\n".utf8))
                return (nil, "COREDATA_POSTGRES_URL is not a URL: \(given)")
            }
            return (url, nil)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-postgres-\(UUID().uuidString)")
        let started = script(["start", directory.path, String(ProcessInfo.processInfo.processIdentifier)])
        guard started.status == 0, let url = URL(string: started.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            let reason = "no PostgreSQL server: Scripts/postgres-test-server failed (\(started.errors.trimmingCharacters(in: .whitespacesAndNewlines)))"
            FileHandle.standardError.write(Data((reason + "\n").utf8))
            return (nil, reason)
        }
        startedDirectory = directory.path
        atexit {
            guard let directory = PostgreSQLTestServer.startedDirectory else { return }
            _ = PostgreSQLTestServer.script(["stop", directory])
        }
        return (url, nil)
    }()

    /// A throwaway server of one test's own (for a test that restarts its server), stopped with `stop()`.
    struct Private {
        let directory: String
        let url: URL

        /// - Throws: when `Scripts/postgres-test-server` cannot start a cluster.
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-postgres-\(UUID().uuidString)").path
            let printed = try PostgreSQLTestServer.run("start", directory, String(ProcessInfo.processInfo.processIdentifier))
            guard let url = URL(string: printed.trimmingCharacters(in: .whitespacesAndNewlines) + "&schema=t_private") else {
                throw NSError(domain: "PostgreSQLTestServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no URL from the script: \(printed)"])
            }
            self.url = url
        }

        func stop() { _ = try? PostgreSQLTestServer.run("stop", directory) }
    }

    /// Runs `Scripts/postgres-test-server` with `arguments` and returns what it printed.
    /// - Throws: when it fails.
    @discardableResult
    static func run(_ arguments: String...) throws -> String {
        let result = script(arguments)
        guard result.status == 0 else {
            throw NSError(domain: "PostgreSQLTestServer", code: Int(result.status),
                          userInfo: [NSLocalizedDescriptionKey: "postgres-test-server \(arguments.joined(separator: " ")) failed: \(result.errors)"])
        }
        return result.output
    }

    /// Runs the script through `system(3)`, its output in temporary files. (Foundation's `Process.waitUntilExit`
    /// was seen to hang here when the script leaves its watchdog running in the background.)
    static func script(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-test-server-\(UUID().uuidString)")
        let output = base.path + ".out", errors = base.path + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        let quoted = ([scriptPath] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let status = system("/bin/bash " + quoted.joined(separator: " ") + " >'\(output)' 2>'\(errors)' </dev/null")
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (status == 0 ? 0 : max(1, status >> 8), read(output), read(errors))
    }

    /// The cluster folder this process started, stopped at exit (a watchdog stops it if the process dies).
    nonisolated(unsafe) static var startedDirectory: String?

    static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/postgres-test-server").path
    }
}

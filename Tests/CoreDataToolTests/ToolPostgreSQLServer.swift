import Foundation

/// A PostgreSQL server for the tool's tests: `COREDATA_POSTGRES_URL` when set, otherwise a throwaway cluster
/// started with `Scripts/postgres-test-server` (as the PostgreSQL store's tests do) and stopped when the test
/// process ends. When neither works, `url` is nil and `unavailableReason` says why; the tests that need it
/// are reported as skipped with that reason.
enum ToolPostgreSQLServer {
    static let url: String? = started.url
    static let unavailableReason: String = started.reason ?? ""

    /// A new store URI on the server: a schema of its own.
    static func newStoreURI() -> String? {
        guard let url else { return nil }
        return url + (url.contains("?") ? "&" : "?") + "schema=t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    nonisolated(unsafe) private static var startedDirectory: String?

    private static let started: (url: String?, reason: String?) = {
        if let given = ProcessInfo.processInfo.environment["COREDATA_POSTGRES_URL"], !given.isEmpty { return (given, nil) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-tool-postgres-\(UUID().uuidString)").path
        let result = script(["start", directory, String(ProcessInfo.processInfo.processIdentifier)])
        let printed = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, printed.hasPrefix("postgresql://") else {
            return (nil, "no PostgreSQL server: set COREDATA_POSTGRES_URL or install Debian's postgresql package (\(result.errors.trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
        startedDirectory = directory
        atexit {
            if let directory = ToolPostgreSQLServer.startedDirectory { _ = ToolPostgreSQLServer.script(["stop", directory]) }
        }
        return (printed, nil)
    }()

    /// Runs the script through `system(3)` with its output in temporary files (`Process` can hang while the
    /// script's watchdog runs in the background).
    static func script(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = package.appendingPathComponent("Scripts/postgres-test-server").path
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tool-postgres-\(UUID().uuidString)").path
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let quoted = ([path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let status = system("/bin/bash " + quoted.joined(separator: " ") + " >'\(base).out' 2>'\(base).err' </dev/null")
        let read = { (file: String) in (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        return (status, read(base + ".out"), read(base + ".err"))
    }
}

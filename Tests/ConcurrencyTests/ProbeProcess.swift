import Foundation

/// Runs `ConcurrencyProbe`, which SwiftPM builds beside the test bundle, and collects what it prints.
enum ProbeProcess {
    struct Outcome {
        var status: Int32
        var output: String
        var timedOut: Bool
        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    /// Runs the probe with `arguments`; the environment is this process's plus `environment`. A probe still
    /// running after `timeout` seconds is stopped and reported as timed out.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 120) throws -> Outcome {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        process.waitUntilExit()
        try handle.close()
        let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        return Outcome(status: process.terminationStatus, output: text, timedOut: timedOut)
    }

    /// `ConcurrencyProbe` in the folder of the running test binary.
    static func executable() throws -> URL {
        var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        let probe = folder.appendingPathComponent("ConcurrencyProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            throw NSError(domain: "ConcurrencyTests", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: "ConcurrencyProbe is not built beside the tests at \(probe.path)"])
        }
        return probe
    }
}

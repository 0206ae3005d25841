import Foundation
import Testing

/// A main-queue context works however a program serves its main queue: on the main thread with nothing
/// serving it, under a run loop, under `dispatchMain()`, under async `main` (where the main queue runs on a
/// worker thread) and on the main actor. Each way runs `MainQueueProbe` in a process of its own, since a
/// process serves its main queue one way only; the probe prints a line per check.
@Suite struct MainQueueContextTests {
    @Test(arguments: ["main-thread", "run-loop", "dispatch-main", "async-main", "main-actor"])
    func viewContextWorks(servingTheMainQueueBy mode: String) throws {
        let run = try ProbeProcess.run(mode, timeout: 120)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(!run.timedOut, "the probe hung (a deadlock?): \(run.output)")
        #expect(run.status == 0, "exit status \(run.status): \(run.output)")
        #expect(lines.last == "done", "\(run.output)")
        #expect(!lines.contains { $0.hasPrefix("FAIL") }, "\(run.output)")
        #expect(lines.filter { $0.hasPrefix("ok ") }.count >= ProbeProcess.minimumChecks[mode, default: 1], "\(run.output)")
    }
}

/// Runs the probe executable, which SwiftPM builds beside the test bundle.
enum ProbeProcess {
    /// How many checks each mode runs at least, so a probe that skipped its checks fails.
    static let minimumChecks = ["main-thread": 7, "run-loop": 9, "dispatch-main": 9, "async-main": 13, "main-actor": 9]

    struct Outcome { var status: Int32; var output: String; var timedOut: Bool }

    static func run(_ mode: String, timeout: TimeInterval) throws -> Outcome {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = [mode]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let timedOut = process.isRunning
        if timedOut { process.terminate(); process.waitUntilExit() }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Outcome(status: process.terminationStatus, output: output, timedOut: timedOut)
    }

    /// `MainQueueProbe` in the folder of the running test binary.
    static func executable() throws -> URL {
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = tests.deletingLastPathComponent()
        while folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        let probe = folder.appendingPathComponent("MainQueueProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            throw NSError(domain: "MainQueueContextTests", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: "MainQueueProbe is not built beside the tests at \(probe.path)"])
        }
        return probe
    }
}

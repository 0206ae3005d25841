import Foundation
import Testing

/// A main-queue context works however a program serves its main queue: on the main thread with nothing
/// serving it, under a run loop, under `dispatchMain()`, under async `main` (where the main queue runs on a
/// worker thread) and on the main actor; `performAndWait` runs inline there and never waits for the queue it
/// is on. Each way runs in a process of its own, with the concurrency check off and on (the check must find
/// nothing wrong in code that uses each context on its queue).
@Suite struct MainQueueContextTests {
    /// How many checks each mode runs at least, so a probe that skipped its checks fails.
    static let minimumChecks = ["main-thread": 7, "run-loop": 11, "dispatch-main": 11, "async-main": 15, "main-actor": 11]

    @Test(arguments: ["main-thread", "run-loop", "dispatch-main", "async-main", "main-actor"], [false, true])
    func viewContextWorks(servingTheMainQueueBy mode: String, concurrencyCheck: Bool) throws {
        let run = try ProbeProcess.run([mode], environment: ["COREDATA_CONCURRENCY_DEBUG": concurrencyCheck ? "1" : "0"])
        #expect(!run.timedOut, "the probe hung (a deadlock?): \(run.output)")
        #expect(run.status == 0, "exit status \(run.status): \(run.output)")
        #expect(run.lines.last == "done", "\(run.output)")
        #expect(!run.lines.contains { $0.hasPrefix("FAIL") }, "\(run.output)")
        #expect(run.lines.filter { $0.hasPrefix("ok ") }.count >= Self.minimumChecks[mode, default: 1], "\(run.output)")
    }
}

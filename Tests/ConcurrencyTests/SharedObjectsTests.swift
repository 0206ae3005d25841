import Foundation
import Testing

/// Objects the package declares `Sendable` used from several threads at once, as Apple's SDK allows: one fetch
/// request fetched by contexts on several queues gives each the right results, and a store removed while another
/// thread reads it has no coordinator afterwards. CI also runs this probe built with the thread sanitizer
/// (`.ci/run`), where a data race fails the run.
@Suite struct SharedObjectsTests {
    @Test func sendableObjectsWorkFromSeveralThreadsAtOnce() throws {
        let run = try ProbeProcess.run(["shared"], environment: ["COREDATA_CONCURRENCY_DEBUG": "1"])
        #expect(!run.timedOut, "the probe hung (a deadlock?): \(run.output)")
        #expect(run.status == 0, "exit status \(run.status): \(run.output)")
        #expect(run.lines.last == "done", "\(run.output)")
        #expect(run.lines.filter { $0.hasPrefix("ok ") }.count == 3, "\(run.output)")
    }
}

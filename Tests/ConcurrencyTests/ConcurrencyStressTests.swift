import Foundation
import Testing

/// Eight private contexts save, fetch and batch delete on one SQLite store while the view context merges their
/// saves automatically and fetches on the main queue; every acknowledged change is in the store afterwards,
/// with the concurrency check on. CI also runs this probe built with the thread sanitizer (`.ci/run`).
@Suite struct ConcurrencyStressTests {
    @Test func privateContextsAndTheViewContextAgreeAfterConcurrentWork() throws {
        let run = try ProbeProcess.run(["stress", "8", "60"], environment: ["COREDATA_CONCURRENCY_DEBUG": "1"])
        #expect(!run.timedOut, "the probe hung (a deadlock?): \(run.output)")
        #expect(run.status == 0, "exit status \(run.status): \(run.output)")
        #expect(run.lines.last == "done", "\(run.output)")
        #expect(run.lines.filter { $0.hasPrefix("ok ") }.count == 3, "\(run.output)")
    }
}

import Foundation
import Testing

/// The concurrency check of Apple's `-com.apple.CoreData.ConcurrencyDebug 1`: with the launch argument or
/// `COREDATA_CONCURRENCY_DEBUG=1`, using a context or one of its objects off the context's queue stops the
/// program with a message naming the context, its queue and the call; without them nothing is checked.
@Suite struct ConcurrencyDebugTests {
    @Test func aFetchOffTheQueueStopsWithTheEnvironmentVariable() throws {
        let run = try ProbeProcess.run(["misuse-fetch"], environment: ["COREDATA_CONCURRENCY_DEBUG": "1", "SWIFT_BACKTRACE": "enable=no"])
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("CoreData concurrency violation: fetch(_:) of Item on context \"background\""), "\(run.output)")
        #expect(run.output.contains("its private queue"), "\(run.output)")
        #expect(!run.lines.contains("done"), "\(run.output)")
    }

    @Test func anObjectUsedOffTheQueueStopsWithTheLaunchArgument() throws {
        let run = try ProbeProcess.run(["misuse-object", "-com.apple.CoreData.ConcurrencyDebug", "1"],
                                       environment: ["COREDATA_CONCURRENCY_DEBUG": "0", "SWIFT_BACKTRACE": "enable=no"])
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("CoreData concurrency violation: access to Item's"), "\(run.output)")
        #expect(run.output.contains("on context \"background\""), "\(run.output)")
        #expect(!run.lines.contains("done"), "\(run.output)")
    }

    @Test(arguments: ["misuse-fetch", "misuse-object"])
    func nothingIsCheckedByDefault(_ mode: String) throws {
        let run = try ProbeProcess.run([mode], environment: ["COREDATA_CONCURRENCY_DEBUG": "0", "SWIFT_BACKTRACE": "enable=no"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.lines.last == "done", "\(run.output)")
    }
}

import Dispatch
import Foundation

/// Tells whether the calling code runs on the main dispatch queue, however that queue is served.
///
/// The main queue runs on the main thread under top-level code and a run loop, but on a worker thread under
/// `dispatchMain()` and async `main` (and so for the main actor): there `Thread.isMainThread` is false on Linux.
/// The answer is therefore taken from a queue-specific value set on the main queue, which every block the
/// main queue runs can read, whichever thread runs it. A thread that waits for a context's block while it
/// holds the main queue lends the main queue to that block (see `lending(_:_:)`), so the block may run
/// main-queue work inline instead of waiting for the queue its own caller holds.
enum MainQueue {
    private static let key = DispatchSpecificKey<UInt8>()
    /// Set once, the first time the question is asked; setting a queue-specific value is thread-safe.
    private static let isMarked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return true
    }()

    /// How many blocks on this thread run for a caller that holds the main queue and waits for them.
    private final class Loans { var depth = 0 }
    private static let loans = ThreadLocal { Loans() }

    /// Whether code here may do the main queue's work without waiting for it: it runs on the main thread, in a
    /// block of the main queue, or in a block that a holder of the main queue waits for.
    static var isCurrent: Bool {
        if Thread.isMainThread { return true }
        _ = isMarked
        if DispatchQueue.getSpecific(key: key) != nil { return true }
        return loans.value.depth > 0
    }

    /// Runs `body`, which its caller waits for; when `callerHoldsMainQueue`, code in `body` counts as on the
    /// main queue (its caller cannot run main-queue work until `body` returns, so nothing else can either).
    static func lending<T>(_ callerHoldsMainQueue: Bool, _ body: () throws -> T) rethrows -> T {
        guard callerHoldsMainQueue else { return try body() }
        let loans = loans.value
        loans.depth += 1
        defer { loans.depth -= 1 }
        return try body()
    }
}

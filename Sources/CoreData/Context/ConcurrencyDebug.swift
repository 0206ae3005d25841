import Foundation
import Synchronization

/// The debug check of Apple's `-com.apple.CoreData.ConcurrencyDebug 1` launch argument: with it (or the
/// environment variable `COREDATA_CONCURRENCY_DEBUG=1`), every entry point of a context and of its objects
/// checks that it runs on the context's queue, and stops the program with a message naming the context, its
/// queue and the call when it does not. Off by default; when off, a check is one atomic load of the answer read
/// from the arguments and environment on the first check.
///
/// "On the context's queue" is `NSManagedObjectContext.isOnQueue`: on the queue itself, inside one of the
/// context's blocks on this thread, or in a block that a caller on that queue waits for.
@usableFromInline
enum ConcurrencyDebug {
    /// Whether the check is on, read once from the launch arguments and the environment. A level above 0 turns
    /// it on, as Apple's does. Every `@Managed` read and write asks, so after the first ask it is one atomic load
    /// (`state`), where a lazily initialized `static let` was a call into the runtime's `swift_once` each time.
    @inlinable
    static var isEnabled: Bool {
        let known = state.load(ordering: .relaxed)
        return known != 0 ? known == 2 : readSetting()
    }

    /// The setting once read: 0 before, 1 off, 2 on. A constant initial value, so the process starts with it in
    /// place and reading it needs no `swift_once`. Two threads that read the setting at once store the same answer.
    @usableFromInline
    static let state = Atomic<UInt8>(0)

    /// Reads the setting from the launch arguments and the environment, and records it in `state`.
    @usableFromInline @inline(never)
    static func readSetting() -> Bool {
        let arguments = ProcessInfo.processInfo.arguments
        let enabled: Bool
        if let index = arguments.firstIndex(of: "-com.apple.CoreData.ConcurrencyDebug"), index + 1 < arguments.count {
            enabled = (Int(arguments[index + 1]) ?? 0) > 0
        } else {
            enabled = (Int(ProcessInfo.processInfo.environment["COREDATA_CONCURRENCY_DEBUG"] ?? "") ?? 0) > 0
        }
        state.store(enabled ? 2 : 1, ordering: .relaxed)
        return enabled
    }

    /// Stops the program: `call` ran on `context` off the context's queue.
    static func violation(_ call: String, on context: NSManagedObjectContext) -> Never {
        let queue = context.concurrencyType == .mainQueueConcurrencyType ? "the main queue" : "its private queue"
        let name = context.name.map { "\"\($0)\"" } ?? "\(ObjectIdentifier(context))"
        let thread = Thread.isMainThread ? "the main thread" : "a thread that is not on \(queue)"
        fatalError("""
            CoreData concurrency violation: \(call) on context \(name) was called from \(thread). \
            A context and its objects may only be used on \(queue): wrap the call in perform or performAndWait.
            """)
    }
}

extension NSManagedObjectContext {
    /// With the concurrency check on, stops the program when the caller is not on the context's queue.
    @inline(__always)
    func checkQueue(_ call: @autoclosure () -> String) {
        guard ConcurrencyDebug.isEnabled, !isOnQueue else { return }
        ConcurrencyDebug.violation(call(), on: self)
    }
}

extension NSManagedObject {
    /// With the concurrency check on, stops the program when the object's context is used off its queue.
    @inlinable
    func checkQueue(_ key: @autoclosure () -> String) {
        guard ConcurrencyDebug.isEnabled else { return }
        reportAccessOffQueue(key())
    }

    @usableFromInline
    func reportAccessOffQueue(_ key: String) {
        guard let context = managedObjectContext, !context.isOnQueue else { return }
        ConcurrencyDebug.violation("access to \(entity.name ?? "an object")'s \(key)", on: context)
    }
}

import Foundation

/// The debug check of Apple's `-com.apple.CoreData.ConcurrencyDebug 1` launch argument: with it (or the
/// environment variable `COREDATA_CONCURRENCY_DEBUG=1`), every entry point of a context and of its objects
/// checks that it runs on the context's queue, and stops the program with a message naming the context, its
/// queue and the call when it does not. Off by default; when off, a check is one load of a constant.
///
/// "On the context's queue" is `NSManagedObjectContext.isOnQueue`: on the queue itself, inside one of the
/// context's blocks on this thread, or in a block that a caller on that queue waits for.
@usableFromInline
enum ConcurrencyDebug {
    /// Whether the check is on, read once from the launch arguments and the environment. A level above 0 turns
    /// it on, as Apple's does.
    @usableFromInline
    static let isEnabled: Bool = {
        let arguments = ProcessInfo.processInfo.arguments
        if let index = arguments.firstIndex(of: "-com.apple.CoreData.ConcurrencyDebug"), index + 1 < arguments.count {
            return (Int(arguments[index + 1]) ?? 0) > 0
        }
        return (Int(ProcessInfo.processInfo.environment["COREDATA_CONCURRENCY_DEBUG"] ?? "") ?? 0) > 0
    }()

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

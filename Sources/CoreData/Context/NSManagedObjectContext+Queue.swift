import Dispatch

/// Where a context's blocks run (the queue model; see "Queues" in Docs/Decisions.md).
///
/// - A private-queue context runs its blocks on its own serial queue. A main-queue context runs them on the
///   main dispatch queue, however that queue is served (`MainQueue`).
/// - `perform` always enqueues. `performAndWait` runs the block inline when the caller is already on the
///   context's queue, or inside one of the context's blocks on this thread; otherwise it waits with `sync`,
///   and never `sync`s onto a queue the caller is on.
/// - A `performAndWait` that waits lends what its thread holds to the block: the contexts whose blocks run on
///   the thread, and the main queue. The block may use them (a private child saving into the view context, a
///   parent reading its child's objects), since nothing else can run on them until the block returns; it
///   would deadlock waiting for them otherwise.
extension NSManagedObjectContext {
    /// Whether the calling code already runs on the context's queue, or inside one of its blocks on this
    /// thread (a `performAndWait` nested in another context's `performAndWait` runs on the caller's thread).
    var isOnQueue: Bool {
        if ActiveContexts.isActive(self) { return true }
        guard queue != nil else { return MainQueue.isCurrent }
        return DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
    }

    /// Puts `block` at the end of the context's queue, to run as one of the context's blocks.
    func enqueue(_ block: @escaping () -> Void) {
        // The block (and the closure running it) is called once, on the context's queue, and touched nowhere else.
        let work = UncheckedSendable(block)
        let run = { [self] in runBlock { work.value() } }
        let task = UncheckedSendable(run)
        (queue ?? DispatchQueue.main).async { task.value() }
    }

    /// Runs `block` on the context's queue, waits, and returns its result or rethrows its error. `@Sendable` in a
    /// `@preconcurrency` declaration, as Apple's.
    @preconcurrency
    public func performAndWait<T>(_ block: @Sendable () throws -> T) rethrows -> T {
        try runAndWait(block)
    }

    /// Runs `body` as one of the context's blocks and waits: inline when already on the queue, else with `sync`.
    func runAndWait<T>(_ body: () throws -> T) rethrows -> T {
        try waitOnQueue { try runBlock(body) }
    }

    /// Runs `body` on the context's queue and waits: inline when already there, else with `sync`.
    private func waitOnQueue<T>(_ body: () throws -> T) rethrows -> T {
        if isOnQueue { return try body() }
        // While this thread waits, nothing else can run on the queues it holds, so the block may use them.
        let waitingContexts = ActiveContexts.all
        let holdsMainQueue = MainQueue.isCurrent
        return try (queue ?? DispatchQueue.main).sync {
            try MainQueue.lending(holdsMainQueue) { try ActiveContexts.lending(waitingContexts, body) }
        }
    }

    /// Runs one of the context's blocks; when it is the outermost one on this thread, objects that nothing
    /// holds any more are let go as it ends (`releaseUnreferencedObjects(_:)`; those its change notification
    /// names go at the next block's end), then pending changes are processed, so
    /// `NSManagedObjectContextObjectsDidChange` is posted once per block.
    private func runBlock<T>(_ body: () throws -> T) rethrows -> T {
        let outermost = !ActiveContexts.isActive(self)
        return try ActiveContexts.run(self) {
            defer {
                if outermost {
                    releaseUnreferencedObjects(.eventEnded)
                    processPendingChanges()
                    undoManager?.endEventGroup()  // the block was the event: its undo group closes
                }
            }
            return try body()
        }
    }

    /// How `perform` schedules an async block (Apple's `NSManagedObjectContext.ScheduledTaskType`).
    public enum ScheduledTaskType: Sendable {
        /// Runs the block at once when the caller is already on the context's queue, else enqueues it.
        case immediate
        /// Always enqueues the block.
        case enqueued
    }

    /// Runs `block` on the context's queue and returns its result, throwing what the block throws.
    ///
    /// Declared as Apple declares it, `@preconcurrency` with a `@Sendable` block, so Swift 6 code gets Apple's
    /// diagnostics: capturing a non-`Sendable` value (a managed object passed in) or main-actor state is a
    /// warning, not an error. Apple's method is `rethrows`; here the block's error type is a generic parameter,
    /// which reads the same at the call site: a block that throws nothing needs no `try`.
    @preconcurrency
    public func perform<T, Failure: Error>(schedule: ScheduledTaskType = .immediate,
                                           _ block: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        if schedule == .immediate, isOnQueue {
            return try runBlock { Result { () throws(Failure) -> T in try block() } }.get()
        }
        let outcome = OutcomeBox<T, Failure>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            perform {
                outcome.result = Result { () throws(Failure) -> T in try block() }
                continuation.resume()
            }
        }
        return try outcome.get()
    }
}

/// The result of a block run on a context's queue, carried to the task that awaits it. The continuation's
/// resumption orders the write before the read, so no lock is needed.
///
/// `@unchecked Sendable`: `result` is written once, on the context's queue, before the continuation is resumed, and
/// read only by the task that resumption wakes.
private final class OutcomeBox<Value, Failure: Error>: @unchecked Sendable {
    var result: Result<Value, Failure>?

    func get() throws(Failure) -> Value {
        guard let result else { preconditionFailure("a context's block finished without a result") }
        return try result.get()
    }
}

/// The contexts whose blocks are running on the current thread, innermost last: nested `performAndWait` calls
/// run inline, and `NSFetchRequest.execute()` finds its context here.
enum ActiveContexts {
    private final class Stack { var contexts: [NSManagedObjectContext] = [] }
    private static let stacks = ThreadLocal { Stack() }

    static func isActive(_ context: NSManagedObjectContext) -> Bool {
        stacks.value.contexts.contains { $0 === context }
    }

    /// The context whose block runs innermost on this thread.
    static var current: NSManagedObjectContext? { stacks.value.contexts.last }

    /// The contexts whose blocks run on this thread, outermost first.
    static var all: [NSManagedObjectContext] { stacks.value.contexts }

    /// Runs `body` with `contexts` (those of a thread that waits for `body`) counted as active on this thread.
    static func lending<T>(_ contexts: [NSManagedObjectContext], _ body: () throws -> T) rethrows -> T {
        guard !contexts.isEmpty else { return try body() }
        let stack = stacks.value
        stack.contexts.insert(contentsOf: contexts, at: 0)
        defer { stack.contexts.removeFirst(contexts.count) }
        return try body()
    }

    static func run<T>(_ context: NSManagedObjectContext, _ body: () throws -> T) rethrows -> T {
        let stack = stacks.value
        stack.contexts.append(context)
        defer { stack.contexts.removeLast() }
        return try body()
    }
}

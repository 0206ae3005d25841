/// A fetch that `execute(_:)` starts and returns from at once; the fetch runs later on the context's queue and
/// hands its result to the completion block there (Apple's class of the same name).
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called on the context's queue when the fetch has finished, failed or been cancelled.
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// A hint of how many results to expect (kept; it changes nothing here).
    open var estimatedResultCount: Int = 0

    /// A request that runs `request` and calls `blk`, if given, with its result on the context's queue.
    public init(fetchRequest request: NSFetchRequest<ResultType>, completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)?) {
        fetchRequest = request
        completionBlock = blk
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}

/// The result of a store request that runs after `execute(_:)` returns (Apple's class of the same name).
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult, @unchecked Sendable {
    /// The context the request runs in.
    public let managedObjectContext: NSManagedObjectContext
    /// The error the request ended with, if any (cancelling gives 3072, `NSUserCancelledError`). Safe to read
    /// from any thread.
    open internal(set) var operationError: Error? {
        get { locked { storedError } }
        set { locked { storedError = newValue } }
    }
    private var storedError: Error?
    /// The request's progress: one unit, completed when the request has finished.
    public let progress: Progress?
    private let lock = NSLock()
    private var cancelled = false

    init(context: NSManagedObjectContext) {
        managedObjectContext = context
        progress = Progress(totalUnitCount: 1)
        super.init()
    }

    /// Cancels the request if it has not started yet; its completion block then gets no results.
    open func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
        progress?.cancel()
    }

    var isCancelled: Bool { locked { cancelled } }

    /// Runs `body` holding the result's lock.
    func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// The result of an asynchronous fetch: `finalResult` once it has run (Apple's class of the same name).
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult, @unchecked Sendable {
    /// The request this result belongs to.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    /// The fetched results; nil until the fetch has run, and when it failed or was cancelled. Safe to read from
    /// any thread (the objects themselves belong to the context's queue).
    open internal(set) var finalResult: [ResultType]? {
        get { locked { storedResult } }
        set { locked { storedResult = newValue } }
    }
    private var storedResult: [ResultType]?

    init(request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext) {
        fetchRequest = request
        super.init(context: context)
    }
}

/// Lets `execute(_:)` start an asynchronous fetch whatever its result type.
protocol AsynchronousFetchStarting {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult
}

extension NSAsynchronousFetchRequest: AsynchronousFetchStarting {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult {
        let result = NSAsynchronousFetchResult(request: self, context: context)
        context.perform {
            if result.isCancelled {
                result.operationError = CoreDataError.make(NSUserCancelledError, "The asynchronous fetch was cancelled before it ran.")
            } else {
                do {
                    result.finalResult = try context.fetch(self.fetchRequest)
                } catch {
                    result.operationError = error
                }
                result.progress?.completedUnitCount = 1
            }
            self.completionBlock?(result)
        }
        return result
    }
}

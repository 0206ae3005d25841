/// Running a request through the coordinator on behalf of a context (Apple's `execute(_:with:)`).
extension NSPersistentStoreCoordinator {
    /// Runs `request` in `context`, whose coordinator this must be: a fetch request gives its results (an
    /// array of the request's result type), any other request the `NSPersistentStoreResult` that
    /// `NSManagedObjectContext.execute(_:)` gives.
    /// - Throws: 134060 when `context` uses another coordinator; otherwise what the fetch or request throws.
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        guard context.persistentStoreCoordinator === self else {
            throw CoreDataError.make(NSCoreDataError, "execute(_:with:) needs a context of this coordinator.")
        }
        return try context.performAndWait {
            if let fetch = request as? ErasedFetchRequest { return try fetch.results(in: context) }
            return try context.execute(request)
        }
    }
}

/// A fetch request whose result type is not known where it is run.
protocol ErasedFetchRequest {
    /// The request's results in `context`, as `fetch(_:)` gives them.
    func results(in context: NSManagedObjectContext) throws -> [Any]
}

extension NSFetchRequest: ErasedFetchRequest {
    func results(in context: NSManagedObjectContext) throws -> [Any] {
        try context.fetch(self)
    }
}

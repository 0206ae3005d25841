extension NSFetchRequest {
    /// Runs the request in the context whose `perform` or `performAndWait` block is running on this thread
    /// (Apple's `execute()`).
    /// - Throws: 134060 when called outside a context's block; otherwise what `fetch(_:)` throws.
    public func execute() throws -> [ResultType] {
        guard let context = ActiveContexts.current else {
            throw CoreDataError.make(NSCoreDataError, "NSFetchRequest.execute() must be called inside a context's perform or performAndWait block.")
        }
        return try context.fetch(self)
    }
}

extension NSManagedObjectContext {
    /// A context's concurrency kind in Apple's newer Swift spelling (`NSManagedObjectContext(.privateQueue)`).
    public struct ConcurrencyType: Hashable, Sendable {
        /// The kind as `init(concurrencyType:)` takes it.
        let kind: NSManagedObjectContextConcurrencyType

        /// The context has a private serial queue; use `perform` and `performAndWait`.
        public static let privateQueue = ConcurrencyType(kind: .privateQueueConcurrencyType)
        /// The context belongs to the main queue.
        public static let mainQueue = ConcurrencyType(kind: .mainQueueConcurrencyType)
    }

    /// A context of the given concurrency kind, with no coordinator yet: the same as
    /// `init(concurrencyType: .privateQueueConcurrencyType)` for `.privateQueue` and
    /// `init(concurrencyType: .mainQueueConcurrencyType)` for `.mainQueue`.
    public convenience init(_ type: ConcurrencyType) {
        self.init(concurrencyType: type.kind)
    }
}

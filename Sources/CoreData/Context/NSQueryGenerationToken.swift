/// A query generation: a version of a store's contents that a context can be pinned to, so its reads keep
/// seeing that version while others save (Apple's SQLite stores in WAL mode).
///
/// Not supported here: a pinned context would need its own read transaction held open on the store, which the
/// stores do not offer yet. `NSManagedObjectContext.setQueryGenerationFrom(_:)` therefore throws 134091 for a
/// token (and accepts nil, which unpins), and `queryGenerationToken` is always nil, as it is on Apple's
/// platforms for an unpinned context.
///
/// `@unchecked Sendable`: it has no state.
public final class NSQueryGenerationToken: NSObject, @unchecked Sendable {
    /// The token that asks for the store's current generation at the context's next read.
    public static let current = NSQueryGenerationToken()

    private override init() { super.init() }
}

extension NSManagedObjectContext {
    /// The generation this context is pinned to: always nil, since contexts cannot be pinned here (see
    /// `NSQueryGenerationToken`).
    public var queryGenerationToken: NSQueryGenerationToken? { nil }

    /// Pins the context to a query generation, or unpins it with nil.
    /// - Throws: 134091 (unsupported) for any token: reads are not isolated in generations here, and a context
    ///   that believed itself pinned would read changes it does not expect. Nil succeeds and changes nothing.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        guard generation != nil else { return }
        throw CoreDataError.unsupported("query generations (NSManagedObjectContext.setQueryGenerationFrom(_:)): a context reads the stores' latest saved state")
    }
}

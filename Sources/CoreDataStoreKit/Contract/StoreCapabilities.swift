/// What a store can do beyond the contract's core; the conformance suite skips (and reports) cases that
/// need a capability the store lacks.
public struct StoreCapabilities: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The store keeps its data in a file at its URL, so it survives a new coordinator (a store with this
    /// capability is `persistent` too, whether or not it says so).
    public static let persistsToFile = StoreCapabilities(rawValue: 1 << 0)
    /// The store's data outlives its coordinator: a new coordinator adding a store at the same URL sees it
    /// (a file store, or a database server such as the PostgreSQL store's).
    public static let persistent = StoreCapabilities(rawValue: 1 << 6)
    /// Several coordinators (or processes) can use one file at once and see each other's saves.
    public static let sharedBetweenCoordinators = StoreCapabilities(rawValue: 1 << 1)
    /// `NSBatchUpdateRequest` is supported.
    public static let batchUpdate = StoreCapabilities(rawValue: 1 << 2)
    /// `NSBatchInsertRequest` is supported.
    public static let batchInsert = StoreCapabilities(rawValue: 1 << 3)
    /// A store saved with another model opens with Apple's two migration options set, its data moved to the
    /// new model by name (and renaming identifiers).
    public static let lightweightMigration = StoreCapabilities(rawValue: 1 << 4)
    /// The store holds every row in memory (atomic stores do), so reading all rows of an entity once is
    /// cheaper than many predicate queries; the context's uniqueness check reads such a store that way.
    public static let rowsInMemory = StoreCapabilities(rawValue: 1 << 5)
    /// The store computes derived attributes (`NSDerivedAttributeDescription`) when it saves, and reports the
    /// values it computed in `StoreSaveResult.derivedValues`; a store without it refuses a model that has any.
    public static let derivedAttributes = StoreCapabilities(rawValue: 1 << 7)
}

/// Facts about where a store's data lives, which the conformance suite and the context take into account.
///
/// Only facts about the environment belong here. What a store can do beyond the contract's core is told by the
/// refinement protocols its type adopts (`BatchUpdating`, `BatchInserting`, `LightweightMigrating`, …): adopting
/// one is the capability.
public struct StoreCapabilities: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The store keeps its data in a file at its URL, so it survives a new coordinator (a store with this
    /// fact is `persistent` too, whether or not it says so).
    public static let persistsToFile = StoreCapabilities(rawValue: 1 << 0)
    /// The store's data outlives its coordinator: a new coordinator adding a store at the same URL sees it
    /// (a file store, or a database server such as the PostgreSQL store's).
    public static let persistent = StoreCapabilities(rawValue: 1 << 6)
    /// Several coordinators (or processes) can use one file at once and see each other's saves.
    public static let sharedBetweenCoordinators = StoreCapabilities(rawValue: 1 << 1)
    /// The store holds every row in memory (atomic stores do), so reading all rows of an entity once is
    /// cheaper than many predicate queries; the context's uniqueness check reads such a store that way.
    public static let rowsInMemory = StoreCapabilities(rawValue: 1 << 5)
}

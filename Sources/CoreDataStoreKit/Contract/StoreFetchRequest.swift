/// A fetch as a store receives it: an entity resolved, sort descriptors and predicate as given by the user,
/// and the form of the result. Pending changes in contexts are not a store's concern.
public struct StoreFetchRequest {
    /// The form of a fetch's result.
    public enum ResultKind {
        /// Whole rows.
        case rows
        /// Keys only.
        case keys
        /// The number of matching objects (limit and offset applied).
        case count
        /// One dictionary per object with the values of these properties, keyed by property name; to-one
        /// relationships as `ObjectKey`. With `distinct`, equal dictionaries are returned once.
        case dictionaries(properties: [NSPropertyDescription], distinct: Bool)
    }

    /// The entity to fetch.
    public var entity: NSEntityDescription
    /// Whether rows of subentities match too.
    public var includesSubentities: Bool
    /// Which rows match; nil matches all. Stores get its syntax tree with `parsedExpression`; a store without a
    /// query language, and any store for what its language cannot express (a block predicate, say), evaluates
    /// it in memory with `InMemoryQuery` over objects adopting `PredicateKeyValueReading` and
    /// `StoredObjectReference`.
    public var predicate: NSPredicate?
    /// The order, first key first; empty leaves the order to the store.
    public var sortDescriptors: [NSSortDescriptor]
    /// The most results; 0 means no limit.
    public var fetchLimit: Int
    /// How many matching rows to skip first.
    public var fetchOffset: Int
    /// The form of the result.
    public var result: ResultKind

    /// A fetch of `entity`'s rows; by default of every row, with its subentities', in the store's order, whole.
    public init(entity: NSEntityDescription, includesSubentities: Bool = true, predicate: NSPredicate? = nil,
                sortDescriptors: [NSSortDescriptor] = [], fetchLimit: Int = 0, fetchOffset: Int = 0,
                result: ResultKind = .rows) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.result = result
    }
}

/// What a store returns for a fetch, in the form the request asked for.
public enum StoreFetchResult {
    /// The matching rows, for `.rows`.
    case rows([StoreRow])
    /// The matching rows' keys, for `.keys`.
    case keys([ObjectKey])
    /// How many rows match, for `.count`.
    case count(Int)
    /// One dictionary per matching row, for `.dictionaries`; nil values are absent.
    case dictionaries([[String: Any]])
}

/// A batch delete as a store receives it: the rows a fetch matches, or a list of keys.
public enum StoreBatchDeleteRequest {
    /// Delete the rows this fetch matches (its result kind is `.keys`).
    case matching(StoreFetchRequest)
    /// Delete these rows (keys the store does not have are ignored).
    case keys([ObjectKey])
}

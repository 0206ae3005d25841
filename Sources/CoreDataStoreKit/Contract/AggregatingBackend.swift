/// What a store implements to compute aggregates itself (`SUM`, `COUNT`, … with `GROUP BY` in SQL) instead of
/// returning every matching row to the context. Optional: the context computes the same results from rows for
/// any store, and falls back to that whenever this returns nil or throws.
public protocol AggregatingBackend: PersistentStoreBackend {
    /// One result row per group of the rows `request` selects (its entity, subentities and predicate; its
    /// sort descriptors, all on `query.groupBy` attributes, order the groups, then each group's first row),
    /// holding the group's values then one value per column: `Int64` for a count, the attribute's own value
    /// type for `min`/`max`/`sum` (`Double` for a floating-point sum), `Double` for an average, nil for an
    /// aggregate of no values (`sum` of no values is nil too: the caller makes it 0). Without `groupBy`, exactly
    /// one row. Nil when the store cannot compute this query (the caller then uses rows).
    func aggregate(_ request: StoreFetchRequest, query: StoreAggregateQuery) throws -> [[Any?]]?
}

/// Aggregates over the rows of a fetch, by group.
public struct StoreAggregateQuery {
    public enum Function: String, Sendable {
        case sum, count, min, max, average
    }

    /// One computed column: a function of an attribute, or `count` of the rows when `attribute` is nil.
    public struct Column {
        public var function: Function
        public var attribute: NSAttributeDescription?

        public init(function: Function, attribute: NSAttributeDescription?) {
            self.function = function
            self.attribute = attribute
        }
    }

    /// The attributes whose values make the groups.
    public var groupBy: [NSAttributeDescription]
    public var columns: [Column]

    public init(groupBy: [NSAttributeDescription], columns: [Column]) {
        self.groupBy = groupBy
        self.columns = columns
    }
}

/// A store that computes aggregates itself (`SUM`, `COUNT`, … with `GROUP BY` in SQL) instead of returning
/// every matching row to the context: an optional refinement of the store contract, for speed only. The context
/// computes the same results from rows for any store, and falls back to that whenever this returns nil or
/// throws, so users see the same dictionaries from every store; the aggregate conformance cases run on every
/// store and so check that both roads agree.
public protocol AggregatingBackend: PersistentStoreBackend {
    /// The aggregates of `query` over the rows `request` selects.
    ///
    /// The store guarantees: one result row per group of the rows `request` selects (its entity, subentities
    /// when `includesSubentities`, and predicate; its sort descriptors, all on `query.groupBy` attributes, order
    /// the groups, then each group's first row), holding the group's values then one value per column: `Int64`
    /// for a count, the attribute's own value type for `min`/`max`/`sum` (`Double` for a floating-point sum),
    /// `Double` for an average, nil for an aggregate of no values (`sum` of no values is nil too: the caller
    /// makes it 0). Without `groupBy`, exactly one row, also when no row matches. Nil when the store cannot
    /// compute this query (the caller then uses rows).
    ///
    /// - Throws: the store's read error; the context then computes the result from rows.
    ///
    /// Conformance: `aggregates/every-function-per-group`, `aggregates/no-matching-rows`,
    /// `aggregates/two-grouping-keys-and-having`, `fetch/expressions-and-grouping`.
    func aggregate(_ request: StoreFetchRequest, query: StoreAggregateQuery) throws -> [[Any?]]?
}

/// Aggregates over the rows of a fetch, by group.
public struct StoreAggregateQuery {
    /// An aggregate function, named as in Apple's expression functions (`sum:`, `count:`, `min:`, `max:`,
    /// `average:`).
    public enum Function: String, Sendable {
        /// The sum, the number, the smallest, the largest or the mean of the values (`count` counts rows, or an
        /// attribute's non-nil values); each case's raw value is its name.
        case sum, count, min, max, average
    }

    /// One computed column: a function of an attribute, or `count` of the rows when `attribute` is nil.
    public struct Column {
        /// What the column computes.
        public var function: Function
        /// The attribute aggregated; nil for a count of rows.
        public var attribute: NSAttributeDescription?

        /// A column computing `function` of `attribute`.
        public init(function: Function, attribute: NSAttributeDescription?) {
            self.function = function
            self.attribute = attribute
        }
    }

    /// The attributes whose values make the groups.
    public var groupBy: [NSAttributeDescription]
    /// The computed columns, in the order of the values after the group's in each result row.
    public var columns: [Column]

    /// A query grouping by `groupBy` and computing `columns` per group.
    public init(groupBy: [NSAttributeDescription], columns: [Column]) {
        self.groupBy = groupBy
        self.columns = columns
    }
}

import CoreDataStoreKit

/// The statement of a grouped aggregate a SQL store computes itself (`AggregatingBackend`), shared by the SQLite
/// and PostgreSQL stores: `SELECT <groups>, <aggregates> FROM … WHERE … GROUP BY <groups>`, ordered by the
/// request's sort descriptors and then by each group's first row (`MIN(t0.Z_PK)`), which is the order the context
/// gives groups it computes itself. The result's columns are the groups, in `query.groupBy` order, then the
/// aggregates, in `query.columns` order.
public enum SQLAggregateStatement {
    /// The statement for `query` over the rows `compiled` selects, or nil when the store must leave the query to
    /// the context: a predicate or sort the compiler leaves to memory, an attribute outside the entity's table,
    /// or an aggregate `aggregate` cannot spell. `aggregate` gives the SQL of one function over a column
    /// (`t0.<column>`) holding an attribute, or nil when the store cannot compute it as the context does; a count
    /// of rows is always `COUNT(*)`.
    public static func sql(for query: StoreAggregateQuery, of request: StoreFetchRequest, compiled: SQLCompiledFetch,
                           schema: SQLSchema,
                           aggregate: (StoreAggregateQuery.Function, _ column: String, NSAttributeDescription) -> String?) -> String? {
        guard compiled.isComplete, let orderBy = compiled.orderBy, let table = schema.table(for: request.entity) else { return nil }
        var groupColumns: [String] = []
        for attribute in query.groupBy {
            guard let column = table.column(for: attribute) else { return nil }
            groupColumns.append("t0.\(column)")
        }
        var selected = groupColumns
        for column in query.columns {
            guard let attribute = column.attribute else {
                guard column.function == .count else { return nil }
                selected.append("COUNT(*)")
                continue
            }
            guard let name = table.column(for: attribute), let function = aggregate(column.function, "t0.\(name)", attribute) else { return nil }
            selected.append(function)
        }
        var sql = "SELECT \(selected.joined(separator: ", ")) FROM \(compiled.from)\(compiled.whereSQL)"
        if !groupColumns.isEmpty {
            sql += " GROUP BY " + groupColumns.joined(separator: ", ")
            sql += " ORDER BY " + (orderBy + ["MIN(t0.Z_PK)"]).joined(separator: ", ")
        }
        return sql
    }
}

import CoreDataStoreKit

/// One fetch request compiled to SQL: the FROM clause with its joins, the WHERE clause, the ORDER BY, the
/// bound values, and what is left to do in memory (a predicate part that does not translate, a sort that must
/// run in memory).
///
/// A store reads it as `SELECT <columns> FROM \(from)\(whereSQL)` + `orderAndLimit(for:limitInSQL:)`, binds
/// `bindings` in order, and, unless `isComplete`, passes the rows through `completeInMemory(_:for:reading:)`.
/// The entity's table has the alias `t0`; its rows are the entity's and, when the request includes
/// subentities, its subentities' (by `t0.Z_ENT`, always tested, so a row of no entity is never counted).
public struct SQLCompiledFetch {
    /// `<table> t0`, followed by the `LEFT JOIN`s the predicate and sort key paths need.
    public var from: String
    /// ` WHERE …` with a leading space, or "" when every row of the table matches.
    public var whereSQL: String
    /// The `ORDER BY` terms, empty for no sort descriptors, or nil when the sort must run in memory.
    public var orderBy: [String]?
    /// The values of the parameters, in order.
    public var bindings: [SQLValue]
    /// The part of the predicate evaluated in memory (top-level `AND` terms that do not translate), or nil.
    public var residual: NSPredicate?
    /// Whether SQL does everything, so limit and offset can be applied by SQL (nothing is left for memory).
    public var isComplete: Bool { residual == nil && orderBy != nil }

    private let dialect: any SQLDialect

    /// Compiles a fetch request against `schema`, in its dialect. Each top-level `AND` term of the predicate
    /// that does not translate exactly is kept whole in `residual`.
    /// - Throws: the predicate's parse error; 134091 when the entity has no table in `schema`.
    public init(_ request: StoreFetchRequest, schema: SQLSchema) throws {
        let entity = request.entity
        guard let table = schema.table(for: entity) else {
            throw CoreDataError.unsupported("fetching entity \(entity.name ?? ""), which is not in this store")
        }
        let compiler = SQLPredicateCompiler(schema: schema)
        let scope = SQLPredicateCompiler.Scope(alias: "t0", entity: entity)
        var conditions: [String] = []
        let numbers = request.includesSubentities ? schema.storedNumbers(ofHierarchy: entity) : [schema.storedNumber(of: entity)]
        // Always, for a root entity too: a row whose Z_ENT is no entity the request asks for (in a damaged file,
        // a number no entity of the store has) is in no result, so counts, keys, rows, limits and offsets agree.
        var entityTest: String?
        if let first = numbers.first, let last = numbers.last {
            // The store's numbers: a hierarchy numbered in pre-order is one range; one renumbered otherwise is a list.
            if numbers.count == 1 {
                entityTest = "t0.Z_ENT = \(compiler.bind(.integer(first), type: .integer64AttributeType))"
            } else if last - first == Int64(numbers.count - 1) {
                let low = compiler.bind(.integer(first), type: .integer64AttributeType)
                entityTest = "t0.Z_ENT BETWEEN \(low) AND \(compiler.bind(.integer(last), type: .integer64AttributeType))"
            } else {
                let list = numbers.map { compiler.bind(.integer($0), type: .integer64AttributeType) }
                entityTest = "t0.Z_ENT IN (\(list.joined(separator: ", ")))"
            }
        }
        // A request for every entity of its table (the root, with its subentities or without any) keeps every
        // row of a sound file: its test goes after the predicate's terms, which the database evaluates first in
        // a scan, so the test costs a comparison only for rows the predicate keeps. A request for some entities
        // of a shared table is narrowed by the test first. (Placeholders are numbered: the order of the terms
        // does not change the bindings.)
        let keepsEveryRow = entity === table.root && (request.includesSubentities || entity.subentities.isEmpty)
        if let entityTest, !keepsEveryRow { conditions.append(entityTest) }
        var residual: [PredicateNode] = []
        if let predicate = request.predicate {
            let node = try predicate.validatedExpression()
            let terms: [PredicateNode]
            if case .and(let items) = node { terms = items } else { terms = [node] }
            for term in terms {
                if let sql = compiler.compile(term, in: scope) { conditions.append(sql) } else { residual.append(term) }
            }
        }
        if let entityTest, keepsEveryRow { conditions.append(entityTest) }
        orderBy = compiler.orderBy(request.sortDescriptors, in: scope)
        from = "\(q(table.name)) t0" + (scope.joins.isEmpty ? "" : " " + scope.joins.joined(separator: " "))
        whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        bindings = compiler.bindings
        self.residual = residual.isEmpty ? nil : NSPredicate(expression: residual.count == 1 ? residual[0] : .and(residual))
        dialect = schema.dialect
    }

    /// ` ORDER BY … LIMIT … OFFSET …` (with a leading space, or "") for the request, binding limit and offset
    /// after the other values. With `limitInSQL` false, or without a limit and offset, there is no limit
    /// clause; with one, rows are ordered (by `t0.Z_PK` when there are no sort descriptors), so the same rows
    /// come back each time. Call it only when `orderBy` is not nil or `limitInSQL` is false (limit and offset
    /// in SQL are wrong when memory filters or sorts afterwards).
    public mutating func orderAndLimit(for request: StoreFetchRequest, limitInSQL: Bool) -> String {
        var sql = ""
        let limited = limitInSQL && (request.fetchLimit > 0 || request.fetchOffset > 0)
        if let orderBy, !orderBy.isEmpty { sql += " ORDER BY " + orderBy.joined(separator: ", ") }
        else if limited { sql += " ORDER BY t0.Z_PK" }
        if limited {
            let dialect = dialect
            sql += dialect.limitClause(limit: request.fetchLimit > 0 ? request.fetchLimit : nil, offset: max(0, request.fetchOffset)) { value in
                bindings.append(value)
                return dialect.placeholder(bindings.count, for: value, type: .integer64AttributeType)
            }
        }
        return sql
    }

    /// The rows SQL selected, finished in memory as the request asks: filtered by `residual`, sorted by the
    /// request's sort descriptors when `orderBy` is nil, then cut by the fetch offset and limit. Rows are
    /// read, for the evaluator and the sort, through `source` (key paths through relationships load the
    /// related rows from it), so every SQL store evaluates what SQL left over exactly as the atomic stores do.
    /// Returns `rows` unchanged when `isComplete`.
    /// - Throws: what evaluating `residual` throws.
    public func completeInMemory(_ rows: [StoreRow], for request: StoreFetchRequest, reading source: any SQLRowSource) throws -> [StoreRow] {
        guard !isComplete else { return rows }
        var views = rows.map { SQLRowView(row: $0, source: source) }
        if let residual { views = try views.filter { try InMemoryQuery.matches(residual, $0) } }
        if orderBy == nil { views = request.sortDescriptors.sorting(views) }
        var slice = ArraySlice(views)
        if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
        return slice.map(\.row)
    }
}

import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore: SQLRowSource {
    /// Fetches with one SQL statement compiled by the shared compiler in PostgreSQL's dialect; what does not
    /// translate exactly (see `PostgreSQLDialect`) is finished in memory on the rows SQL selected, and limit
    /// and offset then apply after it. Counts and keys of a request SQL does wholly are counted and read in SQL.
    /// - Throws: the predicate's parse error; 134091 for an entity outside the store; 134070 when the server fails.
    public func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        var compiled = try SQLCompiledFetch(request, schema: schema)
        if compiled.isComplete {
            switch request.result {
            case .count:
                let inner = "SELECT t0.Z_PK FROM \(compiled.from)\(compiled.whereSQL)" + compiled.orderAndLimit(for: request, limitInSQL: true)
                let result = try select("SELECT COUNT(*) FROM (\(inner)) AS counted", compiled.bindings)
                return .count(Int(result.int64(0, 0) ?? 0))
            case .keys:
                let sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(compiled.from)\(compiled.whereSQL)" + compiled.orderAndLimit(for: request, limitInSQL: true)
                return .keys(Self.keys(of: try select(sql, compiled.bindings)))
            default:
                break
            }
        }
        guard let plan = plan(for: request.entity.entityNumber) else {
            throw CoreDataError.unsupported("fetching entity \(request.entity.name ?? ""), which is not in this store")
        }
        let complete = compiled.isComplete
        let sql = "SELECT \(plan.selectList) FROM \(compiled.from)\(compiled.whereSQL)" + compiled.orderAndLimit(for: request, limitInSQL: complete)
        var rows: [StoreRow] = []
        try appendRows(of: try select(sql, compiled.bindings), to: &rows)
        rows = try compiled.completeInMemory(rows, for: request, reading: self)
        switch request.result {
        case .rows: return .rows(rows)
        case .keys: return .keys(rows.map(\.key))
        case .count: return .count(rows.count)
        case .dictionaries(let properties, let distinct): return .dictionaries(dictionaries(rows, properties: properties, distinct: distinct))
        }
    }

    /// Runs a compiled statement with its bound values.
    private func select(_ sql: String, _ bindings: [SQLValue]) throws -> PostgreSQLResult {
        try run("fetch", writes: false) { try connection.query(sql, bindings.map(Self.parameterText)) }
    }

    /// A bound value as libpq parameter text (the placeholder carries its type).
    static func parameterText(_ value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number): return PostgreSQLText.format(number)
        case .text(let text): return text
        case .blob(let data): return PostgreSQLText.format(data)
        }
    }
}

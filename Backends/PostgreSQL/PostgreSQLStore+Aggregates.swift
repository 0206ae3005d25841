import CoreDataSQL
import CoreDataStoreKit

/// Aggregates computed by the server, with the SQLite store's statement (`SQLAggregateStatement`: `SELECT <groups>,
/// SUM(…), COUNT(…), … FROM … WHERE … GROUP BY <groups>`, in the order the context gives groups it computes itself).
///
/// Values are read as the compiler reads them (`PostgreSQLDialect.readExpression`: Booleans as 0 and 1, strings
/// ordered by code point for `MIN`/`MAX`). A query PostgreSQL cannot answer exactly as the context would is
/// left to the context (nil): a predicate or sort the compiler leaves to memory, `@sum`/`@avg` of a
/// non-number, `@min`/`@max` of UUIDs or binary data, an attribute outside the entity's table, and a sum past
/// `Int64` (PostgreSQL sums `bigint` as `numeric`, without overflow).
extension PostgreSQLStore: AggregatingBackend {
    public func aggregate(_ request: StoreFetchRequest, query: StoreAggregateQuery) throws -> [[Any?]]? {
        let compiled = try SQLCompiledFetch(request, schema: schema)
        let statement = SQLAggregateStatement.sql(for: query, of: request, compiled: compiled, schema: schema) { function, column, attribute in
            Self.aggregateSQL(function, of: dialect.readExpression(column, type: attribute.attributeType), type: attribute.attributeType, dialect: dialect)
        }
        guard let sql = statement else { return nil }
        let result = try run("compute aggregates", writes: false) {
            try connection.query(sql, compiled.bindings.map(Self.parameterText))
        }
        var rows: [[Any?]] = []
        for index in 0..<result.rowCount {
            var row: [Any?] = []
            for (offset, attribute) in query.groupBy.enumerated() {
                row.append(PostgreSQLValueCoding.decode(result.text(index, offset), as: attribute.attributeType))
            }
            for (offset, column) in query.columns.enumerated() {
                guard let text = result.text(index, query.groupBy.count + offset) else {
                    row.append(nil)
                    continue
                }
                guard let value = Self.aggregateValue(text, column) else { return nil }
                row.append(value)
            }
            rows.append(row)
        }
        return rows
    }

    /// The SQL of `function` over `value` (an attribute of `type` as `readExpression` reads it), or nil when
    /// PostgreSQL cannot compute it as the context does.
    private static func aggregateSQL(_ function: StoreAggregateQuery.Function, of value: String, type: NSAttributeType,
                                     dialect: PostgreSQLDialect) -> String? {
        switch function {
        case .count: return "COUNT(\(value))"
        case .sum, .average:
            guard isNumber(type) else { return nil }
            // PostgreSQL sums `real` as `real`; the context sums Floats as Doubles.
            let operand = type == .floatAttributeType ? "(\(value))::double precision" : value
            return function == .sum ? "SUM(\(operand))" : "AVG(\(operand))"
        case .min, .max:
            if [.UUIDAttributeType, .binaryDataAttributeType, .transformableAttributeType].contains(type) { return nil }
            let name = function == .min ? "MIN" : "MAX"
            let text: Set<NSAttributeType> = [.stringAttributeType, .URIAttributeType, .objectIDAttributeType]
            return "\(name)(\(text.contains(type) ? dialect.orderedByCodePoint(value) : value))"
        }
    }

    /// A computed value as the contract hands it over: `Int64` for a count and for a sum of integers or
    /// Booleans, `Double` for an average and for a sum of floating-point numbers, a `Decimal` sum of decimals,
    /// and for `min`/`max` the attribute's own value type; nil when the text does not fit (a sum past `Int64`).
    private static func aggregateValue(_ text: String, _ column: StoreAggregateQuery.Column) -> Any? {
        let type = column.attribute?.attributeType
        switch column.function {
        case .count: return Int64(text)
        case .average: return PostgreSQLText.double(text)
        case .sum:
            switch type {
            case .doubleAttributeType, .floatAttributeType: return PostgreSQLText.double(text)
            case .decimalAttributeType: return PostgreSQLText.decimal(text)
            default: return Int64(text)
            }
        case .min, .max:
            guard let type else { return nil }
            // Booleans were aggregated as 0 and 1.
            return PostgreSQLValueCoding.decode(text, as: type)
        }
    }

    private static func isNumber(_ type: NSAttributeType) -> Bool {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
             .doubleAttributeType, .floatAttributeType, .decimalAttributeType: return true
        default: return false
        }
    }
}

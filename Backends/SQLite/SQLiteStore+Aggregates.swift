import CSQLite
import CoreDataSQL
import CoreDataStoreKit
import Foundation

/// Aggregates in SQL (`SQLAggregateStatement`: `SELECT <groups>, SUM(…), COUNT(…), … FROM … WHERE … GROUP BY
/// <groups>`, in the order the context gives groups it computes itself), read back by SQLite's column types.
extension SQLiteStore: AggregatingBackend {
    public func aggregate(_ request: StoreFetchRequest, query: StoreAggregateQuery) throws -> [[Any?]]? {
        let (compiled, _) = try compile(request)
        let statement = SQLAggregateStatement.sql(for: query, of: request, compiled: compiled, schema: schema) { function, column, _ in
            switch function {
            case .sum: return "SUM(\(column))"
            case .count: return "COUNT(\(column))"
            case .min: return "MIN(\(column))"
            case .max: return "MAX(\(column))"
            case .average: return "AVG(\(column))"
            }
        }
        guard let sql = statement else { return nil }
        let groups = Int32(query.groupBy.count)
        return try connection.query(sql, compiled.bindings) { statement -> [Any?] in
            var row: [Any?] = []
            for (index, attribute) in query.groupBy.enumerated() {
                row.append(SQLValueCoding.decode(statement, Int32(index), as: attribute.attributeType))
            }
            for (offset, column) in query.columns.enumerated() {
                let index = groups + Int32(offset)
                guard statement.columnType(at: index) != SQLITE_NULL else { row.append(nil); continue }
                switch column.function {
                case .count: row.append(statement.int64(at: index))
                case .average: row.append(statement.double(at: index))
                case .sum:
                    if statement.columnType(at: index) == SQLITE_INTEGER { row.append(statement.int64(at: index)) } else { row.append(statement.double(at: index)) }
                case .min, .max:
                    row.append(column.attribute.flatMap { SQLValueCoding.decode(statement, index, as: $0.attributeType) })
                }
            }
            return row
        }
    }
}

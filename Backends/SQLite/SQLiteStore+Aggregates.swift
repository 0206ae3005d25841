import CSQLite
import CoreDataSQL
import CoreDataStoreKit
import Foundation

/// Aggregates in SQL: `SELECT <groups>, SUM(…), COUNT(…), … FROM … WHERE … GROUP BY <groups>`, ordered by the
/// request's sort descriptors and then by each group's first row (`MIN(Z_PK)`), which is the order the context
/// gives groups it computes itself.
extension SQLiteStore: AggregatingBackend {
    public func aggregate(_ request: StoreFetchRequest, query: StoreAggregateQuery) throws -> [[Any?]]? {
        let (compiled, _) = try compile(request)
        guard compiled.residual == nil, let orderBy = compiled.orderBy, let table = schema.table(for: request.entity) else { return nil }
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
            guard let name = table.column(for: attribute) else { return nil }
            let function: String
            switch column.function {
            case .sum: function = "SUM"
            case .count: function = "COUNT"
            case .min: function = "MIN"
            case .max: function = "MAX"
            case .average: function = "AVG"
            }
            selected.append("\(function)(t0.\(name))")
        }
        var sql = "SELECT \(selected.joined(separator: ", ")) FROM \(compiled.from)\(compiled.whereSQL)"
        if !groupColumns.isEmpty {
            sql += " GROUP BY " + groupColumns.joined(separator: ", ")
            sql += " ORDER BY " + (orderBy + ["MIN(t0.Z_PK)"]).joined(separator: ", ")
        }
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

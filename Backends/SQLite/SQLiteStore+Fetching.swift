import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// One fetch request compiled to SQL: the FROM clause with its joins, the WHERE clause, the ORDER BY, and
/// what is left to do in memory (a predicate part that does not translate, a sort that must run in memory).
struct SQLiteCompiledFetch {
    var from: String
    var whereSQL: String
    var orderBy: [String]?
    var bindings: [SQLValue]
    /// The part of the predicate evaluated in memory, or nil.
    var residual: NSPredicate?
    /// Whether limit and offset can be applied by SQL (nothing is left for memory).
    var isComplete: Bool { residual == nil && orderBy != nil }
}

extension SQLiteStore {
    /// Compiles a fetch request. Top-level `AND` terms that do not translate are kept for memory.
    /// - Throws: the predicate's parse error; 134091 when the entity is not in this store.
    func compile(_ request: StoreFetchRequest) throws -> (SQLiteCompiledFetch, SQLiteRowPlan) {
        guard let table = schema.table(for: request.entity), let plan = plan(for: request.entity.entityNumber) else {
            throw CoreDataError.unsupported("fetching entity \(request.entity.name.orEmpty), which is not in this store")
        }
        let compiler = SQLitePredicateCompiler(schema: schema)
        let scope = SQLitePredicateCompiler.Scope(alias: "t0", entity: request.entity)
        var conditions: [String] = []
        let entity = request.entity
        let descendants = SQLSchema.hierarchy(of: entity).count - 1
        if !(entity.superentity == nil && (descendants == 0 || request.includesSubentities)) {
            let first = compiler.bind(.integer(Int64(entity.entityNumber)))
            if request.includesSubentities && descendants > 0 {
                let last = compiler.bind(.integer(Int64(entity.entityNumber) + Int64(descendants)))
                conditions.append("t0.Z_ENT BETWEEN \(first) AND \(last)")
            } else {
                conditions.append("t0.Z_ENT = \(first)")
            }
        }
        var residual: [PredicateNode] = []
        if let predicate = request.predicate {
            let node = try predicate.validatedExpression()
            let terms: [PredicateNode]
            if case .and(let items) = node { terms = items } else { terms = [node] }
            for term in terms {
                if let sql = compiler.compile(term, in: scope) { conditions.append(sql) } else { residual.append(term) }
            }
        }
        let orderBy = compiler.orderBy(request.sortDescriptors, in: scope)
        let from = "\(q(table.name)) t0" + (scope.joins.isEmpty ? "" : " " + scope.joins.joined(separator: " "))
        let residualPredicate: NSPredicate? = residual.isEmpty ? nil : NSPredicate(expression: residual.count == 1 ? residual[0] : .and(residual))
        return (SQLiteCompiledFetch(from: from, whereSQL: conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "),
                                    orderBy: orderBy, bindings: compiler.bindings, residual: residualPredicate), plan)
    }

    /// `ORDER BY … LIMIT … OFFSET …` for a complete compiled fetch, binding limit and offset.
    private func tail(_ compiled: inout SQLiteCompiledFetch, _ request: StoreFetchRequest, limitInSQL: Bool) -> String {
        var sql = ""
        if let orderBy = compiled.orderBy, !orderBy.isEmpty { sql += " ORDER BY " + orderBy.joined(separator: ", ") }
        else if limitInSQL && (request.fetchLimit > 0 || request.fetchOffset > 0) { sql += " ORDER BY t0.Z_PK" }
        if limitInSQL && (request.fetchLimit > 0 || request.fetchOffset > 0) {
            compiled.bindings.append(.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1))
            compiled.bindings.append(.integer(Int64(max(0, request.fetchOffset))))
            sql += " LIMIT ?\(compiled.bindings.count - 1) OFFSET ?\(compiled.bindings.count)"
        }
        return sql
    }

    public func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        var (compiled, plan) = try compile(request)
        if compiled.isComplete {
            switch request.result {
            case .count:
                var inner = "SELECT t0.Z_PK FROM \(compiled.from)\(compiled.whereSQL)"
                if request.fetchLimit > 0 || request.fetchOffset > 0 {
                    inner += tail(&compiled, request, limitInSQL: true)
                    let count = try connection.query("SELECT COUNT(*) FROM (\(inner))", compiled.bindings) { $0.int64(at: 0) }.first ?? 0
                    return .count(Int(count))
                }
                let count = try connection.query("SELECT COUNT(*) FROM \(compiled.from)\(compiled.whereSQL)", compiled.bindings) { $0.int64(at: 0) }.first ?? 0
                return .count(Int(count))
            case .keys:
                let sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(compiled.from)\(compiled.whereSQL)" + tail(&compiled, request, limitInSQL: true)
                return .keys(try connection.query(sql, compiled.bindings) {
                    ObjectKey(entityNumber: Int32(truncatingIfNeeded: $0.int64(at: 1)), primaryKey: $0.int64(at: 0))
                })
            default:
                break
            }
        }
        let complete = compiled.isComplete
        let sql = "SELECT \(plan.selectList) FROM \(compiled.from)\(compiled.whereSQL)" + tail(&compiled, request, limitInSQL: complete)
        var rows: [StoreRow] = []
        var last: (number: Int32, plan: SQLiteRowPlan)?  // rows mostly come in runs of one entity
        try connection.forEachRow(sql, compiled.bindings) { statement in
            let number = Int32(truncatingIfNeeded: statement.int64(at: 1))
            if let last, last.number == number {
                rows.append(try last.plan.row(from: statement, storeURL: url))
            } else if let found = self.plan(for: number) {
                last = (number, found)
                rows.append(try found.row(from: statement, storeURL: url))
            }
        }
        if !complete {
            var views = rows.map { SQLiteRowView(row: $0, store: self) }
            if let residual = compiled.residual { views = try views.filter { try InMemoryQuery.matches(residual, $0) } }
            if compiled.orderBy == nil { views = request.sortDescriptors.sorting(views) }
            var slice = ArraySlice(views)
            if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
            if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
            rows = slice.map(\.row)
        }
        switch request.result {
        case .rows: return .rows(rows)
        case .keys: return .keys(rows.map(\.key))
        case .count: return .count(rows.count)
        case .dictionaries(let properties, let distinct): return .dictionaries(dictionaries(rows, properties: properties, distinct: distinct))
        }
    }

    private func dictionaries(_ rows: [StoreRow], properties: [NSPropertyDescription], distinct: Bool) -> [[String: Any]] {
        var seen = Set<NSDictionary>()
        var result: [[String: Any]] = []
        for row in rows {
            guard let layout = model.entity(withNumber: row.key.entityNumber)?.layout else { continue }
            var dictionary: [String: Any] = [:]
            for property in properties {
                guard let slot = layout.slotByName[property.name], let value = row.values[slot] else { continue }
                dictionary[property.name] = value
            }
            if distinct {
                guard seen.insert(NSDictionary(dictionary: dictionary)).inserted else { continue }
            }
            result.append(dictionary)
        }
        return result
    }

    public func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        var result: [StoreRow] = []
        result.reserveCapacity(keys.count)
        for key in keys {
            guard let plan = plan(for: key.entityNumber) else { continue }
            let statement = try connection.statement("SELECT \(plan.selectList) FROM \(q(plan.table.name)) t0 WHERE t0.Z_PK = ?1")
            defer { statement.reset() }
            statement.bind(key.primaryKey, at: 1)
            while try statement.step() {
                let number = Int32(truncatingIfNeeded: statement.int64(at: 1))
                // A key whose row now belongs to another entity is not that object any more.
                if number == key.entityNumber { result.append(try plan.row(from: statement, storeURL: url)) }
            }
        }
        return result
    }

    public func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        guard let storage = schema.storage(of: relationship), let destination = relationship.destinationEntity,
              let destinationTable = schema.table(for: destination) else { return [] }
        switch storage {
        case .inverseForeignKey(let inverse):
            guard let column = destinationTable.column(for: inverse) else { return [] }
            var order = "t0.Z_PK"
            if relationship.isOrdered, let index = destinationTable.orderColumnByRelationship[ObjectIdentifier(inverse)] {
                order = "t0.\(q(destinationTable.columns[index].name)), t0.Z_PK"
            }
            return try connection.query("SELECT t0.Z_PK, t0.Z_ENT FROM \(q(destinationTable.name)) t0 WHERE t0.\(column) = ?1 ORDER BY \(order)",
                                        [.integer(key.primaryKey)]) {
                ObjectKey(entityNumber: Int32(truncatingIfNeeded: $0.int64(at: 1)), primaryKey: $0.int64(at: 0))
            }
        case .joinTable(let join, let ownerColumn, let destinationColumn, let orderColumn):
            let order = orderColumn.map { "j.\(q($0)), d.Z_PK" } ?? "d.Z_PK"
            let sql = "SELECT d.Z_PK, d.Z_ENT FROM \(q(join.name)) j JOIN \(q(destinationTable.name)) d ON d.Z_PK = j.\(q(destinationColumn)) WHERE j.\(q(ownerColumn)) = ?1 ORDER BY \(order)"
            return try connection.query(sql, [.integer(key.primaryKey)]) {
                ObjectKey(entityNumber: Int32(truncatingIfNeeded: $0.int64(at: 1)), primaryKey: $0.int64(at: 0))
            }
        }
    }
}

/// A fetched row as the in-memory predicate evaluator and sorter read it: attributes by name, to-one
/// relationships as further row views, to-many relationships as arrays of row views (loaded on demand).
final class SQLiteRowView: PredicateKeyValueReading, StoredObjectReference {
    let row: StoreRow
    unowned let store: SQLiteStore

    init(row: StoreRow, store: SQLiteStore) {
        self.row = row
        self.store = store
    }

    var storedObjectKey: ObjectKey? { row.key }

    func predicateValue(forKey key: String) -> Any? {
        guard let entity = store.model.entity(withNumber: row.key.entityNumber), let slot = entity.layout.slotByName[key] else { return nil }
        let property = entity.layout.allProperties[slot]
        guard let relationship = property as? NSRelationshipDescription else { return row.values[slot] }
        if relationship.isToMany {
            let keys = (try? store.relatedKeys(of: row.key, through: relationship)) ?? []
            return ((try? store.rows(for: keys)) ?? []).map { SQLiteRowView(row: $0, store: store) }
        }
        guard let target = row.values[slot] as? ObjectKey, let targetRow = (try? store.rows(for: [target]))?.first else { return nil }
        return SQLiteRowView(row: targetRow, store: store)
    }
}

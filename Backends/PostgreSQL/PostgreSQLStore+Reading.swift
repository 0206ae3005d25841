import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore {
    /// The current rows of these keys, one query per table (`Z_PK = ANY(…)`); keys whose row is gone, or now
    /// belongs to another entity, are left out.
    public func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        guard !keys.isEmpty else { return [] }
        var keysByTable: [ObjectIdentifier: (plan: PostgreSQLRowPlan, keys: [Int64])] = [:]
        var wanted = Set<ObjectKey>()
        for key in keys {
            guard let plan = plan(for: key.entityNumber) else { continue }
            wanted.insert(key)
            keysByTable[ObjectIdentifier(plan.table), default: (plan, [])].keys.append(key.primaryKey)
        }
        var result: [StoreRow] = []
        result.reserveCapacity(wanted.count)
        for (plan, primaryKeys) in keysByTable.values {
            let sql = "SELECT \(plan.selectList) FROM \(SQLSchema.quote(plan.table.name)) t0 WHERE t0.Z_PK = ANY($1::bigint[])"
            let found = try run("read rows", writes: false) {
                try connection.query(sql, [Self.keyArray(primaryKeys)])
            }
            try appendRows(of: found, to: &result) { wanted.contains($0) }
        }
        return result
    }

    /// Decodes each row of `result` (columns as `selectList`) with the plan of its `Z_ENT`, keeping the rows
    /// whose key `keep` accepts.
    func appendRows(of result: PostgreSQLResult, to rows: inout [StoreRow], keep: (ObjectKey) -> Bool = { _ in true }) throws {
        for index in 0..<result.rowCount {
            guard let number = result.int64(index, 1), let plan = plan(for: Int32(truncatingIfNeeded: number)) else { continue }
            let row = try plan.row(result, index, storeURL: url)
            if keep(row.key) { rows.append(row) }
        }
    }

    /// The keys of a to-many's destinations, in order when it is ordered.
    public func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        guard let storage = schema.storage(of: relationship), let destination = relationship.destinationEntity,
              let destinationTable = schema.table(for: destination) else { return [] }
        let sql: String
        switch storage {
        case .inverseForeignKey(let inverse):
            guard let column = destinationTable.column(for: inverse) else { return [] }
            var order = "t0.Z_PK"
            if relationship.isOrdered, let index = destinationTable.orderColumnByRelationship[ObjectIdentifier(inverse)] {
                order = "t0.\(SQLSchema.quote(destinationTable.columns[index].name)), t0.Z_PK"
            }
            sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(SQLSchema.quote(destinationTable.name)) t0 WHERE t0.\(column) = $1 ORDER BY \(order)"
        case .joinTable(let join, let ownerColumn, let destinationColumn, let orderColumn):
            let order = orderColumn.map { "j.\(SQLSchema.quote($0)), d.Z_PK" } ?? "d.Z_PK"
            sql = "SELECT d.Z_PK, d.Z_ENT FROM \(SQLSchema.quote(join.name)) j JOIN \(SQLSchema.quote(destinationTable.name)) d ON d.Z_PK = j.\(SQLSchema.quote(destinationColumn)) WHERE j.\(SQLSchema.quote(ownerColumn)) = $1 ORDER BY \(order)"
        }
        let found = try run("read a relationship", writes: false) { try connection.query(sql, [String(key.primaryKey)]) }
        return Self.keys(of: found)
    }

    /// The `(Z_PK, Z_ENT)` pairs of a result's first two columns.
    static func keys(of result: PostgreSQLResult) -> [ObjectKey] {
        (0..<result.rowCount).compactMap { index in
            guard let primaryKey = result.int64(index, 0), let entity = result.int64(index, 1) else { return nil }
            return ObjectKey(entityNumber: Int32(truncatingIfNeeded: entity), primaryKey: primaryKey)
        }
    }
}

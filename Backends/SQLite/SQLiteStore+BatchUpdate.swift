import CSQLite
import CoreDataSQL
import CoreDataStoreKit

extension SQLiteStore {
    /// Updates rows in SQL, in one transaction, and returns the keys of the updated rows.
    ///
    /// When the whole predicate translates to SQL, it is one `UPDATE … SET …, Z_OPT = Z_OPT + 1 WHERE …
    /// RETURNING Z_PK, Z_ENT` (through `Z_PK IN (SELECT …)` when the predicate joins other tables). A predicate
    /// part that SQL cannot evaluate (a block predicate) makes the store find the keys first, then update
    /// those rows by key with one reused statement. Values are bound, never spliced.
    /// - Throws: 134030 for a read-only store; 133021 when a uniqueness constraint fails; 134091 when the
    ///   entity is not in this store; 134180 for other SQLite errors.
    public func batchUpdate(_ request: StoreBatchUpdateRequest) throws -> [ObjectKey] {
        try batchUpdate(request, collectingKeys: true).keys
    }

    /// Updates as `batchUpdate(_:)` does; when history is off and the predicate translates to SQL, the
    /// statement has no `RETURNING` clause (SQLite would keep every returned row until the update finishes)
    /// and the count is SQLite's count of changed rows.
    public func batchUpdateCount(_ request: StoreBatchUpdateRequest) throws -> Int {
        try batchUpdate(request, collectingKeys: false).count
    }

    /// Updates the rows of `request` in one transaction; the keys are returned when `collectingKeys`, or when
    /// history needs them. The count is the number of rows updated in either case.
    private func batchUpdate(_ request: StoreBatchUpdateRequest, collectingKeys: Bool) throws -> (keys: [ObjectKey], count: Int) {
        try checkWritable()
        let (compiled, plan) = try compile(request.fetch)
        let table = q(plan.table.name)
        let returnsKeys = collectingKeys || recordsHistory
        func key(_ statement: SQLiteStatement) -> ObjectKey {
            self.storedKey(entity: statement.int64(at: 1), primaryKey: statement.int64(at: 0))
        }
        do {
            return try connection.transaction {
                let updated: (keys: [ObjectKey], count: Int) = try { () throws -> (keys: [ObjectKey], count: Int) in
                    if compiled.residual == nil {
                        var bindings = compiled.bindings
                        let set = try assignments(request, plan: plan, bindings: &bindings)
                        let sql = compiled.from == "\(table) t0"
                            ? "UPDATE \(table) AS t0 SET \(set)\(compiled.whereSQL)"
                            : "UPDATE \(table) SET \(set) WHERE Z_PK IN (SELECT t0.Z_PK FROM \(compiled.from)\(compiled.whereSQL))"
                        guard returnsKeys else { return ([], try connection.run(sql, bindings, cached: true)) }
                        let keys = try connection.query(sql + " RETURNING Z_PK, Z_ENT", bindings, cached: true, key)
                        return (keys, keys.count)
                    }
                    guard case .keys(let keys) = try fetch(request.fetch), !keys.isEmpty else { return ([], 0) }
                    var bindings: [SQLValue] = []
                    let set = try assignments(request, plan: plan, bindings: &bindings)
                    let sql = "UPDATE \(table) SET \(set) WHERE Z_PK = ?\(bindings.count + 1)"
                    var updated: [ObjectKey] = []
                    updated.reserveCapacity(keys.count)
                    for key in keys where try connection.run(sql, bindings + [.integer(key.primaryKey)], cached: true) > 0 {
                        updated.append(key)
                    }
                    return (updated, updated.count)
                }()
                if recordsHistory, !updated.keys.isEmpty {
                    // One mask for every row: a batch update changes the same attributes everywhere.
                    let mask = SQLPersistentHistory.columnMask(request.assignments.compactMap { plan.entity.layout.slotByName[$0.attribute.name] })
                    try recordHistory(updated.keys.map { ($0, .update, mask) }, info: SQLPersistentHistory.batchTransactionInfo)
                }
                return updated
            }
        } catch let error as NSError {
            throw Self.constraintError(error)
        }
    }

    /// The `SET` list: each attribute's column bound to a new parameter appended to `bindings`, then
    /// `Z_OPT = Z_OPT + 1`.
    private func assignments(_ request: StoreBatchUpdateRequest, plan: SQLiteRowPlan, bindings: inout [SQLValue]) throws -> String {
        var parts: [String] = []
        for assignment in request.assignments {
            guard let slot = plan.entity.layout.slotByName[assignment.attribute.name], let field = plan.fieldBySlot[slot] else {
                throw CoreDataError.unsupported("batch updates of \(assignment.attribute.name), which has no column in this store")
            }
            for (column, value) in zip(field.columns, try plan.bindings(for: field, value: assignment.value)) {
                bindings.append(value)
                parts.append("\(q(plan.table.columns[column].name)) = ?\(bindings.count)")
            }
        }
        parts.append("Z_OPT = Z_OPT + 1")
        return parts.joined(separator: ", ")
    }
}

import CSQLite
import CoreDataSQL
import CoreDataStoreKit

extension SQLiteStore {
    /// Runs a batch insert whose uniqueness conflicts are resolved instead of failing
    /// (`StoreBatchInsertRequest.conflictResolution` `.updateExisting` or `.keepExisting`), in one transaction:
    /// one reused statement per row, in the request's order, so a row meets the rows written before it.
    ///
    /// The statement is the row's insert with SQLite's upsert clause: `ON CONFLICT DO UPDATE SET` every
    /// attribute column from the row and `Z_OPT = Z_OPT + 1` when the conflicting row is of the same entity, or
    /// `ON CONFLICT DO NOTHING`, with `RETURNING Z_PK`. A row that returns its own new key was inserted, one
    /// that returns another key updated that row, one that returns nothing was dropped (or, under
    /// `.updateExisting`, met a row of another entity: 133021).
    /// - Throws: as `batchInsert(_:)`.
    func batchUpsert(_ request: StoreBatchInsertRequest, plan: SQLiteRowPlan) throws -> [ObjectKey] {
        let resolution = request.conflictResolution
        let attributes = plan.fields.filter { field in
            if case .toOne = field.kind { return false }
            return !plan.isDerivedSlot(field.slot)
        }
        let sql: String
        if resolution == .keepExisting {
            sql = plan.insertSQL + " ON CONFLICT DO NOTHING RETURNING Z_PK"
        } else {
            let columns = attributes.flatMap(\.columns).map { q(plan.table.columns[$0].name) }
            let assignments = columns.map { "\($0) = excluded.\($0)" } + ["Z_OPT = Z_OPT + 1"]
            sql = plan.insertSQL + " ON CONFLICT DO UPDATE SET \(assignments.joined(separator: ", ")) WHERE Z_ENT = excluded.Z_ENT RETURNING Z_PK"
        }
        let updatedColumns = SQLPersistentHistory.columnMask(attributes.map(\.slot))
        let entityNumber = plan.storedEntityNumber
        do {
            return try connection.transaction {
                let primaryKeys = try allocatePrimaryKeys(for: plan.entity, count: request.rows.count)
                let statement = try connection.statement(sql)
                var keys: [ObjectKey] = []
                keys.reserveCapacity(request.rows.count)
                var history: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)] = []
                var recorded = Set<ObjectKey>()
                for (row, primaryKey) in zip(request.rows, primaryKeys) {
                    defer { statement.reset() }
                    statement.bind(primaryKey, at: 1)
                    statement.bind(entityNumber, at: 2)
                    statement.bind(1, at: 3)
                    _ = try row.withUnsafeBufferPointer { values in
                        var next: Int32 = 4
                        for binder in plan.binders { next = try plan.bind(binder, from: values, to: statement, at: next) }
                        return next
                    }
                    var written: Int64?
                    while try statement.step() { written = statement.int64(at: 0) }
                    guard let written else {
                        if resolution == .keepExisting { continue }
                        throw CoreDataError.batchInsertConflictWithOtherEntity(plan.entity)
                    }
                    let key = ObjectKey(entityNumber: plan.entityNumber, primaryKey: written)
                    keys.append(key)
                    // A row inserted and then updated by a later row of the request is one insert in history.
                    if recorded.insert(key).inserted {
                        history.append(written == primaryKey ? (key, .insert, nil) : (key, .update, updatedColumns))
                    }
                }
                if recordsHistory { try recordHistory(history, info: SQLPersistentHistory.batchTransactionInfo) }
                return keys
            }
        } catch let error as NSError {
            throw Self.constraintError(error)
        }
    }
}

import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore {
    /// Runs a batch insert whose uniqueness conflicts are resolved instead of failing
    /// (`StoreBatchInsertRequest.conflictResolution` `.updateExisting` or `.keepExisting`), in one transaction.
    ///
    /// First every row goes in as in a plain batch insert, with `ON CONFLICT DO NOTHING RETURNING Z_PK`: the
    /// returned keys are the rows no unique index refused. Under `.keepExisting` the refused rows are dropped.
    /// Under `.updateExisting` each refused row is written into the stored row of its entity that has its
    /// values for a constraint (`Z_OPT + 1`), as if the refused rows were written one by one in the request's
    /// order: when the entity's rows can meet one constraint only, in one statement per run of up to 500
    /// refused rows (`ChunkConstraintUpdate`); else, and for a row that statement found no stored row for,
    /// with one `UPDATE` per row (`ConstraintUpdate`; PostgreSQL's `ON CONFLICT DO UPDATE` needs the one
    /// constraint named, and an entity may have several). When no such row exists any more (an earlier update
    /// changed it), the row is inserted after all; when the row that refused it is of another entity, 133021.
    /// - Throws: as `batchInsert(_:)`.
    func batchUpsert(_ request: StoreBatchInsertRequest, plan: PostgreSQLRowPlan, head: String, keys newKeys: [ObjectKey],
                     rowParameters: [[String?]]) throws -> [ObjectKey] {
        let columns = UpsertColumns(plan: plan, constraints: schema.uniquenessColumns(of: plan.table))
        let table = SQLSchema.quote(plan.table.name)
        let update = ConstraintUpdate(table: table, columns: columns)
        let chunkUpdate = ChunkConstraintUpdate(table: table, entityNumber: plan.entity.entityNumber, columns: columns)
        let columnMask = SQLPersistentHistory.columnMask(columns.attributeSlots)
        let singleInsert = plan.insertSQL + " ON CONFLICT DO NOTHING RETURNING Z_PK"
        return try run("batch insert") {
            try connection.transaction {
                var inserted = Set<Int64>()
                for result in try insertInChunks(head: head, rows: rowParameters, suffix: " ON CONFLICT DO NOTHING RETURNING Z_PK") {
                    for index in 0..<result.rowCount { if let key = result.int64(index, 0) { inserted.insert(key) } }
                }
                var storedKeys: [Int: Int64] = [:]
                if request.conflictResolution == .updateExisting, let chunkUpdate {
                    let refused = newKeys.indices.filter { !inserted.contains(newKeys[$0].primaryKey) }
                    storedKeys = try updateStoredRows(refused, rowParameters: rowParameters, with: chunkUpdate)
                }
                var keys: [ObjectKey] = []
                keys.reserveCapacity(newKeys.count)
                var history: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)] = []
                var recorded = Set<ObjectKey>()
                for (index, (key, parameters)) in zip(newKeys, rowParameters).enumerated() {
                    var written = key
                    var kind = StoreHistoryChange.Kind.insert
                    if !inserted.contains(key.primaryKey) {
                        guard request.conflictResolution == .updateExisting else { continue }
                        if let stored = storedKeys[index] {
                            written = ObjectKey(entityNumber: key.entityNumber, primaryKey: stored)
                            kind = .update
                        } else {
                            let result = try connection.query(update.sql, update.parameters(from: parameters))
                            if result.rowCount > 0, let updated = result.int64(0, 0) {
                                written = ObjectKey(entityNumber: key.entityNumber, primaryKey: updated)
                                kind = .update
                            } else if try connection.query(singleInsert, parameters).rowCount == 0 {
                                throw CoreDataError.batchInsertConflictWithOtherEntity(plan.entity)
                            }
                        }
                    }
                    keys.append(written)
                    // A row inserted and then updated by a later row of the request is one insert in history.
                    if recorded.insert(written).inserted { history.append((written, kind, kind == .update ? columnMask : nil)) }
                }
                try recordHistory(history, info: SQLPersistentHistory.batchTransactionInfo)
                if !history.isEmpty {
                    try announce(inserted: history.filter { $0.kind == .insert }.map(\.key), updated: history.filter { $0.kind == .update }.map(\.key))
                }
                return keys
            }
        }
    }

    /// Writes the refused rows (indexes into `rowParameters`, in the request's order) into the stored rows they
    /// meet, one statement per run of `chunkUpdate.rowsPerStatement` rows, and returns for each row written the
    /// key of the stored row that now holds its values (rows the statement found no stored row for are left out).
    /// Called inside the batch insert's transaction.
    private func updateStoredRows(_ refused: [Int], rowParameters: [[String?]],
                                  with chunkUpdate: ChunkConstraintUpdate) throws -> [Int: Int64] {
        var storedKeys: [Int: Int64] = [:]
        storedKeys.reserveCapacity(refused.count)
        var start = 0
        while start < refused.count {
            let run = refused[start..<min(start + chunkUpdate.rowsPerStatement, refused.count)]
            let result = try connection.query(chunkUpdate.sql(rowCount: run.count), chunkUpdate.parameters(run.map { rowParameters[$0] }))
            for resultRow in 0..<result.rowCount {
                guard let row = result.int64(resultRow, 0), let stored = result.int64(resultRow, 1),
                      row >= 0, row < Int64(run.count) else { continue }
                storedKeys[run[run.startIndex + Int(row)]] = stored
            }
            start += run.count
        }
        return storedKeys
    }
}

import CSQLite
import CoreDataSQL
import CoreDataStoreKit

extension SQLiteStore {
    /// Inserts rows in SQL, in one transaction, and returns their keys in the order of the rows.
    ///
    /// Keys come from `Z_PRIMARYKEY` as for a save. Rows go in as multi-row `INSERT … VALUES (…), (…), …`
    /// statements of up to 64 rows (fewer for wide tables, to stay under SQLite's parameter limit); the
    /// statement for a full chunk is prepared once and reused. Every value is bound.
    /// When the request resolves uniqueness conflicts and the table has unique indexes, the rows go in one at a
    /// time instead (`batchUpsert(_:plan:)`).
    /// - Throws: 134030 for a read-only store; 133021 when a uniqueness constraint fails (nothing is
    ///   inserted); 134091 when the entity is not in this store; 134180 for other SQLite errors.
    public func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey] {
        try checkWritable()
        let entity = request.entity
        guard let plan = plan(for: entity.entityNumber), plan.entity.name == entity.name,
              let valuesRange = plan.insertSQL.range(of: " VALUES ") else {
            throw CoreDataError.unsupported("batch inserts into entity \(entity.name.orEmpty), which is not in this store")
        }
        guard !request.rows.isEmpty else { return [] }
        if request.conflictResolution != .fail, !plan.schema.uniquenessColumns(of: plan.table).isEmpty {
            return try batchUpsert(request, plan: plan)
        }
        let head = String(plan.insertSQL[..<valuesRange.lowerBound])
        let perRow = 3 + plan.fields.reduce(0) { count, field in count + field.columns.count }
        let chunk = max(1, min(64, 32_000 / perRow))
        let placeholders = "(" + Array(repeating: "?", count: perRow).joined(separator: ", ") + ")"
        func insertSQL(rows: Int) -> String { head + " VALUES " + Array(repeating: placeholders, count: rows).joined(separator: ", ") }
        let fullChunkSQL = insertSQL(rows: chunk)  // built once: most chunks are full
        let entityNumber = plan.storedEntityNumber
        do {
            return try connection.transaction {
                let primaryKeys = try allocatePrimaryKeys(for: plan.entity, count: request.rows.count)
                var keys: [ObjectKey] = []
                keys.reserveCapacity(primaryKeys.count)
                var start = 0
                while start < request.rows.count {
                    let count = min(chunk, request.rows.count - start)
                    // Full chunks share one cached statement; the last, shorter one is prepared for once.
                    let statement = count == chunk ? try connection.statement(fullChunkSQL) : try connection.prepare(insertSQL(rows: count))
                    defer { count == chunk ? statement.reset() : statement.finalize() }
                    var index: Int32 = 1
                    for offset in start..<(start + count) {
                        let row = request.rows[offset]
                        statement.bind(primaryKeys[offset], at: index)
                        statement.bind(entityNumber, at: index + 1)
                        statement.bind(1, at: index + 2)
                        index += 3
                        index = try row.withUnsafeBufferPointer { values in
                            var next = index
                            for binder in plan.binders { next = try plan.bind(binder, from: values, to: statement, at: next) }
                            return next
                        }
                        keys.append(ObjectKey(entityNumber: plan.entity.entityNumber, primaryKey: primaryKeys[offset]))
                    }
                    while try statement.step() {}
                    start += count
                }
                if recordsHistory { try recordHistory(keys.map { ($0, .insert, nil) }, info: SQLPersistentHistory.batchTransactionInfo) }
                return keys
            }
        } catch let error as NSError {
            throw Self.constraintError(error)
        }
    }
}

import CSQLite
import CoreDataSQL
import CoreDataStoreKit

extension SQLiteStore {
    /// Inserts rows in SQL, in one transaction, and returns their keys in the order of the rows.
    ///
    /// Keys come from `Z_PRIMARYKEY` as for a save. Rows go in as multi-row `INSERT … VALUES (…), (…), …`
    /// statements of up to 64 rows (fewer for wide tables, to stay under SQLite's parameter limit); the
    /// statement for a full chunk is prepared once and reused. Every value is bound. When the request resolves
    /// uniqueness conflicts and the table has unique indexes, each statement ends with SQLite's upsert clause
    /// (`SQLiteBatchUpsert`), and the keys are those of the objects written, each once.
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
        let upsert = SQLiteBatchUpsert(request, plan: plan)
        let head = String(plan.insertSQL[..<valuesRange.lowerBound])
        let perRow = 3 + plan.fields.reduce(0) { count, field in count + field.columns.count }
        let chunk = max(1, min(64, 32_000 / perRow))
        let placeholders = "(" + Array(repeating: "?", count: perRow).joined(separator: ", ") + ")"
        func insertSQL(rows: Int) -> String {
            head + " VALUES " + Array(repeating: placeholders, count: rows).joined(separator: ", ") + (upsert?.clause ?? "")
        }
        let fullChunkSQL = insertSQL(rows: chunk)  // built once: most chunks are full
        let entityNumber = plan.storedEntityNumber
        do {
            return try connection.transaction {
                let primaryKeys = try allocatePrimaryKeys(for: plan.entity, count: request.rows.count)
                var keys: [ObjectKey] = []
                keys.reserveCapacity(primaryKeys.count)
                var returned: [Int64] = []
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
                    let returnedBefore = returned.count
                    while try statement.step() { if upsert != nil { returned.append(statement.int64(at: 0)) } }
                    try upsert?.check(returned: returned.count - returnedBefore, rows: count, entity: plan.entity)
                    start += count
                }
                guard let upsert else {
                    if recordsHistory { try recordHistory(keys.map { ($0, .insert, nil) }, info: SQLPersistentHistory.batchTransactionInfo) }
                    return keys
                }
                let written = upsert.outcome(returned: returned, newKeys: Set(primaryKeys), entityNumber: plan.entity.entityNumber)
                if recordsHistory { try recordHistory(written.history, info: SQLPersistentHistory.batchTransactionInfo) }
                return written.keys
            }
        } catch let error as NSError {
            throw Self.constraintError(error)
        }
    }
}

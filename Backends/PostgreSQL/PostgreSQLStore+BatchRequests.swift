import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore {
    /// Updates rows in SQL, in one transaction, and returns the keys of the updated rows: the keys the fetch
    /// selects (compiled as any fetch is, what does not translate evaluated in memory), then one
    /// `UPDATE … SET …, Z_OPT = Z_OPT + 1 WHERE Z_PK = ANY(…) RETURNING Z_PK, Z_ENT`. Values are parameters.
    /// - Throws: 134030 for a read-only store or a server failure; 133021 when a uniqueness constraint fails;
    ///   134091 when the entity or an attribute is not in this store.
    public func batchUpdate(_ request: StoreBatchUpdateRequest) throws -> [ObjectKey] {
        try checkWritable()
        guard let plan = plan(for: request.fetch.entity.entityNumber) else {
            throw CoreDataError.unsupported("batch updates of entity \(request.fetch.entity.name ?? ""), which is not in this store")
        }
        var parameters: [String?] = []
        var assignments: [String] = []
        for assignment in request.assignments {
            guard let slot = plan.entity.layout.slotByName[assignment.attribute.name], let field = plan.fieldBySlot[slot] else {
                throw CoreDataError.unsupported("batch updates of \(assignment.attribute.name), which has no column in this store")
            }
            for (column, value) in zip(field.columns, try plan.parameters(for: field, value: assignment.value)) {
                parameters.append(value)
                assignments.append("\(SQLSchema.quote(plan.table.columns[column].name)) = $\(parameters.count)")
            }
        }
        assignments.append("Z_OPT = Z_OPT + 1")
        return try run("batch update") {
            try connection.transaction {
                guard case .keys(let keys) = try fetch(request.fetch), !keys.isEmpty else { return [] }
                parameters.append(Self.keyArray(keys.map(\.primaryKey)))
                let sql = "UPDATE \(SQLSchema.quote(plan.table.name)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ANY($\(parameters.count)::bigint[]) RETURNING Z_PK, Z_ENT"
                let updated = Self.keys(of: try connection.query(sql, parameters))
                // One mask for every row: a batch update changes the same attributes everywhere.
                let mask = SQLPersistentHistory.columnMask(request.assignments.compactMap { plan.entity.layout.slotByName[$0.attribute.name] })
                try recordHistory(updated.map { ($0, .update, mask) }, info: SQLPersistentHistory.batchTransactionInfo)
                if !updated.isEmpty { try announce(updated: updated) }
                return updated
            }
        }
    }

    /// Inserts rows in SQL, in one transaction, and returns their keys in the order of the rows: keys from
    /// `Z_PRIMARYKEY` as for a save, rows in multi-row `INSERT … VALUES (…), (…)` statements of up to 500 rows
    /// (fewer for wide tables, under PostgreSQL's 65,535 parameters). Nothing is inserted when any row fails.
    /// A request that resolves uniqueness conflicts, into a table with unique indexes, continues in
    /// `batchUpsert(_:plan:head:keys:rowParameters:)`.
    /// - Throws: 134030 for a read-only store or a server failure; 133021 when a uniqueness constraint fails;
    ///   134091 when the entity is not in this store.
    public func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey] {
        try checkWritable()
        let entity = request.entity
        guard let plan = plan(for: entity.entityNumber), plan.entity.name == entity.name,
              let valuesRange = plan.insertSQL.range(of: " VALUES ") else {
            throw CoreDataError.unsupported("batch inserts into entity \(entity.name ?? ""), which is not in this store")
        }
        guard !request.rows.isEmpty else { return [] }
        let head = String(plan.insertSQL[..<valuesRange.lowerBound])
        let primaryKeys = try allocatePrimaryKeys(for: plan.entity, count: request.rows.count)
        let keys = primaryKeys.map { ObjectKey(entityNumber: plan.entity.entityNumber, primaryKey: $0) }
        var rowParameters: [[String?]] = []
        rowParameters.reserveCapacity(keys.count)
        for (key, values) in zip(keys, request.rows) {
            rowParameters.append(try plan.insertParameters(for: StoreRow(key: key, version: 1, values: values)))
        }
        if request.conflictResolution != .fail, !schema.uniquenessColumns(of: plan.table).isEmpty {
            return try batchUpsert(request, plan: plan, head: head, keys: keys, rowParameters: rowParameters)
        }
        try run("batch insert") {
            try connection.transaction {
                _ = try insertInChunks(head: head, rows: rowParameters)
                try recordHistory(keys.map { ($0, .insert, nil) }, info: SQLPersistentHistory.batchTransactionInfo)
                try announce(inserted: keys)
            }
        }
        return keys
    }

    /// Runs `head VALUES (…), (…), …` + `suffix` over `rowParameters` (each row's insert parameters), in
    /// statements of up to 500 rows (fewer for wide tables, under PostgreSQL's 65,535 parameters), and returns
    /// their results in order. Called inside the caller's transaction.
    func insertInChunks(head: String, rows rowParameters: [[String?]], suffix: String = "") throws -> [PostgreSQLResult] {
        let perRow = rowParameters.first?.count ?? 1
        let chunk = max(1, min(500, 60_000 / perRow))
        var results: [PostgreSQLResult] = []
        var start = 0
        while start < rowParameters.count {
            let rows = rowParameters[start..<min(start + chunk, rowParameters.count)]
            var parameters: [String?] = []
            parameters.reserveCapacity(rows.count * perRow)
            var tuples: [String] = []
            for row in rows {
                tuples.append("(" + (1...perRow).map { "$\(parameters.count + $0)" }.joined(separator: ", ") + ")")
                parameters += row
            }
            results.append(try connection.query(head + " VALUES " + tuples.joined(separator: ", ") + suffix, parameters))
            start += rows.count
        }
        return results
    }

    /// Primary keys as one `bigint[]` parameter.
    static func keyArray(_ keys: [Int64]) -> String {
        "{" + keys.map(String.init).joined(separator: ",") + "}"
    }
}

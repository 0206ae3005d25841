import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore {
    /// Runs a batch insert whose uniqueness conflicts are resolved instead of failing
    /// (`StoreBatchInsertRequest.conflictResolution` `.updateExisting` or `.keepExisting`), in one transaction.
    ///
    /// First every row goes in as in a plain batch insert, with `ON CONFLICT DO NOTHING RETURNING Z_PK`: the
    /// returned keys are the rows no unique index refused. Under `.keepExisting` the refused rows are dropped.
    /// Under `.updateExisting` each refused row, in the request's order, then runs one `UPDATE` of the row of
    /// its entity that has its values for a constraint (PostgreSQL's `ON CONFLICT DO UPDATE` needs the one
    /// constraint named, and an entity may have several): its attributes from the row, `Z_OPT + 1`. When no
    /// such row exists any more (an earlier update changed it), the row is inserted after all; when the row
    /// that refused it is of another entity, 133021.
    /// - Throws: as `batchInsert(_:)`.
    func batchUpsert(_ request: StoreBatchInsertRequest, plan: PostgreSQLRowPlan, head: String, keys newKeys: [ObjectKey],
                     rowParameters: [[String?]]) throws -> [ObjectKey] {
        let update = ConstraintUpdate(plan: plan, constraints: schema.uniquenessColumns(of: plan.table))
        let singleInsert = plan.insertSQL + " ON CONFLICT DO NOTHING RETURNING Z_PK"
        return try run("batch insert") {
            try connection.transaction {
                var inserted = Set<Int64>()
                for result in try insertInChunks(head: head, rows: rowParameters, suffix: " ON CONFLICT DO NOTHING RETURNING Z_PK") {
                    for index in 0..<result.rowCount { if let key = result.int64(index, 0) { inserted.insert(key) } }
                }
                var keys: [ObjectKey] = []
                keys.reserveCapacity(newKeys.count)
                var history: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)] = []
                var recorded = Set<ObjectKey>()
                for (key, parameters) in zip(newKeys, rowParameters) {
                    var written = key
                    var kind = StoreHistoryChange.Kind.insert
                    if !inserted.contains(key.primaryKey) {
                        guard request.conflictResolution == .updateExisting else { continue }
                        let result = try connection.query(update.sql, update.parameters(from: parameters))
                        if result.rowCount > 0, let updated = result.int64(0, 0) {
                            written = ObjectKey(entityNumber: key.entityNumber, primaryKey: updated)
                            kind = .update
                        } else if try connection.query(singleInsert, parameters).rowCount == 0 {
                            throw CoreDataError.batchInsertConflictWithOtherEntity(plan.entity)
                        }
                    }
                    keys.append(written)
                    // A row inserted and then updated by a later row of the request is one insert in history.
                    if recorded.insert(written).inserted { history.append((written, kind, kind == .update ? update.columnMask : nil)) }
                }
                try recordHistory(history, info: SQLPersistentHistory.batchTransactionInfo)
                return keys
            }
        }
    }

    /// The `UPDATE` that writes a refused row of a batch insert into the row of its entity that has the same
    /// values for one of the table's uniqueness constraints, with its parameters taken from the row's insert
    /// parameters (`PostgreSQLRowPlan.insertParameters(for:)`).
    struct ConstraintUpdate {
        /// `UPDATE … SET <attributes>, Z_OPT = Z_OPT + 1 WHERE Z_ENT = … AND ((<constraint>) OR …) RETURNING Z_PK`.
        let sql: String
        /// For each parameter of `sql`, in order, its position among the insert's parameters (PostgreSQL cannot
        /// type a parameter the statement does not use, so only those used are sent).
        let positions: [Int]
        /// The history column mask of the attributes the update writes.
        let columnMask: Data

        init(plan: PostgreSQLRowPlan, constraints: [[String]]) {
            // The insert's columns in parameter order: Z_PK, Z_ENT, Z_OPT, then each field's.
            var insertColumns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var attributePositions: [Int] = []
            var attributeSlots: [Int] = []
            for field in plan.fields {
                var isAttribute = !plan.isDerivedSlot(field.slot)
                if case .toOne = field.kind { isAttribute = false }
                if isAttribute { attributeSlots.append(field.slot) }
                for column in field.columns {
                    if isAttribute { attributePositions.append(insertColumns.count) }
                    insertColumns.append(SQLSchema.quote(plan.table.columns[column].name))
                }
            }
            var positions: [Int] = []
            func parameter(_ position: Int) -> String {
                if let index = positions.firstIndex(of: position) { return "$\(index + 1)" }
                positions.append(position)
                return "$\(positions.count)"
            }
            let assignments = attributePositions.map { "\(insertColumns[$0]) = \(parameter($0))" } + ["Z_OPT = Z_OPT + 1"]
            // A constraint on a column the entity does not write (another entity's) cannot match its rows.
            let matches = constraints.compactMap { columns -> String? in
                let conditions = columns.compactMap { column in insertColumns.firstIndex(of: column).map { "\(column) = \(parameter($0))" } }
                return conditions.count == columns.count ? "(" + conditions.joined(separator: " AND ") + ")" : nil
            }
            let entity = parameter(1)
            sql = "UPDATE \(SQLSchema.quote(plan.table.name)) SET \(assignments.joined(separator: ", ")) WHERE Z_ENT = \(entity) AND (\(matches.isEmpty ? "FALSE" : matches.joined(separator: " OR "))) RETURNING Z_PK"
            self.positions = positions
            columnMask = SQLPersistentHistory.columnMask(attributeSlots)
        }

        /// The update's parameters, picked from one row's insert parameters.
        func parameters(from insertParameters: [String?]) -> [String?] { positions.map { insertParameters[$0] } }
    }
}

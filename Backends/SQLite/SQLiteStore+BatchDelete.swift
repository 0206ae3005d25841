import CSQLite
import CoreDataSQL
import CoreDataStoreKit

extension SQLiteStore {
    /// Deletes rows in SQL, in one transaction, and returns every deleted key.
    ///
    /// Cascade rules are followed and deny rules checked first (deny throws 1600 and deletes nothing). Then,
    /// set-based: foreign keys pointing at deleted rows are set to NULL (those rows' `Z_OPT` goes up),
    /// join-table rows of deleted objects are removed, and the rows are deleted. When nothing in the model
    /// refers to the entity's table and the whole request translates to SQL, it is one
    /// `DELETE … RETURNING`; a request for every row of the table (no predicate, every entity the table
    /// stores, no row of another `Z_ENT` in it) is a plain `DELETE`, which SQLite runs as a truncation.
    public func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] {
        try batchDelete(request, collectingKeys: true).keys
    }

    /// Deletes as `batchDelete(_:)` does; when nothing refers to the table and the request translates to SQL,
    /// the rows are deleted without reading their keys.
    public func batchDeleteCount(_ request: StoreBatchDeleteRequest) throws -> Int {
        try batchDelete(request, collectingKeys: false).count
    }

    /// Deletes the rows of `request`; the keys are returned when `collectingKeys`, or when the general path
    /// needs them anyway. The count is the number of rows deleted in either case.
    private func batchDelete(_ request: StoreBatchDeleteRequest, collectingKeys: Bool) throws -> (keys: [ObjectKey], count: Int) {
        try checkWritable()
        return try connection.transaction {
            // History needs every deleted key.
            let result = try deleteRows(request, collectingKeys: collectingKeys || recordsHistory)
            if recordsHistory { try recordHistory(result.keys.map { ($0, .delete, nil) }, info: SQLPersistentHistory.batchTransactionInfo) }
            return result
        }
    }

    /// The body of a batch delete, inside its transaction.
    private func deleteRows(_ request: StoreBatchDeleteRequest, collectingKeys: Bool) throws -> (keys: [ObjectKey], count: Int) {
        do {
            var keys: [ObjectKey]
            switch request {
            case .matching(let request):
                let (compiled, plan) = try compile(request)
                if compiled.isComplete, request.fetchLimit == 0, request.fetchOffset == 0, !schema.isReferenced(plan.table) {
                    let table = q(plan.table.name)
                    if try deletesEveryRow(request, compiled: compiled, plan: plan) {
                        // Every row: read the keys if wanted, then a plain DELETE, which SQLite runs as a truncation
                        // (any WHERE, even the Z_ENT test every compiled fetch has, makes it delete row by row).
                        let keys = !collectingKeys ? [] : try connection.query("SELECT Z_PK, Z_ENT FROM \(table)") {
                            self.storedKey(entity: $0.int64(at: 1), primaryKey: $0.int64(at: 0))
                        }
                        let count = try connection.run("DELETE FROM \(table)")
                        return (keys, collectingKeys ? keys.count : count)
                    }
                    let sql = compiled.from == "\(table) t0"
                        ? "DELETE FROM \(table) AS t0\(compiled.whereSQL)"
                        : "DELETE FROM \(table) WHERE Z_PK IN (SELECT t0.Z_PK FROM \(compiled.from)\(compiled.whereSQL))"
                    guard collectingKeys else { return ([], try connection.run(sql, compiled.bindings, cached: true)) }
                    let keys = try connection.query(sql + " RETURNING Z_PK, Z_ENT", compiled.bindings, cached: true) {
                        self.storedKey(entity: $0.int64(at: 1), primaryKey: $0.int64(at: 0))
                    }
                    return (keys, keys.count)
                }
                var keysFetch = request
                keysFetch.result = .keys
                guard case .keys(let found) = try fetch(keysFetch) else { return ([], 0) }
                keys = found
            case .keys(let given):
                keys = try given.filter { try rowExists($0) }
            }
            let doomed = try batchDeletion(of: keys)
            guard !doomed.isEmpty else { return ([], 0) }
            try connection.execute("CREATE TEMP TABLE IF NOT EXISTS Z_BATCHDELETE (Z_ROOT INTEGER, Z_PK INTEGER, PRIMARY KEY (Z_ROOT, Z_PK))")
            try connection.run("DELETE FROM temp.Z_BATCHDELETE")
            for key in doomed {
                guard let root = model.entity(withNumber: key.entityNumber)?.rootEntity else { continue }
                try connection.run("INSERT OR IGNORE INTO temp.Z_BATCHDELETE (Z_ROOT, Z_PK) VALUES (?1, ?2)",
                                   [.integer(Int64(root.entityNumber)), .integer(key.primaryKey)])
            }
            let doomedOf = "(SELECT Z_PK FROM temp.Z_BATCHDELETE WHERE Z_ROOT = ?1)"
            for table in schema.orderedTables {
                let root: [SQLValue] = [.integer(Int64(table.root.entityNumber))]
                // Nullify every to-one that points into this table.
                for source in schema.orderedTables {
                    for entity in SQLSchema.hierarchy(of: source.root) {
                        for case let relationship as NSRelationshipDescription in entity.declaredProperties
                        where !relationship.isToMany && !relationship.isTransient && relationship.destinationEntity?.rootEntity === table.root {
                            guard let index = source.columnByProperty[ObjectIdentifier(relationship)] else { continue }
                            let column = q(source.columns[index].name)
                            var assignments = ["\(column) = NULL", "Z_OPT = Z_OPT + 1"]
                            if let entityIndex = source.entityColumnByRelationship[ObjectIdentifier(relationship)] {
                                assignments.append("\(q(source.columns[entityIndex].name)) = NULL")
                            }
                            try connection.run("UPDATE \(q(source.name)) SET \(assignments.joined(separator: ", ")) WHERE \(column) IN \(doomedOf)", root)
                        }
                    }
                }
                for join in schema.joinTables {
                    if join.relationship.entity?.rootEntity === table.root {
                        try connection.run("DELETE FROM \(q(join.name)) WHERE \(q(join.sourceColumn)) IN \(doomedOf)", root)
                    }
                    if join.relationship.destinationEntity?.rootEntity === table.root {
                        try connection.run("DELETE FROM \(q(join.name)) WHERE \(q(join.destinationColumn)) IN \(doomedOf)", root)
                    }
                }
                try connection.run("DELETE FROM \(q(table.name)) WHERE Z_PK IN \(doomedOf)", root)
            }
            try connection.run("DELETE FROM temp.Z_BATCHDELETE")
            return (doomed, doomed.count)
        }
    }

    /// Whether `request` selects every row of its entity's table: no predicate, every entity the table stores,
    /// and no row of another `Z_ENT` in the table (rows of no entity, in a damaged file, which no fetch selects
    /// and a batch delete must leave), checked with one pass over the table's `Z_ENT` column.
    private func deletesEveryRow(_ request: StoreFetchRequest, compiled: SQLCompiledFetch, plan: SQLiteRowPlan) throws -> Bool {
        guard request.predicate == nil, compiled.from == "\(q(plan.table.name)) t0" else { return false }
        let requested = request.includesSubentities ? schema.storedNumbers(ofHierarchy: request.entity) : [schema.storedNumber(of: request.entity)]
        let stored = schema.storedNumbers(ofHierarchy: plan.table.root)
        guard Set(requested) == Set(stored) else { return false }
        let list = stored.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let others = try connection.query("SELECT 1 FROM \(q(plan.table.name)) WHERE Z_ENT IS NULL OR Z_ENT NOT IN (\(list)) LIMIT 1",
                                          stored.map { .integer($0) }, cached: true) { _ in true }
        return others.isEmpty
    }

    private func rowExists(_ key: ObjectKey) throws -> Bool {
        guard let plan = plan(for: key.entityNumber) else { return false }
        return try !connection.query("SELECT 1 FROM \(q(plan.table.name)) WHERE Z_PK = ?1 AND Z_ENT = ?2",
                                     [.integer(key.primaryKey), .integer(plan.storedEntityNumber)]) { _ in true }.isEmpty
    }
}

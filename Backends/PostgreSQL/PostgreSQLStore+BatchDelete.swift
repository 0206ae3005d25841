import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore {
    /// Deletes rows in SQL, in one transaction, and returns every deleted key.
    ///
    /// The rows the request selects are found first (with their cascades; a deny rule broken by a row outside
    /// the set throws 1600 and deletes nothing). Then, set-based, with the keys as one array parameter per
    /// table: foreign keys pointing at deleted rows are set to NULL (those rows' `Z_OPT` goes up), join-table
    /// rows of deleted objects are removed, and the rows are deleted. A request for an entity no relationship
    /// touches, that translates wholly to SQL without limit or offset, is one `DELETE … RETURNING` instead. The
    /// other servers hear of it (`announce`), and a deadlock with another server runs the transaction again.
    /// - Throws: 134030 for a read-only store or a server failure; 1600 for a deny rule.
    public func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] {
        try batchDelete(request, collectingKeys: true).keys
    }

    /// Deletes as `batchDelete(_:)` does. When nothing in the model refers to the entity's table, no history is
    /// recorded and the whole request translates to SQL, the rows are deleted by one `DELETE … WHERE` of the
    /// request's own condition, and only counted.
    public func batchDeleteCount(_ request: StoreBatchDeleteRequest) throws -> Int {
        try batchDelete(request, collectingKeys: false).count
    }

    /// Deletes the rows of `request`, running the transaction again after a deadlock; the keys are returned when
    /// `collectingKeys`, or when the general path needs them anyway. The count is the number of rows deleted.
    private func batchDelete(_ request: StoreBatchDeleteRequest, collectingKeys: Bool) throws -> (keys: [ObjectKey], count: Int) {
        try checkWritable()
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try run("batch delete") { try connection.transaction { try deleteRows(request, collectingKeys: collectingKeys) } }
            } catch let error as NSError where attempt < 5 && (error.userInfo[NSUnderlyingErrorKey] as? PostgreSQLError)?.sqlState == "40P01" {
                continue
            }
        }
    }

    /// The body of a batch delete, inside its transaction.
    private func deleteRows(_ request: StoreBatchDeleteRequest, collectingKeys: Bool) throws -> (keys: [ObjectKey], count: Int) {
        var keys: [ObjectKey]
        switch request {
        case .matching(let request):
            let wantsKeys = collectingKeys || recordsHistory
            if let deleted = try deleteInOneStatement(request, collectingKeys: wantsKeys) {
                try recordHistory(deleted.keys.map { ($0, .delete, nil) }, info: SQLPersistentHistory.batchTransactionInfo)
                if deleted.count > 0 { try announce(deleted: deleted.keys, complete: wantsKeys) }
                return deleted
            }
            var keysFetch = request
            keysFetch.result = .keys
            guard case .keys(let found) = try fetch(keysFetch) else { return ([], 0) }
            keys = found
        case .keys(let given):
            keys = try existing(given)
        }
        let doomed = try batchDeletion(of: keys)
        guard !doomed.isEmpty else { return ([], 0) }
        var byRoot: [ObjectIdentifier: [Int64]] = [:]
        var nullified: [ObjectKey] = []
        var removedJoinRows = false
        for key in doomed {
            guard let root = model.entity(withNumber: key.entityNumber)?.rootEntity else { continue }
            byRoot[ObjectIdentifier(root), default: []].append(key.primaryKey)
        }
        for table in schema.orderedTables {
            guard let primaryKeys = byRoot[ObjectIdentifier(table.root)] else { continue }
            let array = Self.keyArray(primaryKeys.sorted())
            // Nullify every to-one that points into this table.
            for source in schema.orderedTables {
                for entity in SQLSchema.hierarchy(of: source.root) {
                    for case let relationship as NSRelationshipDescription in entity.declaredProperties
                    where !relationship.isToMany && !relationship.isTransient && relationship.destinationEntity?.rootEntity === table.root {
                        guard let index = source.columnByProperty[ObjectIdentifier(relationship)] else { continue }
                        let column = SQLSchema.quote(source.columns[index].name)
                        var assignments = ["\(column) = NULL", "Z_OPT = Z_OPT + 1"]
                        if let entityIndex = source.entityColumnByRelationship[ObjectIdentifier(relationship)] {
                            assignments.append("\(SQLSchema.quote(source.columns[entityIndex].name)) = NULL")
                        }
                        nullified += Self.keys(of: try connection.query(
                            "UPDATE \(SQLSchema.quote(source.name)) SET \(assignments.joined(separator: ", ")) WHERE \(column) = ANY($1::bigint[]) RETURNING Z_PK, Z_ENT", [array]))
                    }
                }
            }
            for join in schema.joinTables {
                if join.relationship.entity?.rootEntity === table.root {
                    let result = try connection.query("DELETE FROM \(SQLSchema.quote(join.name)) WHERE \(SQLSchema.quote(join.sourceColumn)) = ANY($1::bigint[])", [array])
                    removedJoinRows = removedJoinRows || result.affectedRows > 0
                }
                if join.relationship.destinationEntity?.rootEntity === table.root {
                    let result = try connection.query("DELETE FROM \(SQLSchema.quote(join.name)) WHERE \(SQLSchema.quote(join.destinationColumn)) = ANY($1::bigint[])", [array])
                    removedJoinRows = removedJoinRows || result.affectedRows > 0
                }
            }
            try connection.query("DELETE FROM \(SQLSchema.quote(table.name)) WHERE Z_PK = ANY($1::bigint[])", [array])
        }
        try recordHistory(doomed.map { ($0, .delete, nil) }, info: SQLPersistentHistory.batchTransactionInfo)
        // Rows whose to-one was cleared changed too; the other ends of removed join rows are not known.
        let deletedSet = Set(doomed)
        try announce(updated: nullified.filter { !deletedSet.contains($0) }, deleted: doomed, complete: !removedJoinRows)
        return (doomed, doomed.count)
    }

    /// The rows of `request` deleted by one statement with the request's own condition (`RETURNING` their keys
    /// when `collectingKeys`), or nil when that would not be exact: the request has a limit or an offset, part of
    /// it is evaluated in memory, or a relationship leads into or out of the table (nullifies, join rows,
    /// cascades and deny rules need the keys first).
    private func deleteInOneStatement(_ request: StoreFetchRequest, collectingKeys: Bool) throws -> (keys: [ObjectKey], count: Int)? {
        let compiled = try SQLCompiledFetch(request, schema: schema)
        guard compiled.isComplete, request.fetchLimit == 0, request.fetchOffset == 0,
              let plan = plan(for: request.entity.entityNumber), !schema.isReferenced(plan.table) else { return nil }
        let table = SQLSchema.quote(plan.table.name)
        let parameters = compiled.bindings.map(Self.parameterText)
        let sql = compiled.from == "\(table) t0"
            ? "DELETE FROM \(table) AS t0\(compiled.whereSQL)"
            : "DELETE FROM \(table) WHERE Z_PK IN (SELECT t0.Z_PK FROM \(compiled.from)\(compiled.whereSQL))"
        guard collectingKeys else { return ([], try connection.query(sql, parameters).affectedRows) }
        let keys = Self.keys(of: try connection.query(sql + " RETURNING Z_PK, Z_ENT", parameters))
        return (keys, keys.count)
    }

    /// The keys whose rows exist (with the same entity).
    private func existing(_ keys: [ObjectKey]) throws -> [ObjectKey] {
        var found = Set<ObjectKey>()
        for row in try rows(for: keys) { found.insert(row.key) }
        return keys.filter { found.contains($0) }
    }
}

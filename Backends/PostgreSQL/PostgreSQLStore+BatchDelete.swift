import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore {
    /// Deletes rows in SQL, in one transaction, and returns every deleted key.
    ///
    /// The rows the request selects are found first (with their cascades; a deny rule broken by a row outside
    /// the set throws 1600 and deletes nothing). Then, set-based, with the keys as one array parameter per
    /// table: foreign keys pointing at deleted rows are set to NULL (those rows' `Z_OPT` goes up), join-table
    /// rows of deleted objects are removed, and the rows are deleted. A deadlock with another server runs the
    /// transaction again.
    /// - Throws: 134030 for a read-only store or a server failure; 1600 for a deny rule.
    public func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] {
        try checkWritable()
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try run("batch delete") { try connection.transaction { try deleteRows(request) } }
            } catch let error as NSError where attempt < 5 && (error.userInfo[NSUnderlyingErrorKey] as? PostgreSQLError)?.sqlState == "40P01" {
                continue
            }
        }
    }

    /// The body of a batch delete, inside its transaction.
    private func deleteRows(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] {
        var keys: [ObjectKey]
        switch request {
        case .matching(let request):
            var keysFetch = request
            keysFetch.result = .keys
            guard case .keys(let found) = try fetch(keysFetch) else { return [] }
            keys = found
        case .keys(let given):
            keys = try existing(given)
        }
        let doomed = try batchDeletion(of: keys)
        guard !doomed.isEmpty else { return [] }
        var byRoot: [ObjectIdentifier: [Int64]] = [:]
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
                        try connection.query("UPDATE \(SQLSchema.quote(source.name)) SET \(assignments.joined(separator: ", ")) WHERE \(column) = ANY($1::bigint[])", [array])
                    }
                }
            }
            for join in schema.joinTables {
                if join.relationship.entity?.rootEntity === table.root {
                    try connection.query("DELETE FROM \(SQLSchema.quote(join.name)) WHERE \(SQLSchema.quote(join.sourceColumn)) = ANY($1::bigint[])", [array])
                }
                if join.relationship.destinationEntity?.rootEntity === table.root {
                    try connection.query("DELETE FROM \(SQLSchema.quote(join.name)) WHERE \(SQLSchema.quote(join.destinationColumn)) = ANY($1::bigint[])", [array])
                }
            }
            try connection.query("DELETE FROM \(SQLSchema.quote(table.name)) WHERE Z_PK = ANY($1::bigint[])", [array])
        }
        try recordHistory(doomed.map { ($0, .delete, nil) }, info: SQLPersistentHistory.batchTransactionInfo)
        return doomed
    }

    /// The keys whose rows exist (with the same entity).
    private func existing(_ keys: [ObjectKey]) throws -> [ObjectKey] {
        var found = Set<ObjectKey>()
        for row in try rows(for: keys) { found.insert(row.key) }
        return keys.filter { found.contains($0) }
    }
}

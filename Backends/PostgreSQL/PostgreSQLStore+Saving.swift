import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore {
    /// Writes a change set in one transaction.
    ///
    /// Every update and deletion with an expected version is checked against `Z_OPT` in the statement that
    /// writes it; a concurrent transaction holding the row makes it wait and then compare with the committed
    /// version. An update whose row is gone conflicts even without a version. When anything conflicts, the
    /// transaction is rolled back and `StoreVersionConflict` lists every stale row. Rows are locked in key
    /// order, and a deadlock or serialization failure the server reports anyway runs the whole transaction
    /// again (nothing of the failed run was committed).
    /// - Throws: `StoreVersionConflict`; 134030 for a read-only store or a server failure; 133021 when a
    ///   uniqueness constraint fails.
    public func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try checkWritable()
        guard !changes.isEmpty else { return StoreSaveResult() }
        var attempt = 0
        while true {
            attempt += 1
            do {
                let (result, newMetadata) = try run("save") { try connection.transaction { try write(changes) } }
                if let newMetadata { metadata = newMetadata }
                return result
            } catch let error as NSError where attempt < 5 && Self.isTransient(error) {
                continue
            }
        }
    }

    /// Whether a failure was a deadlock or serialization failure, which a new run of the transaction avoids.
    private static func isTransient(_ error: NSError) -> Bool {
        guard let underlying = error.userInfo[NSUnderlyingErrorKey] as? PostgreSQLError else { return false }
        return underlying.sqlState == "40P01" || underlying.sqlState == "40001"
    }

    /// The body of a save, inside its transaction: the result, and the new metadata when the save wrote some.
    private func write(_ changes: StoreChangeSet) throws -> (StoreSaveResult, [String: Any]?) {
        var conflicts: [StoreVersionConflict.Conflict] = []
        let computesDerivedValues = !derivedTriggers.triggers.isEmpty
        if computesDerivedValues { try beginRecordingDerivedChanges() }
        // Deletions first, then the constrained values that updates change are cleared, so values can move
        // between rows within one save; a real duplicate still fails when the new values are written.
        for deletion in changes.deleted.sorted(by: { ($0.key.entityNumber, $0.key.primaryKey) < ($1.key.entityNumber, $1.key.primaryKey) }) {
            guard let plan = plan(for: deletion.key.entityNumber) else { continue }
            var parameters = [String(deletion.key.primaryKey)]
            var sql = "DELETE FROM \(SQLSchema.quote(plan.table.name)) WHERE Z_PK = $1"
            if let expected = deletion.expectedVersion {
                sql += " AND Z_OPT = $2"
                parameters.append(String(expected))
            }
            if try connection.query(sql, parameters).affectedRows == 0, let expected = deletion.expectedVersion,
               let current = try rows(for: [deletion.key]).first {
                conflicts.append(.init(key: deletion.key, expectedVersion: expected, current: current))
                continue
            }
            try deleteJoinRows(of: deletion.key, entity: plan.entity)
        }
        let updates = changes.updated.sorted { ($0.row.key.entityNumber, $0.row.key.primaryKey) < ($1.row.key.entityNumber, $1.row.key.primaryKey) }
        for stale in try clearConstrainedValues(of: updates) {
            conflicts.append(.init(key: stale.row.key, expectedVersion: stale.expectedVersion ?? 0, current: try rows(for: [stale.row.key]).first))
        }
        guard conflicts.isEmpty else { throw StoreVersionConflict(conflicts: conflicts) }
        var versions: [ObjectKey: Int64] = [:]
        for var update in updates {
            guard let plan = plan(for: update.row.key.entityNumber) else { continue }
            // Derived values are the triggers' to write: an object's copy may be stale.
            if plan.hasDerivedAttributes { update.changedSlots = update.changedSlots.filter { !plan.isDerivedSlot($0) } }
            if let version = try apply(update, plan: plan) {
                if update.expectedVersion == nil { versions[update.row.key] = version }
            } else {
                conflicts.append(.init(key: update.row.key, expectedVersion: update.expectedVersion ?? 0, current: try rows(for: [update.row.key]).first))
            }
        }
        guard conflicts.isEmpty else { throw StoreVersionConflict(conflicts: conflicts) }
        for row in changes.inserted {
            guard let plan = plan(for: row.key.entityNumber) else {
                throw CoreDataError.saveFailed("entity number \(row.key.entityNumber) is not in this store")
            }
            try connection.query(plan.insertSQL, try plan.insertParameters(for: row))
        }
        for change in changes.toManyChanges { try applyToMany(change) }
        let derivedValues = computesDerivedValues ? try readDerivedChanges() : [:]
        var newMetadata: [String: Any]?
        if let replacement = changes.metadata {
            var metadata = ModelCompatibility.keepingModelKeys(of: self.metadata, in: replacement)
            metadata[NSStoreTypeKey] = Self.storeType
            metadata[NSStoreUUIDKey] = self.metadata[NSStoreUUIDKey]
            try writeMetadata(metadata)
            newMetadata = metadata
        }
        try recordHistory(of: changes)
        try announce(changes)
        return (StoreSaveResult(versions: versions, derivedValues: derivedValues), newMetadata)
    }

    /// Writes the changed slots of one row and raises `Z_OPT`; the new version, or nil when the row is gone
    /// or (with an expected version) was changed by someone else.
    private func apply(_ update: StoreRowUpdate, plan: PostgreSQLRowPlan) throws -> Int64? {
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var parameters: [String?] = []
        for slot in Set(update.changedSlots).sorted() {
            guard let field = plan.fieldBySlot[slot] else { continue }
            let columns = field.columns.map { plan.table.columns[$0].name }
            let values = try plan.parameters(for: field, value: slot < update.row.values.count ? update.row.values[slot] : nil)
            for (column, value) in zip(columns, values) {
                parameters.append(value)
                assignments.append("\(SQLSchema.quote(column)) = $\(parameters.count)")
            }
        }
        parameters.append(String(update.row.key.primaryKey))
        var sql = "UPDATE \(SQLSchema.quote(plan.table.name)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = $\(parameters.count)"
        if let expected = update.expectedVersion {
            guard expected < StoreNumberLimits.largestStoredNumber else {
                throw CoreDataError.corruptStore(url, type: Self.storeType, reason: "object \(update.row.key) has version \(expected)")
            }
            parameters.append(String(expected))
            sql += " AND Z_OPT = $\(parameters.count)"
            return try connection.query(sql, parameters).affectedRows == 1 ? expected + 1 : nil
        }
        let result = try connection.query(sql + " RETURNING Z_OPT", parameters)
        guard result.rowCount == 1 else { return nil }
        guard let version = result.int64(0, 0), version <= StoreNumberLimits.largestStoredNumber else {
            throw CoreDataError.corruptStore(url, type: Self.storeType, reason: "object \(update.row.key) has a damaged Z_OPT")
        }
        return version
    }

    /// Sets to NULL the columns of uniqueness constraints that `updates` change (NULLs never collide in a
    /// unique index); the updates then write the new values. A row whose version does not match (or that is
    /// gone) is left alone and returned: it is a conflict.
    private func clearConstrainedValues(of updates: [StoreRowUpdate]) throws -> [StoreRowUpdate] {
        var stale: [StoreRowUpdate] = []
        for update in updates {
            guard let plan = plan(for: update.row.key.entityNumber), plan.entity.layout.hasUniquenessConstraints else { continue }
            let constrained = SQLSchema.constrainedSlots(of: plan.entity)
            let columns = update.changedSlots.filter(constrained.contains).flatMap { slot in
                (plan.fieldBySlot[slot]?.columns ?? []).map { SQLSchema.quote(plan.table.columns[$0].name) }
            }
            guard !columns.isEmpty else { continue }
            var sql = "UPDATE \(SQLSchema.quote(plan.table.name)) SET \(columns.map { "\($0) = NULL" }.joined(separator: ", ")) WHERE Z_PK = $1"
            var parameters = [String(update.row.key.primaryKey)]
            if let expected = update.expectedVersion {
                sql += " AND Z_OPT = $2"
                parameters.append(String(expected))
            }
            if try connection.query(sql, parameters).affectedRows == 0 { stale.append(update) }
        }
        return stale
    }

    /// Removes a deleted object from every join table it appears in.
    func deleteJoinRows(of key: ObjectKey, entity: NSEntityDescription) throws {
        for (table, column) in schema.joinColumns(holdingKeysOf: entity) {
            try connection.query("DELETE FROM \(table) WHERE \(column) = $1", [String(key.primaryKey)])
        }
    }

    /// Records a to-many's new destinations: join-table rows (added, removed, reordered), or for an ordered
    /// to-many kept by the inverse's foreign key, the `Z_FOK_` order column (2048, 3072, … as Apple's).
    private func applyToMany(_ change: ToManyChange) throws {
        guard let storage = schema.storage(of: change.relationship) else { return }
        switch storage {
        case .inverseForeignKey(let inverse):
            guard change.relationship.isOrdered, let destination = change.relationship.destinationEntity,
                  let table = schema.table(for: destination),
                  let index = table.orderColumnByRelationship[ObjectIdentifier(inverse)] else { return }
            let sql = "UPDATE \(SQLSchema.quote(table.name)) SET \(SQLSchema.quote(table.columns[index].name)) = $1 WHERE Z_PK = $2"
            for (position, key) in change.destinations.enumerated() {
                try connection.query(sql, [String(Int64(position + 2) * 1024), String(key.primaryKey)])
            }
        case .joinTable(let join, let ownerColumn, let destinationColumn, let orderColumn):
            let owner = String(change.owner.primaryKey)
            let table = SQLSchema.quote(join.name), ownerSQL = SQLSchema.quote(ownerColumn), destinationSQL = SQLSchema.quote(destinationColumn)
            let found = try connection.query("SELECT \(destinationSQL) FROM \(table) WHERE \(ownerSQL) = $1", [owner])
            let current = Set((0..<found.rowCount).compactMap { found.int64($0, 0) })
            let wanted = change.destinations.map(\.primaryKey)
            for removed in current.subtracting(wanted) {
                try connection.query("DELETE FROM \(table) WHERE \(ownerSQL) = $1 AND \(destinationSQL) = $2", [owner, String(removed)])
            }
            for added in wanted where !current.contains(added) {
                try connection.query("INSERT INTO \(table) (\(ownerSQL), \(destinationSQL)) VALUES ($1, $2) ON CONFLICT DO NOTHING", [owner, String(added)])
            }
            if let orderColumn {
                let sql = "UPDATE \(table) SET \(SQLSchema.quote(orderColumn)) = $1 WHERE \(ownerSQL) = $2 AND \(destinationSQL) = $3"
                for (position, key) in wanted.enumerated() {
                    try connection.query(sql, [String(Int64(position + 2) * 1024), owner, String(key)])
                }
            }
        }
    }
}

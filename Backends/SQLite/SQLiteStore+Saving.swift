import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// The shape of an UPDATE statement: which entity, which slots, whether `Z_OPT` is checked.
struct UpdateShape: Hashable {
    var entity: Int32
    var slots: [Int]
    var checksVersion: Bool
}

extension SQLiteStore {
    /// Writes a change set in one `BEGIN IMMEDIATE` transaction.
    ///
    /// Every update and deletion with an expected version is checked against `Z_OPT` in the same statement
    /// that writes it, and an update whose row is gone conflicts even without one; when any conflicts, the
    /// transaction is rolled back and `StoreVersionConflict` lists every stale row. Only the changed slots
    /// are written. Inserted rows get `Z_OPT` 1, updated rows one more than they had; only the versions of
    /// unchecked updates are reported.
    ///
    /// The phases, in order: deletions, then the constrained values that updates change are cleared (values
    /// can move between rows within one save, a swap or the value of a deleted object, as in the atomic
    /// stores; a real duplicate still fails when the new values are written), updates, inserts, to-many
    /// changes, the derived values the triggers wrote, history, metadata; then the commit, or the rollback
    /// when any phase throws.
    /// - Throws: `StoreVersionConflict`; 134030 for a read-only store; 133021 when a uniqueness constraint
    ///   fails; 259 when a stored `Z_OPT` is damaged; 134180 for other SQLite errors.
    public func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try checkWritable()
        guard !changes.isEmpty else { return StoreSaveResult() }
        let (result, newMetadata) = try connection.transaction {
            connection.derivedChanges.removeAll()
            let deletionConflicts = try applyDeletions(changes.deleted)
            // A stale row found while clearing is a conflict now: writing the other rows' values first could
            // only fail on the unique index instead of reporting it.
            let clearingConflicts = try clearConstrainedValues(of: changes.updated)
            try throwIfAny(deletionConflicts + clearingConflicts)
            let versions = try applyUpdates(changes.updated)
            try insertRows(changes.inserted)
            for change in changes.toManyChanges { try applyToMany(change) }
            let derivedValues = try readDerivedChanges()
            try recordHistory(of: changes)
            let newMetadata = try writeReplacementMetadata(changes.metadata)
            return (StoreSaveResult(versions: versions, derivedValues: derivedValues), newMetadata)
        }
        if let newMetadata { metadata = newMetadata }
        return result
    }

    /// Throws `StoreVersionConflict` listing `conflicts` when there are any.
    private func throwIfAny(_ conflicts: [StoreVersionConflict.Conflict]) throws {
        guard conflicts.isEmpty else { throw StoreVersionConflict(conflicts: conflicts) }
    }

    /// The conflict of a row that is stale or gone, with the row as it is now (nil when gone).
    private func conflict(_ key: ObjectKey, expectedVersion: Int64?) throws -> StoreVersionConflict.Conflict {
        .init(key: key, expectedVersion: expectedVersion ?? 0, current: try rows(for: [key]).first)
    }

    /// Deletes the rows (with their join-table rows); a row whose `Z_OPT` is not the expected version is left
    /// and returned as a conflict. A row already gone is no conflict: it is deleted either way.
    private func applyDeletions(_ deletions: [StoreRowDeletion]) throws -> [StoreVersionConflict.Conflict] {
        var conflicts: [StoreVersionConflict.Conflict] = []
        for deletion in deletions {
            guard let plan = plan(for: deletion.key.entityNumber) else { continue }
            var bindings: [SQLValue] = [.integer(deletion.key.primaryKey)]
            var sql = "DELETE FROM \(q(plan.table.name)) WHERE Z_PK = ?1"
            if let expected = deletion.expectedVersion {
                sql += " AND Z_OPT = ?2"
                bindings.append(.integer(expected))
            }
            if try connection.run(sql, bindings) == 0, let expected = deletion.expectedVersion,
               let current = try rows(for: [deletion.key]).first {
                conflicts.append(.init(key: deletion.key, expectedVersion: expected, current: current))
                continue
            }
            try deleteJoinRows(of: deletion.key, entity: plan.entity)
        }
        return conflicts
    }

    /// Writes the updates' changed slots (never a derived attribute's: the triggers write those, and an
    /// object's copy may be stale), and returns the new versions of the unchecked updates.
    /// - Throws: `StoreVersionConflict` listing every update whose row is stale or gone (a row that is gone
    ///   conflicts even without a version check).
    private func applyUpdates(_ updates: [StoreRowUpdate]) throws -> [ObjectKey: Int64] {
        var versions: [ObjectKey: Int64] = [:]
        var conflicts: [StoreVersionConflict.Conflict] = []
        var lastUpdate: PreparedUpdate?
        for var update in updates {
            guard let plan = plan(for: update.row.key.entityNumber) else { continue }
            if plan.hasDerivedAttributes { update.changedSlots = update.changedSlots.filter { !plan.isDerivedSlot($0) } }
            if let version = try applyUpdate(update, plan: plan, last: &lastUpdate) {
                if update.expectedVersion == nil { versions[update.row.key] = version }
            } else {
                conflicts.append(try conflict(update.row.key, expectedVersion: update.expectedVersion))
            }
        }
        try throwIfAny(conflicts)
        return versions
    }

    /// Inserts the rows with `Z_OPT` 1, leaving derived attributes to the triggers. Inserts mostly come in runs
    /// of one entity, which reuse its plan and statement without lookups.
    /// - Throws: 133021 when a uniqueness constraint fails; 134030 for a row of an entity not in this store.
    private func insertRows(_ rows: [StoreRow]) throws {
        var lastInsert: (number: Int32, plan: SQLiteRowPlan, statement: SQLiteStatement)?
        for row in rows {
            let plan: SQLiteRowPlan, statement: SQLiteStatement
            if let lastInsert, lastInsert.number == row.key.entityNumber {
                (plan, statement) = (lastInsert.plan, lastInsert.statement)
            } else {
                guard let found = self.plan(for: row.key.entityNumber) else {
                    throw CoreDataError.saveFailed("entity number \(row.key.entityNumber) is not in this store")
                }
                (plan, statement) = (found, try connection.statement(found.insertSQL))
                lastInsert = (row.key.entityNumber, plan, statement)
            }
            try insertRow(row, plan: plan, statement: statement)
        }
    }

    /// Binds one row's key, entity, version and values to the plan's INSERT statement and runs it.
    private func insertRow(_ row: StoreRow, plan: SQLiteRowPlan, statement: SQLiteStatement) throws {
        defer { statement.reset() }
        statement.bind(row.key.primaryKey, at: 1)
        statement.bind(plan.storedEntityNumber, at: 2)
        statement.bind(1, at: 3)
        try row.values.withUnsafeBufferPointer { values in
            var index: Int32 = 4
            for binder in plan.binders {
                index = try plan.bind(binder, from: values, omitted: plan.isDerivedSlot(binder.slot), to: statement, at: index)
            }
        }
        do {
            while try statement.step() {}
        } catch let error as NSError {
            throw Self.constraintError(error)
        }
    }

    /// Writes the save's replacement metadata (keeping the model's keys, the store type and UUID), and returns
    /// it for the store to adopt once the transaction commits; nil when the save replaces none.
    private func writeReplacementMetadata(_ replacement: [String: Any]?) throws -> [String: Any]? {
        guard let replacement else { return nil }
        var metadata = ModelCompatibility.keepingModelKeys(of: self.metadata, in: replacement)
        metadata[NSStoreTypeKey] = NSSQLiteStoreType
        metadata[NSStoreUUIDKey] = self.metadata[NSStoreUUIDKey]
        try writeMetadata(metadata)
        return metadata
    }

    /// The derived values the triggers reported since `derivedChanges` was emptied, read back from their rows
    /// (inside the save's transaction, so they are the values it commits), by object and attribute name.
    private func readDerivedChanges() throws -> [ObjectKey: [String: Any?]] {
        let reported = connection.derivedChanges.changes
        connection.derivedChanges.removeAll()
        guard !reported.isEmpty else { return [:] }
        var names: [ObjectKey: [String]] = [:]
        for change in reported {
            let key = ObjectKey(entityNumber: schema.modelNumber(forStored: change.storedEntity), primaryKey: change.primaryKey)
            names[key, default: []].append(change.attribute)
        }
        var values: [ObjectKey: [String: Any?]] = [:]
        for row in try rows(for: Array(names.keys)) {
            guard let layout = model.entity(withNumber: row.key.entityNumber)?.layout else { continue }
            for name in names[row.key] ?? [] {
                guard let slot = layout.slotByName[name], slot < row.values.count else { continue }
                values[row.key, default: [:]][name] = .some(row.values[slot])
            }
        }
        return values
    }

    /// Sets to NULL, in their rows, the columns of uniqueness constraints that `updates` change (NULLs never
    /// collide in a unique index); the updates then write the new values. A row whose version does not match
    /// (or that is gone) is left alone and returned as a conflict. Costs nothing when no entity of the store
    /// has uniqueness constraints.
    private func clearConstrainedValues(of updates: [StoreRowUpdate]) throws -> [StoreVersionConflict.Conflict] {
        guard hasUniquenessConstraints else { return [] }
        var conflicts: [StoreVersionConflict.Conflict] = []
        for update in updates {
            guard let plan = plan(for: update.row.key.entityNumber), plan.entity.layout.hasUniquenessConstraints else { continue }
            let constrained = SQLSchema.constrainedSlots(of: plan.entity)
            let columns = update.changedSlots.filter(constrained.contains).flatMap { slot in
                (plan.fieldBySlot[slot]?.columns ?? []).map { q(plan.table.columns[$0].name) }
            }
            guard !columns.isEmpty else { continue }
            var sql = "UPDATE \(q(plan.table.name)) SET \(columns.map { "\($0) = NULL" }.joined(separator: ", ")) WHERE Z_PK = ?1"
            var bindings: [SQLValue] = [.integer(update.row.key.primaryKey)]
            if let expected = update.expectedVersion {
                sql += " AND Z_OPT = ?2"
                bindings.append(.integer(expected))
            }
            if try connection.run(sql, bindings) == 0 {
                conflicts.append(try conflict(update.row.key, expectedVersion: update.expectedVersion))
            }
        }
        return conflicts
    }

    /// The statement and fields of one update, kept for the next update of the same save: runs of updates
    /// mostly change the same slots, and then reuse them without building or looking anything up.
    private struct PreparedUpdate {
        let plan: SQLiteRowPlan
        let changedSlots: [Int]
        let checksVersion: Bool
        let binders: [SQLiteRowPlan.Binder]
        let statement: SQLiteStatement
    }

    /// Writes the changed slots of one row and bumps `Z_OPT`; the new version, or nil when the row is gone
    /// or (with an expected version) was changed by someone else. `last` is the prepared update of the
    /// previous update of the same save.
    private func applyUpdate(_ update: StoreRowUpdate, plan: SQLiteRowPlan, last: inout PreparedUpdate?) throws -> Int64? {
        let checksVersion = update.expectedVersion != nil
        let prepared: PreparedUpdate
        if let last, last.plan === plan, last.checksVersion == checksVersion, last.changedSlots == update.changedSlots {
            prepared = last
        } else {
            let slots = update.changedSlots.count > 1 ? Array(Set(update.changedSlots)).sorted() : update.changedSlots
            let binders = slots.compactMap { slot in plan.binders.first { $0.slot == slot } }
            let fields = binders.map { plan.fields[$0.field] }
            let shape = UpdateShape(entity: plan.entity.entityNumber, slots: fields.map(\.slot), checksVersion: checksVersion)
            prepared = PreparedUpdate(plan: plan, changedSlots: update.changedSlots, checksVersion: checksVersion, binders: binders,
                                      statement: try connection.statement(updateStatementSQL(shape, fields: fields, plan: plan)))
            last = prepared
        }
        let statement = prepared.statement
        defer { statement.reset() }
        let index = try update.row.values.withUnsafeBufferPointer { values in
            var index: Int32 = 1
            for binder in prepared.binders { index = try plan.bind(binder, from: values, to: statement, at: index) }
            return index
        }
        statement.bind(update.row.key.primaryKey, at: index)
        if let expected = update.expectedVersion { statement.bind(expected, at: index + 1) }
        if let expected = update.expectedVersion, expected >= StoreNumberLimits.largestStoredNumber {
            throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "object \(update.row.key) has version \(expected)")
        }
        let version: Int64?
        do {
            if let expected = update.expectedVersion {
                while try statement.step() {}
                return connection.changes == 1 ? expected + 1 : nil
            }
            guard try statement.step() else { return nil }
            version = statement.columnType(at: 0) == SQLITE_INTEGER ? statement.int64(at: 0) : nil
            while try statement.step() {}
        } catch let error as NSError {
            throw Self.constraintError(error)
        }
        // Z_OPT + 1 of a damaged Z_OPT (text, or past Int64.max, which SQLite turns into a real).
        guard let version, version <= StoreNumberLimits.largestStoredNumber else {
            throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "object \(update.row.key) has a damaged Z_OPT")
        }
        return version
    }

    /// The UPDATE statement of a shape: the changed columns and `Z_OPT` set, by `Z_PK`, with the version check
    /// or, without one, the new version returned. Built once per shape.
    private func updateStatementSQL(_ shape: UpdateShape, fields: [SQLiteRowPlan.Field], plan: SQLiteRowPlan) -> String {
        if let cached = updateSQL[shape] { return cached }
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var parameter = 0
        for field in fields {
            for column in field.columns.map({ plan.table.columns[$0].name }) {
                parameter += 1
                assignments.append("\(q(column)) = ?\(parameter)")
            }
        }
        let text = "UPDATE \(q(plan.table.name)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?\(parameter + 1)"
        // With a version check the new version is known (expected + 1); only unchecked updates read it back.
        let sql = shape.checksVersion ? text + " AND Z_OPT = ?\(parameter + 2)" : text + " RETURNING Z_OPT"
        updateSQL[shape] = sql
        return sql
    }

    /// Removes a deleted object from every join table it appears in.
    private func deleteJoinRows(of key: ObjectKey, entity: NSEntityDescription) throws {
        for (table, column) in schema.joinColumns(holdingKeysOf: entity) {
            try connection.run("DELETE FROM \(table) WHERE \(column) = ?1", [.integer(key.primaryKey)])
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
            let sql = "UPDATE \(q(table.name)) SET \(q(table.columns[index].name)) = ?1 WHERE Z_PK = ?2"
            for (position, key) in change.destinations.enumerated() {
                try connection.run(sql, [.integer(Int64(position + 2) * 1024), .integer(key.primaryKey)])
            }
        case .joinTable(let join, let ownerColumn, let destinationColumn, let orderColumn):
            let owner = Int64(change.owner.primaryKey)
            let current = Set(try connection.query("SELECT \(q(destinationColumn)) FROM \(q(join.name)) WHERE \(q(ownerColumn)) = ?1",
                                                   [.integer(owner)]) { $0.int64(at: 0) })
            let wanted = change.destinations.map(\.primaryKey)
            let wantedSet = Set(wanted)
            for removed in current.subtracting(wantedSet) {
                try connection.run("DELETE FROM \(q(join.name)) WHERE \(q(ownerColumn)) = ?1 AND \(q(destinationColumn)) = ?2",
                                   [.integer(owner), .integer(removed)])
            }
            for added in wanted where !current.contains(added) {
                try connection.run("INSERT OR IGNORE INTO \(q(join.name)) (\(q(ownerColumn)), \(q(destinationColumn))) VALUES (?1, ?2)",
                                   [.integer(owner), .integer(added)])
            }
            if let orderColumn {
                let sql = "UPDATE \(q(join.name)) SET \(q(orderColumn)) = ?1 WHERE \(q(ownerColumn)) = ?2 AND \(q(destinationColumn)) = ?3"
                for (position, key) in wanted.enumerated() {
                    try connection.run(sql, [.integer(Int64(position + 2) * 1024), .integer(owner), .integer(key)])
                }
            }
        }
    }

    /// A uniqueness-constraint failure as Apple's constraint merge error (133021); other errors unchanged.
    static func constraintError(_ error: NSError) -> NSError {
        guard (error.userInfo[NSSQLiteErrorDomain] as? Int) == Int(SQLITE_CONSTRAINT) else { return error }
        var info = error.userInfo
        info[NSUnderlyingErrorKey] = error
        return CoreDataError.make(NSManagedObjectConstraintMergeError,
                                  "The save violates a uniqueness constraint: \(error.localizedDescription)", userInfo: info)
    }
}

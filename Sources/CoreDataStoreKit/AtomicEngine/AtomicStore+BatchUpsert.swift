/// A batch insert into an atomic store that resolves uniqueness conflicts instead of failing
/// (`StoreBatchInsertRequest.conflictResolution` `.updateExisting` or `.keepExisting`), as the SQLite store's
/// upsert does: rows in the request's order, each meeting the records and the rows before it.
extension AtomicStore {
    /// Inserts each row, or resolves its conflict with the record that has its values for one of the tree's
    /// uniqueness constraints (the first constraint, in `AtomicUniqueness.constraints(inTreeOf:)` order, that
    /// finds one): under `.updateExisting` that record takes the row's attribute values (not its derived ones)
    /// and one more version; under `.keepExisting` the row is dropped. Every change is noted in `undo` (the caller
    /// restores it when this throws).
    /// - Returns: the key of each row inserted or updating a record, in the rows' order, and the records
    ///   written (each once), whose uniqueness `commit(checkingUniquenessOf:undo:)` still checks.
    /// - Throws: 133021 under `.updateExisting` when the record found is of another entity; 134030 when the keys
    ///   run out.
    func upsertRows(_ request: StoreBatchInsertRequest, of entity: NSEntityDescription,
                    undo: inout AtomicUndoLog) throws -> (keys: [ObjectKey], written: [AtomicRecord]) {
        let constraints = AtomicUniqueness.constraints(inTreeOf: entity.rootEntity)
        var owners = ConstraintOwners(constraints: constraints)
        for record in records(of: entity.rootEntity, includingSubentities: true) { owners.claim(record) }
        let attributeSlots = entity.layout.storedSlots.filter { slot in
            let property = entity.layout.allProperties[slot]
            return property is NSAttributeDescription && !(property is NSDerivedAttributeDescription)
        }
        let primaryKeys = try allocatePrimaryKeys(for: entity, count: request.rows.count)
        var keys: [ObjectKey] = []
        var written: [ObjectKey: AtomicRecord] = [:]
        for (primaryKey, values) in zip(primaryKeys, request.rows) {
            let row = AtomicRecord(key: ObjectKey(entityNumber: entity.entityNumber, primaryKey: primaryKey), entity: entity, version: 1, values: values)
            guard let existing = owners.owner(of: row).flatMap({ records[$0] }) else {
                remember(row.key, in: &undo)
                insertRecord(row)
                owners.claim(row)
                keys.append(row.key)
                written[row.key] = row
                continue
            }
            guard request.conflictResolution == .updateExisting else { continue }
            guard existing.entity === entity else { throw CoreDataError.batchInsertConflictWithOtherEntity(entity) }
            remember(existing.key, in: &undo)
            owners.release(existing)
            for slot in attributeSlots { existing.values[slot] = values[slot] }
            existing.version += 1
            owners.claim(existing)
            keys.append(existing.key)
            written[existing.key] = existing
        }
        return (keys, Array(written.values))
    }
}

/// Which record holds each value of each uniqueness constraint of one tree, kept up to date as a batch insert
/// inserts and updates records.
private struct ConstraintOwners {
    let constraints: [AtomicUniqueness.Constraint]
    private var owners: [[[ConstrainedValue]: ObjectKey]]

    init(constraints: [AtomicUniqueness.Constraint]) {
        self.constraints = constraints
        owners = Array(repeating: [:], count: constraints.count)
    }

    /// The record holding `record`'s values for the first constraint that finds one.
    func owner(of record: AtomicRecord) -> ObjectKey? {
        for (index, constraint) in constraints.enumerated() {
            if let values = AtomicUniqueness.values(of: record, for: constraint), let owner = owners[index][values] { return owner }
        }
        return nil
    }

    /// Records `record` as the holder of its constrained values (a value another record holds is left to the
    /// uniqueness check).
    mutating func claim(_ record: AtomicRecord) {
        for (index, constraint) in constraints.enumerated() {
            if let values = AtomicUniqueness.values(of: record, for: constraint), owners[index][values] == nil { owners[index][values] = record.key }
        }
    }

    /// Forgets `record`'s current values, before they change.
    mutating func release(_ record: AtomicRecord) {
        for (index, constraint) in constraints.enumerated() {
            if let values = AtomicUniqueness.values(of: record, for: constraint), owners[index][values] == record.key { owners[index][values] = nil }
        }
    }
}

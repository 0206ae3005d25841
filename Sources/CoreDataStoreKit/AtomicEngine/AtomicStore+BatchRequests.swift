/// The phases of an atomic store's batch delete, update and insert (`AtomicStore.batchDelete(_:)`,
/// `batchUpdate(_:)`, `batchInsert(_:)`); each ends, as a save does, with the derived attributes recomputed and
/// `commit(checkingUniquenessOf:undo:)`.
extension AtomicStore {
    // MARK: Batch delete

    /// The keys a batch delete removes: the request's records and every record their cascade rules reach, in
    /// the order they were reached, worked out before anything changes.
    /// - Throws: 1600 (`NSValidationRelationshipDeniedDeleteError`) when a doomed record's deny rule points at a
    ///   record the request does not delete (a destination the same request deletes does not deny).
    func doomedKeys(of request: StoreBatchDeleteRequest) throws -> (doomed: Set<ObjectKey>, order: [ObjectKey]) {
        var pending: [ObjectKey]
        switch request {
        case .matching(let fetch): pending = try select(fetch).map(\.key)
        case .keys(let keys): pending = keys.filter { records[$0] != nil }
        }
        var doomed = Set<ObjectKey>()
        var order: [ObjectKey] = []
        var denials: [(owner: AtomicRecord, relationship: NSRelationshipDescription, targets: [ObjectKey])] = []
        while let key = pending.popLast() {
            guard doomed.insert(key).inserted, let record = records[key] else { continue }
            order.append(key)
            let layout = record.entity.layout
            for case let relationship as NSRelationshipDescription in layout.allProperties where !relationship.isTransient {
                guard let slot = layout.slotByName[relationship.name] else { continue }
                let targets = relationship.isToMany ? (record.toMany[slot] ?? []) : [record.values[slot] as? ObjectKey].compactMap { $0 }
                switch relationship.deleteRule {
                case .cascadeDeleteRule: pending.append(contentsOf: targets)
                case .denyDeleteRule where !targets.isEmpty: denials.append((record, relationship, targets))
                default: break
                }
            }
        }
        for denial in denials where denial.targets.contains(where: { records[$0] != nil && !doomed.contains($0) }) {
            throw CoreDataError.make(NSValidationRelationshipDeniedDeleteError,
                                     "The batch delete was refused: a \(denial.owner.entity.name ?? "") object still has objects in \(denial.relationship.name), whose delete rule is deny.",
                                     userInfo: [NSValidationKeyErrorKey: denial.relationship.name])
        }
        return (doomed, order)
    }

    /// Removes the references the surviving records hold to `doomed` records (to-one set to nil, to-many
    /// without them), bumping each touched record's version; returns the keys of the records whose to-one
    /// references were set to nil: the rows whose columns the SQLite store updates (with `Z_OPT`), which its
    /// `now()` triggers stamp.
    func nullifyReferences(to doomed: Set<ObjectKey>, undo: inout AtomicUndoLog) -> Set<ObjectKey> {
        var rowsUpdated = Set<ObjectKey>()
        for record in records.values where !doomed.contains(record.key) {
            var touched = false
            for slot in record.entity.layout.storedSlots {
                if let target = record.values[slot] as? ObjectKey, doomed.contains(target) {
                    if !touched { remember(record.key, in: &undo); touched = true }
                    record.values[slot] = nil
                    rowsUpdated.insert(record.key)
                }
            }
            for (slot, keys) in record.toMany where keys.contains(where: doomed.contains) {
                if !touched { remember(record.key, in: &undo); touched = true }
                record.toMany[slot] = keys.filter { !doomed.contains($0) }
            }
            if touched { record.version += 1 }
        }
        return rowsUpdated
    }

    // MARK: Batch update

    /// Sets the assignments' values on every record and bumps its version, noting each in `undo` first.
    func assign(_ assignments: [StoreBatchUpdateRequest.Assignment], to selected: [AtomicRecord], undo: inout AtomicUndoLog) {
        for record in selected {
            remember(record.key, in: &undo)
            let layout = record.entity.layout
            for assignment in assignments {
                if let slot = layout.slotByName[assignment.attribute.name] { record.values[slot] = assignment.value }
            }
            record.version += 1
        }
    }

    // MARK: Batch insert

    /// The store's own description of the request's entity.
    /// - Throws: 134091 when the store does not hold that entity.
    func ownEntity(of request: StoreBatchInsertRequest) throws -> NSEntityDescription {
        let entity = request.entity
        guard let own = openRequest.model.entity(withNumber: entity.entityNumber), own.name == entity.name,
              openRequest.entities.contains(where: { $0 === own }) else {
            throw CoreDataError.unsupported("batch inserts into entity \(entity.name ?? ""), which is not in this store")
        }
        return own
    }

    /// Adds one record of `entity` per row, with newly allocated keys and version 1, noting each in `undo`;
    /// returns their keys in the rows' order.
    /// - Throws: 134030 when the keys run out.
    func insertRows(_ rows: [[Any?]], of entity: NSEntityDescription, undo: inout AtomicUndoLog) throws -> [ObjectKey] {
        let primaryKeys = try allocatePrimaryKeys(for: entity, count: rows.count)
        var keys: [ObjectKey] = []
        keys.reserveCapacity(primaryKeys.count)
        for (primaryKey, values) in zip(primaryKeys, rows) {
            let key = ObjectKey(entityNumber: entity.entityNumber, primaryKey: primaryKey)
            remember(key, in: &undo)
            insertRecord(AtomicRecord(key: key, entity: entity, version: 1, values: values))
            keys.append(key)
        }
        return keys
    }
}

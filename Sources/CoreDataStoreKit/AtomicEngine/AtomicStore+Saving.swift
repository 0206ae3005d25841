/// The phases of an atomic store's save (`AtomicStore.save(_:)`): the version checks, the change set applied
/// in memory, the metadata replaced, the derived attributes recomputed; `commit(checkingUniquenessOf:undo:)`
/// then checks the constraints and writes the file.
extension AtomicStore {
    /// Checks every update's and checked deletion's expected version against the record's, before anything
    /// changes.
    /// - Throws: `StoreVersionConflict` listing every stale row; an update whose record is gone conflicts even
    ///   without a version check (there is nothing left to overwrite).
    func checkVersions(of changes: StoreChangeSet) throws {
        var conflicts: [StoreVersionConflict.Conflict] = []
        for update in changes.updated {
            guard let current = records[update.row.key] else {
                conflicts.append(.init(key: update.row.key, expectedVersion: update.expectedVersion ?? 0, current: nil))
                continue
            }
            if let expected = update.expectedVersion, current.version != expected {
                conflicts.append(.init(key: update.row.key, expectedVersion: expected, current: current.row))
            }
        }
        for deletion in changes.deleted {
            guard let expected = deletion.expectedVersion, let current = records[deletion.key] else { continue }
            if current.version != expected {
                conflicts.append(.init(key: deletion.key, expectedVersion: expected, current: current.row))
            }
        }
        guard conflicts.isEmpty else { throw StoreVersionConflict(conflicts: conflicts) }
    }

    /// Inserts, updates (version + 1), to-many changes and deletions, in that order, each record noted in
    /// `undo` before its first change; returns the new versions of the unchecked updates.
    func applyChanges(_ changes: StoreChangeSet, undo: inout AtomicUndoLog) -> [ObjectKey: Int64] {
        let model = openRequest.model
        var versions: [ObjectKey: Int64] = [:]
        for row in changes.inserted {
            guard let entity = model.entity(withNumber: row.key.entityNumber) else { continue }
            remember(row.key, in: &undo)
            insertRecord(AtomicRecord(key: row.key, entity: entity, version: 1, values: row.values))
        }
        for update in changes.updated {
            guard let record = records[update.row.key] else { continue }
            remember(record.key, in: &undo)
            // The whole row: unchanged slots hold the stored values (checked version) or every slot is listed
            // as changed (unchecked update), so this equals writing only `changedSlots`.
            record.values = update.row.values
            record.version += 1
            if update.expectedVersion == nil { versions[record.key] = record.version }
        }
        for change in changes.toManyChanges {
            guard let record = records[change.owner], let slot = record.entity.layout.slotByName[change.relationship.name] else { continue }
            remember(record.key, in: &undo)
            record.toMany[slot] = change.destinations
        }
        for deletion in changes.deleted where records[deletion.key] != nil {
            remember(deletion.key, in: &undo)
            removeRecord(deletion.key)
        }
        return versions
    }

    /// Replaces the metadata with the save's (keeping the model's keys, the store type and UUID), noting the
    /// old metadata in `undo`; nothing when the save replaces none.
    func replaceMetadata(with replacement: [String: Any]?, undo: inout AtomicUndoLog) {
        guard let replacement else { return }
        let old = metadata
        undo.metadata = old
        metadata = ModelCompatibility.keepingModelKeys(of: old, in: replacement)
        metadata[NSStoreTypeKey] = Self.storeTypeName
        metadata[NSStoreUUIDKey] = old[NSStoreUUIDKey]
    }

    /// Recomputes the derived attributes from the records as they are now (`now()` on the records in
    /// `written`), noting each record in `undo` before it changes; returns the values that changed, by object
    /// and attribute name. Nothing to do, and no pass over the records, without derived attributes.
    func recomputeDerivedValues(written: Set<ObjectKey>, undo: inout AtomicUndoLog) -> [ObjectKey: [String: Any?]] {
        guard !derivations.isEmpty else { return [:] }
        return computeDerivedValues(written: written, savedAt: Date()) { key in remember(key, in: &undo) }
    }
}

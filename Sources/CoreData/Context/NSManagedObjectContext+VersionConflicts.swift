/// Optimistic-locking conflicts at save time: objects a store changed or deleted since the context read them.
///
/// The save loop (`NSManagedObjectContext+Saving.swift`) hands each store's part to the coordinator, which
/// holds its lock while it builds the change set, applies it and, on a version conflict, calls
/// `resolveVersionConflict(_:in:policy:)` here before trying again. This file turns the store's conflict into
/// Apple's `NSMergeConflict` objects, asks the context's merge policy (`NSMergePolicy.resolve(mergeConflicts:)`),
/// resolves what the policy left unresolved, and carries out the built-in resolutions the policy asks for:
/// `mergeProperties(of:storeWins:)`, `overwrite(_:)` and `rollBack(_:)`.
///
/// A resolved object is at the store's version, so the next attempt writes unless another coordinator or
/// process wrote the same store in between, which only makes the loop go round again.
extension NSManagedObjectContext {
    /// Resolves one failed attempt to write `plan`: builds the conflicts, lets `policy` resolve them, resolves
    /// the ones it left (object trump), and drops from the plan what no longer needs writing.
    /// - Throws: what the policy throws (133020 for `NSErrorMergePolicy`); 133020 for an updated object the store
    ///   deleted that the policy left unresolved; 134030 when the store reports a conflict at the very version
    ///   the save expected (a store that breaks the contract, which would otherwise never let the save finish).
    func resolveVersionConflict(_ conflict: StoreVersionConflict, in plan: StoreSavePlan, policy: NSMergePolicy) throws {
        let conflicts = try mergeConflicts(for: conflict, in: plan)
        guard !conflicts.isEmpty else {
            throw CoreDataError.saveFailed("the store reported version conflicts for objects this save does not write")
        }
        try policy.resolve(mergeConflicts: conflicts)
        try resolveLeftovers(conflicts)
        for item in conflicts where item.writesEveryProperty { plan.overwrite.insert(ObjectIdentifier(item.sourceObject)) }
        // A deletion rolled back with to-many changes kept is now an update.
        for item in conflicts where !item.sourceObject.deleted && item.sourceObject.hasPersistentChangedValues
            && item.sourceObject.managedObjectContext === self && !plan.updated.contains(where: { $0 === item.sourceObject }) {
            plan.updated.append(item.sourceObject)
        }
        plan.updated.removeAll { !$0.hasPersistentChangedValues || $0.deleted }
        plan.deleted.removeAll { !$0.deleted }
    }

    /// One `NSMergeConflict` per object of the plan the store reported stale.
    private func mergeConflicts(for conflict: StoreVersionConflict, in plan: StoreSavePlan) throws -> [NSMergeConflict] {
        var byKey: [ObjectKey: NSManagedObject] = [:]
        for object in plan.updated + plan.deleted {
            if let key = object.storedObjectKey { byKey[key] = object }
        }
        return try conflict.conflicts.compactMap { item in
            guard let object = byKey[item.key] else { return nil }
            if let current = item.current, current.version == item.expectedVersion {
                throw CoreDataError.saveFailed("the \(plan.store.type) store reported a conflict for \(object.objectID.uriRepresentation().absoluteString) at the version the save expected (\(current.version))")
            }
            return NSMergeConflict(source: object, oldVersion: object.version, row: item.current, store: plan.store)
        }
    }

    /// Resolves, as object trump, each conflict whose object the policy left at the version it was read at.
    private func resolveLeftovers(_ conflicts: [NSMergeConflict]) throws {
        let left = conflicts.filter { Int($0.sourceObject.version) == $0.oldVersionNumber && $0.sourceObject.managedObjectContext === self }
        guard !left.isEmpty else { return }
        try NSMergeConflict.requireStoredRows(left)
        for conflict in left { try mergeProperties(of: conflict, storeWins: false) }
    }

    // MARK: Built-in resolutions

    /// Puts the store's current values under the object's changes (or over them when the store wins),
    /// keeping inverse relationships in step for to-one values taken from the store, and merges its changed
    /// to-many relationships as sets. The object ends at the store's version. A deleted object stays deleted.
    func mergeProperties(of conflict: NSMergeConflict, storeWins: Bool) throws {
        let object = conflict.sourceObject
        guard let current = conflict.persistedRow else { return adoptVersion(of: conflict) }
        let committed = object.committed ?? []
        for slot in object.layout.storedSlots where slot < current.values.count {
            let storeChanged = slot >= committed.count || !StoreValueEquality.equal(committed[slot], current.values[slot])
            let mine = object.changedSlots.contains(slot)
            if mine && !(storeWins && storeChanged) { continue }
            guard storeChanged || mine else { continue }
            take(slot, from: current, into: object)
            object.changedSlots.remove(slot)
        }
        object.committed = current.values
        object.version = current.version
        try mergeToManyMemberships(of: object, in: conflict.store)
    }

    /// Keeps every value of the object, to be written over the store's row (every attribute and to-one is
    /// written), at the store's version; changed to-many relationships are merged as sets.
    func overwrite(_ conflict: NSMergeConflict) throws {
        adoptVersion(of: conflict)
        conflict.writesEveryProperty = true
        try mergeToManyMemberships(of: conflict.sourceObject, in: conflict.store)
    }

    /// Drops the object's changes to attributes and to-one relationships and gives it the store's values; a
    /// deletion is undone. Its changed to-many relationships stay changed and are merged as sets: they mirror
    /// the other side of each relationship (objects this save still writes), and dropping them would leave the
    /// two sides disagreeing. An object the store deleted becomes a fault that reads as inaccessible.
    func rollBack(_ conflict: NSMergeConflict) throws {
        let object = conflict.sourceObject
        object.deleted = false
        deletedSet[ObjectIdentifier(object)] = nil
        guard let current = conflict.persistedRow else {
            object.changedSlots = []
            object.faulted = true
            updatedSet.remove(object)
            return adoptVersion(of: conflict)
        }
        let kept = object.layout.toManySlots.filter { object.changedSlots.contains($0) }.map { ($0, object.slots[$0]) }
        fill(object, with: current)
        for (slot, storage) in kept {
            object.slots[slot] = storage
            object.changedSlots.insert(slot)
        }
        if object.changedSlots.isEmpty {
            updatedSet.remove(object)
        } else {
            noteUpdated(object)
        }
        try mergeToManyMemberships(of: object, in: conflict.store)
    }

    /// Brings the object to the store's version without changing its values.
    private func adoptVersion(of conflict: NSMergeConflict) {
        conflict.sourceObject.version = Int64(conflict.newVersionNumber)
    }

    /// Sets one stored slot of `object` to the store's value in `row`, through the to-one setter so inverses
    /// follow.
    private func take(_ slot: Int, from row: StoreRow, into object: NSManagedObject) {
        switch object.layout.slotKinds[slot] {
        case .toOne:
            guard let relationship = object.layout.allProperties[slot] as? NSRelationshipDescription else { return }
            let target = (row.values[slot] as? ObjectKey).flatMap { self.object(for: $0, near: object) }
            object.setToOne(slot: slot, relationship: relationship, to: target)
        case .attribute(let type):
            object.slots[slot] = decodedStoreValue(row.values[slot], type: type, slot: slot, of: object)
        case .toMany, .other:
            object.slots[slot] = row.values[slot]
        }
    }

    /// Merges each changed to-many relationship of `object` with the store's current destinations, as sets:
    /// destinations the context added since it read the relationship are kept, ones it removed stay removed,
    /// ones the store added are added (at the end, for an ordered relationship) and ones the store removed are
    /// removed. The store's destinations become the new baseline. A relationship whose baseline is unknown (set
    /// without being read) is written as the context holds it. Inverses are not touched: the store's side
    /// already agrees with the store.
    /// - Throws: the store's error when the destinations cannot be read.
    private func mergeToManyMemberships(of object: NSManagedObject, in store: NSPersistentStore?) throws {
        guard let store, let key = object.storedObjectKey, let coordinator = persistentStoreCoordinator, !object.deleted else { return }
        for slot in object.layout.toManySlots where object.changedSlots.contains(slot) {
            guard let storage = object.slots[slot] as? ToManyStorage, let original = storage.original,
                  let relationship = object.layout.allProperties[slot] as? NSRelationshipDescription else { continue }
            let stored = try coordinator.relatedKeys(of: key, through: relationship, in: store, at: nil).compactMap { self.object(for: $0, near: object) }
            let inStore = Set(stored.map(ObjectIdentifier.init))
            var merged = storage.objects.filter { !original.contains(ObjectIdentifier($0)) || inStore.contains(ObjectIdentifier($0)) }
            for destination in stored where !original.contains(ObjectIdentifier(destination)) && !storage.contains(destination) {
                merged.append(destination)
            }
            object.slots[slot] = ToManyStorage(merged, original: inStore)
        }
    }
}

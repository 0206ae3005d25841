/// Uniqueness constraints at save time: conflicts are found before anything is written, and either thrown
/// (`NSErrorMergePolicy`) or resolved by the context's merge policy.
///
/// What is found: inserted objects, and updated objects whose constrained attributes changed, that share the
/// values of a constraint (declared by their entity or an ancestor; all values non-nil) with each other or with
/// a saved row of the same inheritance tree that this save neither deletes nor moves away from those values.
/// Saved rows are looked up with one store fetch per constraint (an `IN` over the values) for single-attribute
/// constraints. Constraints that name a relationship are left to the stores, which refuse the save (133021).
///
/// How a policy other than `NSErrorMergePolicy` resolves a conflict: one object survives and the others are
/// merged into it and leave the context; every reference to a merged object, in any object of the context,
/// then points at the survivor. Merging can make new conflicts (a merged value may collide under another
/// constraint), so finding and resolving repeat until none is left (at most 8 rounds, then 133021).
/// - With a saved row, the survivor is the context's object for that row; when the context had none and an
///   inserted object is of the row's entity, that inserted object becomes the row (it takes the row's ID, so
///   references to it stay valid). Otherwise the row is loaded and the inserted objects merge into it.
/// - Among unsaved objects only, an updated object survives, else the first inserted one.
/// - `NSMergeByPropertyObjectTrumpMergePolicy`: each merged object's changed properties win, in insertion
///   order; to-many relationships are joined (nothing the row was related to is dropped).
///   `NSOverwriteMergePolicy`: every property of the merged object wins, nil or not, and its to-many
///   relationships replace the survivor's. `NSMergeByPropertyStoreTrumpMergePolicy`: the survivor's values
///   win; a merged object only fills the survivor's nil properties, and to-many relationships are joined.
///   `NSRollbackMergePolicy`: the merged objects' own changes are dropped; other objects' references to them
///   move to the survivor.
/// - A conflict that involves no inserted object (updated objects only) is thrown whatever the policy.
extension NSManagedObjectContext {
    /// Finds this save's uniqueness conflicts and lets the merge policy resolve them, round after round.
    /// - Returns: whether anything was resolved (the save's lists of changed objects must then be rebuilt).
    /// - Throws: 133021 with the conflicts under "conflictList" when the policy does not resolve them.
    func resolveUniquenessConflicts(policy: NSMergePolicy) throws -> Bool {
        // Most saves touch no constrained entity: find that out without building any list.
        guard insertionOrder.contains(where: { $0.inserted && $0.layout.hasUniquenessConstraints })
                || updatedSet.values.contains(where: { $0.layout.hasUniquenessConstraints }) else { return false }
        var resolved = false
        for _ in 0..<8 {
            let candidates = insertionOrder.filter(\.inserted)
                + updatedSet.values.filter { !$0.inserted && !$0.deleted && !$0.changedSlots.isEmpty }
            guard candidates.contains(where: { !$0.entity.allUniquenessConstraints.isEmpty }) else { return resolved }
            let conflicts = try findUniquenessConflicts(candidates)
            guard !conflicts.isEmpty else { return resolved }
            if policy.mergeType != .errorMergePolicyType,
               let unresolvable = conflicts.first(where: { !$0.conflictingObjects.contains(where: \.inserted) }) {
                throw NSConstraintConflict.error([unresolvable], note: "objects that are not new cannot be merged")
            }
            constraintMerges = [:]
            constraintTakeOvers = 0
            defer { constraintMerges = [:] }
            try policy.resolve(mergeConflicts: conflicts)  // Apple's entry point, which hands them to resolve(constraintConflicts:)
            guard !constraintMerges.isEmpty || constraintTakeOvers > 0 else {
                // The policy changed nothing: the same conflicts would come back.
                throw NSConstraintConflict.error(conflicts, note: "the merge policy left them unresolved")
            }
            finishConstraintMerges()
            resolved = true
        }
        let remaining = try findUniquenessConflicts(insertionOrder.filter(\.inserted))
        if !remaining.isEmpty { throw NSConstraintConflict.error(remaining, note: "merging kept making new conflicts") }
        return resolved
    }

    // MARK: Finding conflicts

    private struct ConstraintKey: Hashable {
        let declaring: ObjectIdentifier
        let names: [String]
        let values: [AnyHashable]
    }

    private struct SavedRow {
        let row: StoreRow
        let store: NSPersistentStore
    }

    private func findUniquenessConflicts(_ candidates: [NSManagedObject]) throws -> [NSConstraintConflict] {
        // Group the changed objects by constraint and values.
        var groups: [ConstraintKey: [NSManagedObject]] = [:]
        var order: [ConstraintKey] = []
        var declaringEntity: [ObjectIdentifier: NSEntityDescription] = [:]
        for object in candidates {
            for (declaring, names) in object.entity.allUniquenessConstraints {
                guard let values = Self.constrainedValues(names: names, layout: object.layout, values: object.slots) else { continue }
                if !object.inserted, !names.contains(where: { object.changedSlots.contains(object.layout.slotByName[$0] ?? -1) }) { continue }
                let key = ConstraintKey(declaring: ObjectIdentifier(declaring), names: names, values: values)
                declaringEntity[key.declaring] = declaring
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(object)
            }
        }
        guard !order.isEmpty else { return [] }
        let saved = try savedRows(for: order, groups: groups, declaringEntity: declaringEntity)
        var conflicts: [NSConstraintConflict] = []
        for key in order {
            guard let members = groups[key] else { continue }
            let row = saved[key]
            guard members.count > 1 || row != nil else { continue }
            var database: (object: NSManagedObject, snapshot: [String: Any], loaded: Bool)?
            if let row { database = materializeForConflict(row) }
            let conflict = NSConstraintConflict(
                constraint: key.names, database: database?.object, databaseSnapshot: database?.snapshot,
                conflicting: members, conflictingSnapshots: members.map { $0.committedValues(forKeys: nil) })
            conflict.databaseObjectWasLoaded = database?.loaded ?? false
            conflicts.append(conflict)
        }
        return conflicts
    }

    /// The constrained attribute values as comparable keys (strings by their UTF-8 bytes, as the SQLite store's
    /// index compares them), or nil when one is nil or a constraint names a non-attribute.
    private static func constrainedValues(names: [String], layout: EntityLayout, values slots: [Any?]) -> [AnyHashable]? {
        var values: [AnyHashable] = []
        for name in names {
            guard let slot = layout.slotByName[name], slot < slots.count, case .attribute = layout.slotKinds[slot],
                  let value = slots[slot], let hashable = value as? AnyHashable else { return nil }
            if let string = value as? String { values.append(Data(string.utf8)) } else { values.append(hashable) }
        }
        return values
    }

    /// For each key, a saved row of the declaring entity's tree with those values, unless its object is one of
    /// the key's members, is deleted in this save, or is changed away from the values.
    private func savedRows(for keys: [ConstraintKey], groups: [ConstraintKey: [NSManagedObject]],
                           declaringEntity: [ObjectIdentifier: NSEntityDescription]) throws -> [ConstraintKey: SavedRow] {
        guard let coordinator = persistentStoreCoordinator else { return [:] }
        struct Constraint: Hashable { let declaring: ObjectIdentifier; let names: [String] }
        var byConstraint: [Constraint: [ConstraintKey]] = [:]
        for key in keys { byConstraint[Constraint(declaring: key.declaring, names: key.names), default: []].append(key) }
        var found: [ConstraintKey: SavedRow] = [:]
        for (constraint, constraintKeys) in byConstraint {
            guard let declaring = declaringEntity[constraint.declaring] else { continue }
            // One predicate per chunk of values for a single attribute, one per key for several.
            var predicates: [NSPredicate] = []
            if constraint.names.count == 1 {
                let values = constraintKeys.compactMap { groups[$0]?.first?.value(forKey: constraint.names[0]) }
                for start in stride(from: 0, to: values.count, by: 500) {
                    predicates.append(NSPredicate(format: "%K IN %@", argumentArray: [constraint.names[0], Array(values[start..<min(start + 500, values.count)])]))
                }
            } else {
                for key in constraintKeys {
                    guard let sample = groups[key]?.first else { continue }
                    var arguments: [Any] = []
                    for name in constraint.names { arguments += [name, sample.value(forKey: name) ?? NSNull()] }
                    predicates.append(NSPredicate(format: Array(repeating: "%K == %@", count: constraint.names.count).joined(separator: " AND "),
                                                  argumentArray: arguments))
                }
            }
            let wanted = Set(constraintKeys)
            for store in coordinator.stores(holding: declaring) {
                // A store that holds its rows in memory is read once, whole: cheaper than evaluating `IN` per row.
                for predicate in store.capabilities.contains(.rowsInMemory) ? [nil] : predicates as [NSPredicate?] {
                    let request = StoreFetchRequest(entity: declaring, includesSubentities: true, predicate: predicate, result: .rows)
                    let rows = try coordinator.fetchRows(request, from: [store], at: nil).first?.rows ?? []  // a save checks the latest state
                    for row in rows {
                        guard let id = store.objectID(for: row.key),
                              let values = Self.constrainedValues(names: constraint.names, layout: id.entity.layout, values: row.values) else { continue }
                        let key = ConstraintKey(declaring: constraint.declaring, names: constraint.names, values: values)
                        guard wanted.contains(key), found[key] == nil, keeps(id, names: constraint.names, against: groups[key] ?? []) else { continue }
                        found[key] = SavedRow(row: row, store: store)
                    }
                }
            }
        }
        return found
    }

    /// Whether the saved object `id` still holds the constrained values once this save is written.
    private func keeps(_ id: NSManagedObjectID, names: [String], against members: [NSManagedObject]) -> Bool {
        if members.contains(where: { $0.assignedID?.identity == id.identity }) { return false }
        guard let registered = registered[id.identity] else { return true }
        if registered.deleted { return false }
        return !registered.changedSlots.contains { slot in names.contains(registered.layout.allProperties[slot].name) }
    }

    /// The context's object for a saved row (loaded if needed), its saved values by name, and whether it was loaded now.
    private func materializeForConflict(_ saved: SavedRow) -> (object: NSManagedObject, snapshot: [String: Any], loaded: Bool)? {
        guard let id = saved.store.objectID(for: saved.row.key) else { return nil }
        let known = registered[id.identity] != nil
        guard let object = materialize(row: saved.row, store: saved.store) else { return nil }
        var snapshot: [String: Any] = [:]
        for slot in object.layout.storedSlots where slot < saved.row.values.count {
            snapshot[object.layout.allProperties[slot].name] = saved.row.values[slot] ?? NSNull()
        }
        return (object, snapshot, !known)
    }

    // MARK: Resolving

    /// Resolves one conflict with a built-in policy: picks the survivor and merges the other objects into it.
    /// The merged objects leave the context when the round ends (`finishConstraintMerges()`).
    func resolve(_ conflict: NSConstraintConflict, type: NSMergePolicyType) {
        var others = conflict.conflictingObjects.filter { $0.managedObjectContext === self && constraintMerges[ObjectIdentifier($0)] == nil }
        guard !others.isEmpty else { return }
        var survivor: NSManagedObject
        if let database = conflict.databaseObject {
            if let index = others.firstIndex(where: { $0 === database }) {
                survivor = others.remove(at: index)
            } else if conflict.databaseObjectWasLoaded, !database.hasChanges,
                      let index = others.firstIndex(where: { $0.inserted && $0.entity === database.entity }) {
                survivor = others.remove(at: index)
                takeOver(database, by: survivor, type: type)
            } else {
                survivor = database
            }
        } else if let index = others.firstIndex(where: { !$0.inserted }) ?? others.indices.first {
            survivor = others.remove(at: index)
        } else {
            return
        }
        while let next = constraintMerges[ObjectIdentifier(survivor)]?.survivor { survivor = next }
        for object in others where object.inserted && object !== survivor {
            merge(object, into: survivor, type: type)
            constraintMerges[ObjectIdentifier(object)] = (object, survivor)
        }
    }

    /// Makes inserted `object` the saved row `row` stands for (an object loaded only to find the conflict): it
    /// takes the row's ID, version and saved values, and the policy decides which of its own values stay
    /// changed. `row` leaves the context.
    private func takeOver(_ row: NSManagedObject, by object: NSManagedObject, type: NSMergePolicyType) {
        guard let id = row.assignedID else { return }
        let own = object.changedSlots
        let ownValues = object.slots
        let layout = object.layout
        let rowTargets = (0..<layout.slotCount).map { slot -> NSManagedObject? in
            layout.slotKinds[slot] == .toOne ? row.toOneObject(slot: slot) : nil
        }
        // The row's object leaves; the inserted object is registered under the row's ID as an updated object.
        registered.remove(id.identity)
        row.managedObjectContext = nil
        forgetInsertion(of: object)
        reregister(object, as: id)
        object.committed = row.committed
        object.version = row.version
        noteUpdated(object)
        constraintTakeOvers += 1
        var changed = SlotSet()
        for slot in 0..<layout.slotCount {
            let mine = own.contains(slot)
            guard let relationship = layout.allProperties[slot] as? NSRelationshipDescription else {
                if Self.mergedValueWins(type, changed: mine, survivorHasValue: row.slots[slot] != nil) {
                    changed.insert(slot)
                } else {
                    object.slots[slot] = row.slots[slot]
                }
                continue
            }
            if relationship.isToMany {
                // The row's destinations load from its store; the new object's are added (or replace them, to
                // overwrite), through the relationship so their inverses follow.
                let added = (ownValues[slot] as? ToManyStorage)?.objects ?? []
                object.slots[slot] = nil
                guard mine, !added.isEmpty || type == .overwriteMergePolicyType else { continue }
                if type == .overwriteMergePolicyType {
                    object.setToMany(slot: slot, relationship: relationship, to: added)
                } else {
                    for target in added { object.relate(relationship, slot: slot, to: target) }
                }
                changed.insert(slot)
            } else {
                let keepMine = Self.mergedValueWins(type, changed: mine, survivorHasValue: rowTargets[slot] != nil)
                // Whichever destination loses forgets the object in its inverse relationship.
                let rowTarget = rowTargets[slot]
                if keepMine {
                    if let rowTarget, rowTarget !== object.toOneObject(slot: slot), let inverse = relationship.inverseRelationship {
                        rowTarget.forget(object, in: inverse)
                    }
                    changed.insert(slot)
                } else {
                    object.setToOne(slot: slot, relationship: relationship, to: rowTarget)
                }
            }
        }
        object.changedSlots = changed
    }

    /// Moves `object`'s values into `survivor` as the policy says, through the setters so inverses follow.
    private func merge(_ object: NSManagedObject, into survivor: NSManagedObject, type: NSMergePolicyType) {
        guard type != .rollbackMergePolicyType else { return }
        survivor.fireFaultIfNeeded()
        let layout = object.layout
        for slot in 0..<layout.slotCount {
            let property = layout.allProperties[slot]
            guard let target = survivor.layout.slotByName[property.name], survivor.layout.slotKinds[target] == layout.slotKinds[slot] else { continue }
            let mine = object.changedSlots.contains(slot)
            switch layout.slotKinds[slot] {
            case .toMany:
                guard mine, let relationship = survivor.layout.allProperties[target] as? NSRelationshipDescription else { continue }
                let destinations = object.toManyObjects(slot: slot)
                if type == .overwriteMergePolicyType {
                    survivor.setToMany(slot: target, relationship: relationship, to: destinations)
                } else {
                    for destination in destinations { survivor.relate(relationship, slot: target, to: destination) }
                }
            case .attribute, .toOne:
                let value: Any? = layout.slotKinds[slot] == .toOne ? object.toOneObject(slot: slot) : object.slots[slot]
                if Self.mergedValueWins(type, changed: mine, survivorHasValue: survivor.slots[target] != nil) {
                    survivor.setValue(value, slot: target)
                }
            case .other:
                continue
            }
        }
    }

    /// Whether a merged object's value of one property replaces the survivor's, by policy: object trump when
    /// the merged object changed it, overwrite always, store trump only to fill a nil, rollback never.
    private static func mergedValueWins(_ type: NSMergePolicyType, changed: Bool, survivorHasValue: Bool) -> Bool {
        switch type {
        case .mergeByPropertyObjectTrumpMergePolicyType: return changed
        case .overwriteMergePolicyType: return true
        case .mergeByPropertyStoreTrumpMergePolicyType: return changed && !survivorHasValue
        case .rollbackMergePolicyType, .errorMergePolicyType: return false
        }
    }

    /// Ends a round of merges: every relationship of the context's objects that holds a merged object holds its
    /// survivor instead (through the setters, so inverses follow), then the merged objects leave the context.
    private func finishConstraintMerges() {
        func survivor(of object: NSManagedObject) -> NSManagedObject? {
            var current = constraintMerges[ObjectIdentifier(object)]?.survivor
            while let next = current.flatMap({ constraintMerges[ObjectIdentifier($0)]?.survivor }) { current = next }
            return current
        }
        for holder in allObjects where !holder.faulted && constraintMerges[ObjectIdentifier(holder)] == nil {
            let layout = holder.layout
            for slot in 0..<layout.slotCount {
                guard let relationship = layout.allProperties[slot] as? NSRelationshipDescription else { continue }
                switch holder.slots[slot] {
                case let target as NSManagedObject:
                    if let replacement = survivor(of: target) { holder.setToOne(slot: slot, relationship: relationship, to: replacement) }
                case let storage as ToManyStorage:
                    for target in storage.objects {
                        guard let replacement = survivor(of: target) else { continue }
                        holder.unrelate(relationship, slot: slot, from: target)
                        holder.relate(relationship, slot: slot, to: replacement)
                    }
                default:
                    continue
                }
            }
        }
        for (object, _) in constraintMerges.values { discard(object) }
        insertionOrder.removeAll { !$0.inserted }
    }

    /// Removes a merged inserted object from the context, and from its destinations' inverse relationships.
    private func discard(_ object: NSManagedObject) {
        for case let relationship as NSRelationshipDescription in object.layout.allProperties {
            guard let slot = object.layout.slotByName[relationship.name] else { continue }
            let targets = relationship.isToMany ? object.toManyObjects(slot: slot) : [object.toOneObject(slot: slot)].compactMap { $0 }
            for target in targets { object.unrelate(relationship, slot: slot, from: target) }
        }
        forgetInsertion(of: object)
        updatedSet.remove(object)
        if let id = object.assignedID { registered.remove(id.identity) }
        object.managedObjectContext = nil
    }
}

extension NSEntityDescription {
    /// The uniqueness constraints that cover this entity's objects: its own and its ancestors', each with the
    /// entity that declares it and its property names.
    var allUniquenessConstraints: [(declaring: NSEntityDescription, names: [String])] {
        var result: [(NSEntityDescription, [String])] = []
        var entity: NSEntityDescription? = self
        while let current = entity {
            for constraint in current.uniquenessConstraints {
                let names = constraint.compactMap { $0 as? String ?? ($0 as? NSPropertyDescription)?.name }
                if !names.isEmpty { result.append((current, names)) }
            }
            entity = current.superentity
        }
        return result
    }
}

/// Uniqueness constraints at save time: conflicts are found before anything is written, and either thrown
/// (`NSErrorMergePolicy`) or resolved by the context's merge policy.
///
/// What is found: inserted objects, and updated objects whose constrained attributes changed, that share the
/// values of a constraint (declared by their entity or an ancestor; all values non-nil) with each other or with
/// a saved row of the same inheritance tree that this save neither deletes nor moves away from those values.
/// Constraints that name a relationship are left to the stores, which refuse the save (133021).
///
/// How a policy other than `NSErrorMergePolicy` resolves a conflict: one object survives and the others are
/// merged into it and leave the context.
/// - With a saved row, the survivor is the context's object for that row; when the context has none and an
///   inserted object is of the row's entity, that inserted object becomes the row (it takes the row's ID, so
///   references to it stay valid). Otherwise the row is loaded and the inserted objects merge into it.
/// - Among unsaved objects only, an updated object survives, else the first inserted one.
/// - `NSMergeByPropertyObjectTrumpMergePolicy`: each merged object's changed properties win, in insertion
///   order; to-many relationships are joined (nothing the row was related to is dropped).
///   `NSOverwriteMergePolicy`: every property of the merged object wins, nil or not, and its to-many
///   relationships replace the row's.
///   `NSMergeByPropertyStoreTrumpMergePolicy`: the survivor's values win; a merged object only fills the
///   survivor's nil properties. `NSRollbackMergePolicy`: the merged objects' changes are dropped.
/// - A conflict that involves no inserted object (updated objects only) is thrown whatever the policy.
extension NSManagedObjectContext {
    /// Finds this save's uniqueness conflicts and lets the merge policy resolve them.
    /// - Returns: whether anything was resolved (the save's lists of changed objects must then be rebuilt).
    /// - Throws: 133021 with the conflicts under "conflictList" when the policy does not resolve them.
    func resolveUniquenessConflicts(policy: NSMergePolicy) throws -> Bool {
        let candidates = insertionOrder.filter(\.inserted)
            + updatedSet.values.filter { !$0.inserted && !$0.deleted && !$0.changedSlots.isEmpty }
        guard candidates.contains(where: { !$0.entity.allUniquenessConstraints.isEmpty }) else { return false }
        let conflicts = try findUniquenessConflicts(candidates)
        guard !conflicts.isEmpty else { return false }
        if let unresolvable = conflicts.first(where: { !$0.conflictingObjects.contains(where: \.inserted) }), policy.mergeType != .errorMergePolicyType {
            throw NSConstraintConflict.error([unresolvable], note: "objects that are not new cannot be merged")
        }
        try policy.resolve(constraintConflicts: conflicts)
        return true
    }

    // MARK: Finding conflicts

    private struct ConstraintKey: Hashable {
        let declaring: ObjectIdentifier
        let names: [String]
        let values: [AnyHashable]
    }

    private func findUniquenessConflicts(_ candidates: [NSManagedObject]) throws -> [NSConstraintConflict] {
        // Group the changed objects by constraint and values.
        var groups: [ConstraintKey: [NSManagedObject]] = [:]
        var order: [ConstraintKey] = []
        var declaringEntity: [ObjectIdentifier: NSEntityDescription] = [:]
        for object in candidates {
            for (declaring, names) in object.entity.allUniquenessConstraints {
                guard let values = Self.constrainedValues(of: object, names: names) else { continue }
                if !object.inserted, !names.contains(where: { object.changedSlots.contains(object.layout.slotByName[$0] ?? -1) }) { continue }
                let key = ConstraintKey(declaring: ObjectIdentifier(declaring), names: names, values: values)
                declaringEntity[key.declaring] = declaring
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(object)
            }
        }
        var conflicts: [NSConstraintConflict] = []
        for key in order {
            guard let members = groups[key], let declaring = declaringEntity[key.declaring] else { continue }
            let saved = try savedRow(matching: key.names, values: members[0], declaring: declaring, excluding: members)
            guard members.count > 1 || saved != nil else { continue }
            let conflict = NSConstraintConflict(
                constraint: key.names, database: saved?.object, databaseSnapshot: saved?.snapshot,
                conflicting: members, conflictingSnapshots: members.map { $0.committedValues(forKeys: nil) })
            conflict.databaseObjectWasLoaded = saved?.loaded ?? false
            conflicts.append(conflict)
        }
        return conflicts
    }

    /// The constrained attribute values of an object as comparable keys (strings by their UTF-8 bytes, as the
    /// SQLite store's index compares them), or nil when one is nil or a constraint names a non-attribute.
    private static func constrainedValues(of object: NSManagedObject, names: [String]) -> [AnyHashable]? {
        var values: [AnyHashable] = []
        for name in names {
            guard let slot = object.layout.slotByName[name], case .attribute = object.layout.slotKinds[slot],
                  let value = object.slots[slot], let hashable = value as? AnyHashable else { return nil }
            if let string = value as? String { values.append(Data(string.utf8)) } else { values.append(hashable) }
        }
        return values
    }

    /// The saved row of `declaring`'s tree with the constrained values of `sample`, as the context's object
    /// and a snapshot, unless its object is one of `members`, is deleted in this save, or changed away from them.
    private func savedRow(matching names: [String], values sample: NSManagedObject, declaring: NSEntityDescription,
                          excluding members: [NSManagedObject]) throws -> (object: NSManagedObject, snapshot: [String: Any], loaded: Bool)? {
        guard let coordinator = persistentStoreCoordinator else { return nil }
        var format: [String] = []
        var arguments: [Any] = []
        for name in names {
            format.append("%K == %@")
            arguments.append(name)
            arguments.append(sample.value(forKey: name) ?? NSNull())
        }
        let predicate = NSPredicate(format: format.joined(separator: " AND "), argumentArray: arguments)
        let request = StoreFetchRequest(entity: declaring, includesSubentities: true, predicate: predicate, result: .rows)
        let memberIDs = Set(members.compactMap { $0.assignedID?.identity })
        for store in coordinator.persistentStores where store.holds(declaring) {
            guard case .rows(let rows) = try coordinator.withLock({ try store.backend.fetch(request) }) else { continue }
            for row in rows {
                guard let id = store.objectID(for: row.key), !memberIDs.contains(id.identity) else { continue }
                let known = registered[id.identity]
                if let registered = known {
                    if registered.deleted { continue }
                    // An object of the context changed away from the values no longer holds them once saved.
                    if registered.changedSlots.contains(where: { slot in names.contains(registered.layout.allProperties[slot].name) }) { continue }
                }
                guard let object = materialize(row: row, store: store) else { continue }
                var snapshot: [String: Any] = [:]
                for slot in object.layout.storedSlots where slot < row.values.count {
                    snapshot[object.layout.allProperties[slot].name] = row.values[slot] ?? NSNull()
                }
                return (object, snapshot, known == nil)
            }
        }
        return nil
    }

    // MARK: Resolving

    /// Resolves one conflict with a built-in policy: picks the survivor and merges the other objects into it.
    func resolve(_ conflict: NSConstraintConflict, type: NSMergePolicyType) {
        var others = conflict.conflictingObjects.filter { $0.managedObjectContext === self }
        guard !others.isEmpty else { return }
        let survivor: NSManagedObject
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
        for object in others where object.inserted {
            merge(object, into: survivor, type: type)
            discard(object)
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
        registered[id.identity] = nil
        row.managedObjectContext = nil
        insertedSet[ObjectIdentifier(object)] = nil
        insertionOrder.removeAll { $0 === object }
        object.inserted = false
        object.assignedID = id
        object.committed = row.committed
        object.version = row.version
        registered[id.identity] = object
        noteUpdated(object)
        var changed = SlotSet()
        for slot in 0..<layout.slotCount {
            let mine = own.contains(slot)
            switch layout.slotKinds[slot] {
            case .toMany:
                // The row's destinations stay; the inserted object's are added (or replace them, to overwrite).
                let added = (ownValues[slot] as? ToManyStorage)?.objects ?? []
                object.slots[slot] = nil
                guard mine, type != .rollbackMergePolicyType else { continue }
                let existing = type == .overwriteMergePolicyType ? [] : object.toManyObjects(slot: slot)
                object.slots[slot] = ToManyStorage(existing + added.filter { target in !existing.contains { $0 === target } })
                changed.insert(slot)
            case .attribute, .toOne, .other:
                let saved = row.slots[slot]
                let keepMine: Bool
                switch type {
                case .mergeByPropertyObjectTrumpMergePolicyType: keepMine = mine
                case .overwriteMergePolicyType: keepMine = true
                case .mergeByPropertyStoreTrumpMergePolicyType: keepMine = mine && saved == nil
                case .rollbackMergePolicyType, .errorMergePolicyType: keepMine = false
                }
                if case .toOne = layout.slotKinds[slot], let relationship = layout.allProperties[slot] as? NSRelationshipDescription {
                    // Whichever destination loses forgets the object in its inverse relationship.
                    let rowTarget = rowTargets[slot]
                    if keepMine {
                        if let rowTarget, rowTarget !== object.toOneObject(slot: slot), let inverse = relationship.inverseRelationship {
                            rowTarget.forget(object, in: inverse)
                        }
                    } else {
                        object.setToOne(slot: slot, relationship: relationship, to: rowTarget)
                    }
                } else if !keepMine {
                    object.slots[slot] = saved
                }
                if keepMine { changed.insert(slot) }
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
                for destination in object.toManyObjects(slot: slot) { survivor.relate(relationship, slot: target, to: destination) }
            case .attribute, .toOne:
                let value: Any? = layout.slotKinds[slot] == .toOne ? object.toOneObject(slot: slot) : object.slots[slot]
                let take: Bool
                switch type {
                case .mergeByPropertyObjectTrumpMergePolicyType: take = mine
                case .overwriteMergePolicyType: take = true
                case .mergeByPropertyStoreTrumpMergePolicyType: take = mine && survivor.slots[target] == nil
                case .rollbackMergePolicyType, .errorMergePolicyType: take = false
                }
                if take { survivor.setValue(value, slot: target) }
            case .other:
                continue
            }
        }
    }

    /// Removes a merged inserted object from the context, and from its destinations' inverse relationships.
    private func discard(_ object: NSManagedObject) {
        for case let relationship as NSRelationshipDescription in object.layout.allProperties {
            guard let slot = object.layout.slotByName[relationship.name] else { continue }
            let targets = relationship.isToMany ? object.toManyObjects(slot: slot) : [object.toOneObject(slot: slot)].compactMap { $0 }
            for target in targets { object.unrelate(relationship, slot: slot, from: target) }
        }
        object.inserted = false
        insertedSet[ObjectIdentifier(object)] = nil
        updatedSet[ObjectIdentifier(object)] = nil
        insertionOrder.removeAll { $0 === object }
        if let id = object.assignedID { registered[id.identity] = nil }
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

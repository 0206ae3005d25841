/// Nested contexts: a context whose `parent` is another context reads through its ancestors' unsaved changes
/// and saves into its parent rather than into the stores (Apple's "parent store" behaviour).
///
/// - A child's fetches, faults and existing-object look-ups see what its ancestors hold unsaved: objects they
///   inserted, their changed values, and not the objects they deleted. The nearest ancestor wins.
/// - `save()` on a child validates its changes and pushes them into the parent, which then has them as its own
///   unsaved changes; nothing reaches a store until the root context saves.
/// - Objects a child inserts keep their temporary IDs after the child saves, as on Apple's platforms; call
///   `obtainPermanentIDs(for:)` before saving the child to give them IDs that survive the parent's save.
/// - An ancestor is read on its own queue (`performAndWait`), so a child must not block its parent's queue
///   while the parent waits for the child.
extension NSManagedObjectContext {
    // MARK: Reading through ancestors

    /// The unsaved changes of every ancestor to objects of `entity` (or its subentities), nearest first: an ID
    /// an ancestor changed is taken from the nearest one that changed it.
    func inheritedChanges(touching entity: NSEntityDescription) -> InheritedChanges {
        var changes = InheritedChanges()
        var ancestor = parent
        while let context = ancestor {
            context.performAndWait { context.collectChanges(touching: entity, into: &changes) }
            ancestor = context.parent
        }
        return changes
    }

    /// Whether an ancestor has unsaved changes to objects of `entity` (or its subentities); reads no values.
    func ancestorsHaveChanges(touching entity: NSEntityDescription) -> Bool {
        var ancestor = parent
        while let context = ancestor {
            let touched = context.performAndWait {
                let related = { (object: NSManagedObject) in object.entity.isKindOf(entity: entity) }
                return context.insertionOrder.contains(where: { $0.inserted && related($0) }) || context.updatedSet.values.contains(where: related)
                    || context.deletedSet.values.contains(where: related)
            }
            if touched { return true }
            ancestor = context.parent
        }
        return false
    }

    /// The state of one object as the nearest ancestor that changed it holds it, or nil when no ancestor did.
    func inheritedState(for id: NSManagedObjectID) -> InheritedState? {
        var ancestor = parent
        while let context = ancestor {
            if let state = context.performAndWait({ context.changedState(for: id) }) { return state }
            ancestor = context.parent
        }
        return nil
    }

    /// Adds this context's unsaved changes to objects of `entity` to `changes`, leaving IDs a nearer context
    /// already gave alone.
    private func collectChanges(touching entity: NSEntityDescription, into changes: inout InheritedChanges) {
        func related(_ object: NSManagedObject) -> Bool { object.entity.isKindOf(entity: entity) && !changes.has(object.objectID) }
        for object in insertionOrder where object.inserted && related(object) { changes.add(state(of: object)) }
        for object in updatedSet.values where !object.inserted && !object.deleted && related(object) { changes.add(state(of: object)) }
        for object in deletedSet.values where !object.inserted && related(object) {
            changes.add(InheritedState(id: object.objectID, entity: object.entity, isDeleted: true, values: [], committed: nil, version: 0))
        }
    }

    /// This context's state for `id` when it has unsaved changes to that object.
    private func changedState(for id: NSManagedObjectID) -> InheritedState? {
        guard let object = registeredObject(for: id) else { return nil }
        if object.deleted {
            return InheritedState(id: id, entity: object.entity, isDeleted: true, values: [], committed: nil, version: 0)
        }
        guard object.inserted || !object.changedSlots.isEmpty else { return nil }
        return state(of: object)
    }

    /// An object's values in a form any context can adopt: relationships as object IDs (a to-many that was
    /// never loaded stays nil), attributes as they are. Transient properties are left out: as Apple's, they live in
    /// the object that set them and are not part of what another context's object of the same ID starts with.
    private func state(of object: NSManagedObject) -> InheritedState {
        object.fireFaultIfNeeded()
        let layout = object.layout
        var values = [Any?](repeating: nil, count: layout.slotCount)
        for slot in 0..<layout.slotCount where !layout.transientSlots[slot] {
            switch layout.slotKinds[slot] {
            case .toOne:
                values[slot] = object.toOneObject(slot: slot)?.objectID
            case .toMany:
                values[slot] = (object.slots[slot] as? ToManyStorage)?.objects.map(\.objectID)
            case .attribute, .other:
                values[slot] = object.slots[slot]
            }
        }
        return InheritedState(id: object.objectID, entity: object.entity, isDeleted: false, values: values,
                              committed: object.committed, version: object.version)
    }

    /// Fills `object` (one of this context's) with an ancestor's state, as saved and unchanged here.
    func adopt(_ state: InheritedState, into object: NSManagedObject) {
        let layout = object.layout
        var values = [Any?](repeating: nil, count: layout.slotCount)
        for slot in 0..<min(layout.slotCount, state.values.count) {
            switch layout.slotKinds[slot] {
            case .toOne:
                values[slot] = (state.values[slot] as? NSManagedObjectID).map { self.object(with: $0) }
            case .toMany:
                values[slot] = (state.values[slot] as? [NSManagedObjectID]).map { ids in ToManyStorage(ids.map { self.object(with: $0) }) }
            case .attribute, .other:
                values[slot] = state.values[slot]
            }
        }
        object.slots = values
        object.committed = state.committed ?? []
        object.version = state.version
        object.changedSlots = []
        object.invalidSlots = []
        object.faulted = false
    }

    /// This context's object for an ancestor's state: the registered one (adopting the state when it is still a
    /// fault), or a new one.
    func adoptedObject(_ state: InheritedState) -> NSManagedObject {
        let object = self.object(with: state.id)
        if object.faulted {
            adopt(state, into: object)
            object.awakeFromFetchWithoutRecording()
        }
        return object
    }

    // MARK: Saving into the parent

    /// Pushes validated changes into `parent`, on the parent's queue: inserted objects become inserted there
    /// (with the same IDs), changed values replace the parent's, deleted objects are deleted there.
    /// - Throws: 133000, before the parent changes, when a changed object or a relationship destination has a
    ///   temporary ID the parent no longer knows (an object of this context that the parent saved or dropped
    ///   after this context read it).
    func push(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], into parent: NSManagedObjectContext) throws {
        try parent.performAndWait {
            // A child's save is not one of the parent's own changes: it is not registered for the parent's undo.
            parent.undoRecorder?.suspensions += 1
            defer { parent.undoRecorder?.suspensions -= 1 }
            let pushed = Set(inserted.map(ObjectIdentifier.init))
            func checkKnown(_ object: NSManagedObject) throws {
                guard !pushed.contains(ObjectIdentifier(object)), let id = object.assignedID, id.isTemporaryID,
                      parent.registeredObject(for: id) == nil else { return }
                throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                         "The parent context no longer has the unsaved object \(id.uriRepresentation().absoluteString) (\(object.entity.name ?? "")); it was saved or removed there after this context read it. Fetch it again in this context.")
            }
            for object in updated + deleted { try checkKnown(object) }
            for object in inserted + updated {
                for slot in object.changedSlots.sorted() {
                    switch object.layout.slotKinds[slot] {
                    case .toOne: if let target = object.slots[slot] as? NSManagedObject { try checkKnown(target) }
                    case .toMany: for target in (object.slots[slot] as? ToManyStorage)?.objects ?? [] { try checkKnown(target) }
                    case .attribute, .other: continue
                    }
                }
            }
            parent.receivesChildSaves = true
            var counterparts: [ObjectIdentifier: NSManagedObject] = [:]
            func counterpart(_ object: NSManagedObject) -> NSManagedObject {
                if let known = counterparts[ObjectIdentifier(object)] { return known }
                let found = parent.object(with: object.objectID)
                counterparts[ObjectIdentifier(object)] = found
                return found
            }
            func parentValue(_ object: NSManagedObject, slot: Int) -> Any? {
                switch object.layout.slotKinds[slot] {
                case .toOne:
                    return object.toOneObject(slot: slot).map(counterpart)
                case .toMany:
                    return (object.slots[slot] as? ToManyStorage).map { ToManyStorage($0.objects.map(counterpart)) }
                case .attribute, .other:
                    return object.slots[slot]
                }
            }
            for object in inserted {
                let copy = parent.makeObject(entity: object.entity)
                copy.assignedID = object.objectID
                copy.faulted = false
                counterparts[ObjectIdentifier(object)] = copy
                if let store = assignedStores[ObjectIdentifier(object)] { parent.assignedStores[ObjectIdentifier(copy)] = store }
            }
            for object in inserted {
                guard let copy = counterparts[ObjectIdentifier(object)] else { continue }
                for slot in 0..<object.layout.slotCount { copy.slots[slot] = parentValue(object, slot: slot) }
                copy.changedSlots = object.changedSlots
                copy.invalidSlots = object.invalidSlots
                parent.adoptInsertion(of: copy)
            }
            for object in updated {
                let copy = counterpart(object)
                copy.fireFaultIfNeeded()
                for slot in object.changedSlots.sorted() {
                    copy.slots[slot] = parentValue(object, slot: slot)
                    copy.noteChange(slot: slot)
                }
                for slot in object.invalidSlots.sorted() { copy.invalidSlots.insert(slot) }
            }
            for object in deleted {
                parent.delete(counterpart(object))
            }
        }
    }

    /// Records an object pushed by a child as inserted here, without running `awakeFromInsert` again.
    private func adoptInsertion(of object: NSManagedObject) {
        guard !object.inserted else { return }
        object.deleted = false
        recordInsertion(object)
    }
}

/// One object as an ancestor context holds it, unsaved: deleted, or its values with relationships as IDs.
struct InheritedState {
    let id: NSManagedObjectID
    let entity: NSEntityDescription
    let isDeleted: Bool
    /// One value per slot: attributes as held, a to-one as its `NSManagedObjectID`, a to-many as
    /// `[NSManagedObjectID]` (nil when the ancestor never loaded it).
    let values: [Any?]
    let committed: [Any?]?
    let version: Int64
}

/// Every ancestor's unsaved changes, nearest ancestor first.
struct InheritedChanges {
    private(set) var states: [NSManagedObjectID.Identity: InheritedState] = [:]
    /// The states in the order they were found (inserted objects in insertion order).
    private(set) var ordered: [InheritedState] = []

    var isEmpty: Bool { ordered.isEmpty }

    /// Whether a nearer context already gave the state of `id`.
    func has(_ id: NSManagedObjectID) -> Bool { states[id.identity] != nil }

    mutating func add(_ state: InheritedState) {
        guard states[state.id.identity] == nil else { return }
        states[state.id.identity] = state
        ordered.append(state)
    }

    /// Whether any change concerns objects of `entity` (or of its subentities).
    func touches(_ entity: NSEntityDescription) -> Bool {
        ordered.contains { $0.entity.isKindOf(entity: entity) }
    }
}

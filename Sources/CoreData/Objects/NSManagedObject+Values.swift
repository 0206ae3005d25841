/// Reading and writing slots: the public forms of values, faults, change recording and relationships with
/// their inverses.
extension NSManagedObject {
    /// Loads the object's values if it is a fault.
    @inline(__always)
    func fireFaultIfNeeded() {
        guard faulted else { return }
        if let context = managedObjectContext { context.fulfillFault(of: self) } else { fireDetachedSnapshotFault() }
    }

    /// The stored value of an attribute slot (its fault loaded first), or nil for another kind of slot or no value.
    @usableFromInline
    func storedAttributeValue(slot: Int) -> Any? {
        fireFaultIfNeeded()
        guard case .attribute = layout.slotKinds[slot] else { return nil }
        return slots[slot]
    }

    /// Loads the object's values if it is a fault, and tells whether values may be read in place
    /// (`storedValue(slot:ofExactType:)`): false, leaving a fault alone, when the existential layout is not the one
    /// `ExistentialPayload` reads, and every read takes the cast.
    @usableFromInline
    func prepareInPlaceRead() -> Bool {
        guard ExistentialPayload.layoutIsAsExpected else { return false }
        fireFaultIfNeeded()
        return true
    }

    /// The value in `slot` when it is of exactly `T`, copied out of the `Any?` that holds it in the slot array,
    /// without the runtime's dynamic cast; nil otherwise (another type, a subclass, an optional, nil). For types
    /// stored inline in an existential container only (`ExistentialPayload.isStoredInline`), and only after
    /// `prepareInPlaceRead()` returned true (the fault is loaded; this does not load it).
    ///
    /// Inlined into the `@Managed` getter, and so into the app's code, specialized for `T`: one load of the slot
    /// array, a bounds check, a comparison of the container's type word and a copy of the value; no call, no
    /// exclusivity check (`slots` is unchecked), and no retain of the slot array, which the object holds throughout.
    ///
    /// The slot's kind is not looked at: a value of exactly the property's type is what every read path returns
    /// for it, an attribute's stored value as a to-one's object, as `@Managed`'s cast did before.
    @inlinable
    func storedValue<T>(slot: Int, ofExactType type: T.Type) -> T? {
        slots.withUnsafeBufferPointer { buffer in
            guard slot < buffer.count, let base = buffer.baseAddress else { return nil }
            let container = UnsafeRawPointer(base + slot)
            guard ExistentialPayload.holds(container, exactly: T.self) else { return nil }
            return container.load(as: T.self)
        }
    }

    /// Stores `value`, whose type is `type`, in an attribute slot that stores values of exactly that type, and
    /// records the change, as `setValue(_:slot:)` would; returns false without doing anything for any other
    /// slot, so the caller takes the converting path.
    @usableFromInline
    func setStoredAttribute(_ value: Any, of type: Any.Type, slot: Int) -> Bool {
        guard let storageType = layout.storageTypes[slot], storageType == type else { return false }
        fireFaultIfNeeded()
        willChangeSlotForUndo(slot)
        copySharedSlots()
        if !storeBitwise(value, slot: slot) { slots[slot] = value }
        if !invalidSlots.isEmpty { invalidSlots.remove(slot) }
        noteChange(slot: slot)
        return true
    }

    /// Stores `value` in `slot` by copying its existential container's bytes, when the slot's storage type is
    /// trivially copyable and stored inline (`EntityLayout.bitwiseCopyableTypes`), `value` is of exactly that type,
    /// and the slot holds nil or a value of that type (nothing to release): the container's bytes are then the whole
    /// value, as `SlotArrayCopy` relies on. Returns false, storing nothing, in every other case (and where
    /// `ExistentialPayload.layoutIsAsExpected` is false), for the caller's ordinary assignment, which stores the same
    /// value through the runtime's value witnesses (a destroy of the old value and a copy of the new one, through
    /// their type metadata: about a sixth of a property set's instructions).
    @inline(__always)
    private func storeBitwise(_ value: Any, slot: Int) -> Bool {
        guard ExistentialPayload.layoutIsAsExpected, slot < layout.bitwiseCopyableTypes.count,
              let type = layout.bitwiseCopyableTypes[slot] else { return false }
        let typeWordOffset = ExistentialPayload.typeWordOffset
        return withUnsafePointer(to: value) { source in
            let source = UnsafeRawPointer(source)
            guard source.load(fromByteOffset: typeWordOffset, as: UnsafeRawPointer?.self) == type else { return false }
            return slots.withUnsafeMutableBufferPointer { buffer in
                guard slot < buffer.count, let base = buffer.baseAddress else { return false }
                let target = UnsafeMutableRawPointer(base + slot)
                let held = target.load(fromByteOffset: typeWordOffset, as: UnsafeRawPointer?.self)
                guard held == nil || held == type else { return false }
                target.copyMemory(from: source, byteCount: MemoryLayout<Any>.size)
                return true
            }
        }
    }

    /// Before a write to `slots`: when the array is still shared with the layout's templates or the committed values
    /// (the write would copy it), copies it bit for bit where it can (`SlotArrayCopy`), else leaves the write to copy
    /// it. Three comparisons of storage addresses when it is not shared. (A snapshot fault's committed values, which
    /// it does not hold itself, are never its slots: those are the layout's empty array until it fills.)
    @inline(__always)
    func copySharedSlots() {
        let shared = slots.sharesStorage(with: layout.defaultSlots) || slots.sharesStorage(with: layout.emptySlots)
            || ownCommitted?.sharesStorage(with: slots) == true
        guard shared, let copy = SlotArrayCopy.bitwiseCopy(of: slots, layout: layout) else { return }
        slots = copy
    }

    /// The value of a slot in Apple's public form.
    func publicValue(slot: Int) -> Any? {
        switch layout.slotKinds[slot] {
        case .attribute(.compositeAttributeType):
            guard let composite = layout.allProperties[slot] as? NSCompositeAttributeDescription,
                  let value = slots[slot] as? [String: Any] else { return slots[slot] }
            return CompositeAttributeValue.publicForm(value, of: composite)
        case .attribute(let type):
            return slots[slot].map { Self.publicForm($0, type) }
        case .toOne:
            return toOneObject(slot: slot)
        case .toMany:
            let objects = toManyObjects(slot: slot)
            let ordered = (layout.allProperties[slot] as? NSRelationshipDescription)?.isOrdered ?? false
            return ordered ? NSOrderedSet(array: objects) : Set(objects)
        case .other:
            if let fetched = layout.allProperties[slot] as? NSFetchedPropertyDescription { return fetchedPropertyValue(slot: slot, fetched) }
            return slots[slot]
        }
    }

    /// Numbers as `NSNumber` and decimals as `NSDecimalNumber`, as Apple's `value(forKey:)` returns them.
    static func publicForm(_ value: Any, _ attribute: NSAttributeDescription) -> Any {
        publicForm(value, attribute.attributeType)
    }

    /// Numbers as `NSNumber` and decimals as `NSDecimalNumber`, for an attribute of `type`
    /// (`AttributeValueCoercion.publicForm(_:_:)`, which composite values use too).
    @inline(__always)
    static func publicForm(_ value: Any, _ type: NSAttributeType) -> Any {
        AttributeValueCoercion.publicForm(value, type)
    }

    /// Stores an attribute value, converted to the attribute's type when possible, and records the change; a
    /// value that cannot be converted is kept and reported by validation when saving.
    func storeAttribute(converting value: Any?, type: NSAttributeType, slot: Int) {
        willChangeSlotForUndo(slot)
        let converted: Any??
        if type == .compositeAttributeType, let composite = layout.allProperties[slot] as? NSAttributeDescription {
            converted = AttributeValueCoercion.coerce(value, for: composite)
        } else {
            converted = AttributeValueCoercion.coerce(value, to: type)
        }
        copySharedSlots()
        if let converted {
            slots[slot] = converted
            if !invalidSlots.isEmpty { invalidSlots.remove(slot) }
        } else {
            slots[slot] = value
            invalidSlots.insert(slot)
        }
        noteChange(slot: slot)
    }

    /// After a save wrote this updated object, makes `committed` the written row by copying the changed slots
    /// into it, in place. Only for objects whose slot array is their row (`layout.slotsAreRow`) and that have
    /// committed values: there every slot outside `changedSlots` already holds its committed value, because
    /// each write to such a slot records a change and every reload (fill, merge) sets both together.
    func commitChangedSlots() {
        for slot in changedSlots where slot < slots.count { committed?[slot] = slots[slot] }
    }

    /// Records that a slot changed, and tells the context the object is updated (an inserted object already
    /// reported as inserted is reported as updated by the next change notification).
    func noteChange(slot: Int) {
        // Only while some context runs an `awakeFromFetch` or calls `willSave` is the (weak) context loaded to ask
        // what it is doing: a plain property set loads no weak reference for it.
        if ChangeRecordingHooks.any, let context = managedObjectContext {
            if context.suspendsChangeRecording { return commitChangeFromAwake(slot: slot) }
            context.changedDuringWillSave?.append(self)
        }
        changedSlots.insert(slot)
        // An inserted object its context already reports as inserted needs nothing more (an update of it is
        // reported as the insert), so a run of sets on a new object loads no weak reference.
        if inserted && pendingChanges.contains(.inserted) { return }
        if !inserted && !deleted {
            managedObjectContext?.noteUpdated(self)
        } else if pendingChanges.isEmpty || pendingOwner != managedObjectContext.map(ObjectIdentifier.init) {
            managedObjectContext?.notePending(self, .updated)
        }
    }

    /// A value set inside `awakeFromFetch`: the object's as fetched, not a change (Apple's rule). It becomes the
    /// committed value, in store form (a transformable one as its data).
    private func commitChangeFromAwake(slot: Int) {
        guard slot < (committed?.count ?? 0), layout.isStoredSlot[slot] else { return }
        if layout.slotKinds[slot] == .attribute(.transformableAttributeType) {
            guard let attribute = layout.allProperties[slot] as? NSAttributeDescription else { return }
            if let value = slots[slot] {
                // A value no transformer here can store keeps the stored data.
                if let data = try? TransformableStorage.data(for: value, attribute: attribute) { committed?[slot] = data }
            } else {
                committed?[slot] = nil
            }
        } else {
            committed?[slot] = slots[slot]
        }
    }

    /// Tells the context's undo record that a slot is about to change, so the value it holds now can be put
    /// back (see `ObjectGraphUndoRecorder`). Without a context of the process having an undo manager this is
    /// one load of a count: no context is asked.
    @inline(__always)
    func willChangeSlotForUndo(_ slot: Int) {
        guard UndoCapturingContexts.any else { return }
        recordSlotForUndo(slot)
    }

    @inline(never)
    private func recordSlotForUndo(_ slot: Int) {
        // Values set in `awakeFromFetch` are not changes (see `noteChange(slot:)`), so there is nothing to undo.
        guard let context = managedObjectContext, let recorder = context.undoRecorder, !context.suspendsChangeRecording else { return }
        recorder.captureSlot(slot, of: self)
    }

    /// Calls `awakeFromFetch()` with change recording suspended, so that values it sets (transient caches, as
    /// Apple's documentation suggests) neither dirty the object nor its context.
    func awakeFromFetchWithoutRecording() {
        awakeFromFetchWithoutRecording(in: managedObjectContext)
    }

    /// `awakeFromFetchWithoutRecording()` for an object whose context is `context`, given by a caller that has it,
    /// so the object's weak reference to its context is not loaded (a context filling its own faults calls
    /// `NSManagedObjectContext.awakeFromFetchWithoutRecording(_:)`).
    func awakeFromFetchWithoutRecording(in context: NSManagedObjectContext?) {
        if let context { return context.awakeFromFetchWithoutRecording(self) }
        changesFaultState = true
        defer { changesFaultState = false }
        awakeFromFetch()
    }

    /// Managed objects in any collection form a user may pass for a to-many value.
    func managedObjects(in value: Any?) -> [NSManagedObject] {
        switch value {
        case nil: return []
        case let array as [NSManagedObject]: return array
        case let set as Set<NSManagedObject>: return Array(set)
        case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        case let array as NSArray: return array.compactMap { $0 as? NSManagedObject }
        case let sequence as any Sequence: return sequence.compactMap { $0 as? NSManagedObject }
        default: return []
        }
    }

    /// Whether every object is of the relationship's destination entity (or a subentity).
    func fits(_ objects: [NSManagedObject], _ relationship: NSRelationshipDescription) -> Bool {
        guard let destination = relationship.destinationEntity else { return true }
        return objects.allSatisfy { $0.entity.isKindOf(entity: destination) }
    }

    /// The number of elements of a collection value, or -1 for a value that is not a collection.
    func elementCount(of value: Any?) -> Int {
        switch value {
        case let ordered as NSOrderedSet: return ordered.count
        case let set as NSSet: return set.count
        case let array as NSArray: return array.count
        case let collection as any Collection: return collection.count
        default: return -1
        }
    }

    // MARK: To-one

    /// The destination of a to-one slot, looking it up in the context when only its key is known.
    func toOneObject(slot: Int) -> NSManagedObject? {
        switch slots[slot] {
        case let object as NSManagedObject: return object
        case let key as ObjectKey:
            let object = managedObjectContext?.object(for: key, near: self)
            slots[slot] = object
            return object
        default: return nil
        }
    }

    /// Sets a to-one relationship and keeps the inverse in step.
    func setToOne(slot: Int, relationship: NSRelationshipDescription, to target: NSManagedObject?) {
        let old = toOneObject(slot: slot)
        if old === target { return }
        if let old { unrelate(relationship, slot: slot, from: old) }
        if let target { relate(relationship, slot: slot, to: target) }
    }

    // MARK: To-many

    /// The storage of a to-many slot, loading the destinations from the store the first time. When the store
    /// cannot be read, the storage is empty and keeps the error (`ToManyStorage.readFailure`), which a save
    /// that depends on it throws; `refresh(_:mergeChanges:)` without merging lets the next access read again.
    func toManyStorage(slot: Int) -> ToManyStorage {
        if let storage = slots[slot] as? ToManyStorage { return storage }
        let storage: ToManyStorage
        do {
            storage = ToManyStorage(try loadedDestinations(slot: slot))
        } catch {
            storage = ToManyStorage(unreadBecause: error)
        }
        slots[slot] = storage
        return storage
    }

    /// The saved destinations of a to-many slot, as the context reads them; none outside a context.
    /// - Throws: the store's error.
    private func loadedDestinations(slot: Int) throws -> [NSManagedObject] {
        guard let relationship = layout.allProperties[slot] as? NSRelationshipDescription,
              let context = managedObjectContext else { return [] }
        return try context.loadToMany(of: self, relationship: relationship)
    }

    func toManyObjects(slot: Int) -> [NSManagedObject] { toManyStorage(slot: slot).objects }

    /// Replaces a to-many relationship's destinations and keeps the inverses in step.
    func setToMany(slot: Int, relationship: NSRelationshipDescription, to targets: [NSManagedObject]) {
        let storage = toManyStorage(slot: slot)
        let keep = Set(targets.map(ObjectIdentifier.init))
        for old in storage.objects where !keep.contains(ObjectIdentifier(old)) {
            unrelate(relationship, slot: slot, from: old)
        }
        for target in targets where !storage.contains(target) {
            relate(relationship, slot: slot, to: target)
        }
        if relationship.isOrdered, storage.objects.map(ObjectIdentifier.init) != targets.map(ObjectIdentifier.init) {
            willChangeSlotForUndo(slot)
            slots[slot] = ToManyStorage(targets, original: storage.original)
            noteChange(slot: slot)
        }
    }

    /// Adds `target` to a relationship (to-many) or makes it the destination (to-one), and updates the inverse.
    func relate(_ relationship: NSRelationshipDescription, slot: Int, to target: NSManagedObject, at index: Int? = nil) {
        if relationship.isToMany {
            let storage = toManyStorage(slot: slot)
            guard !storage.contains(target) else { return }
            willChangeSlotForUndo(slot)
            storage.insert(target, at: index)
        } else {
            willChangeSlotForUndo(slot)
            slots[slot] = target
        }
        noteChange(slot: slot)
        guard let inverse = relationship.inverseRelationship, let inverseSlot = target.layout.slotByName[inverse.name] else { return }
        target.fireFaultIfNeeded()
        if inverse.isToMany {
            let storage = target.toManyStorage(slot: inverseSlot)
            if !storage.contains(self) {
                target.willChangeSlotForUndo(inverseSlot)
                storage.insert(self)
                target.noteChange(slot: inverseSlot)
            }
        } else {
            let previous = target.toOneObject(slot: inverseSlot)
            if previous === self { return }
            // `previous` pointed at `target` through `relationship`; it no longer does.
            previous?.forget(target, in: relationship)
            target.willChangeSlotForUndo(inverseSlot)
            target.slots[inverseSlot] = self
            target.noteChange(slot: inverseSlot)
        }
    }

    /// Removes `target` from a relationship, and `self` from the inverse.
    func unrelate(_ relationship: NSRelationshipDescription, slot: Int, from target: NSManagedObject) {
        if relationship.isToMany {
            let storage = toManyStorage(slot: slot)
            guard storage.contains(target) else { return }
            willChangeSlotForUndo(slot)
            storage.remove(target)
        } else {
            guard toOneObject(slot: slot) === target else { return }
            willChangeSlotForUndo(slot)
            slots[slot] = nil
        }
        noteChange(slot: slot)
        if let inverse = relationship.inverseRelationship { target.forget(self, in: inverse) }
    }

    /// Removes `owner` from this object's `relationship` (to-many), or clears the relationship when it points at
    /// `owner` (to-one), recording the change; the inverse is the caller's business.
    func forget(_ owner: NSManagedObject, in relationship: NSRelationshipDescription) {
        guard let slot = layout.slotByName[relationship.name] else { return }
        fireFaultIfNeeded()
        if relationship.isToMany {
            let storage = toManyStorage(slot: slot)
            if storage.contains(owner) {
                willChangeSlotForUndo(slot)
                storage.remove(owner)
                noteChange(slot: slot)
            }
        } else if toOneObject(slot: slot) === owner {
            willChangeSlotForUndo(slot)
            slots[slot] = nil
            noteChange(slot: slot)
        }
    }

    /// Adds objects to a to-many relationship by name (an addition for generated accessors such as `addToItems`).
    public func addObjects(_ objects: [NSManagedObject], toRelationshipNamed key: String) {
        checkQueue("addObjects(_:toRelationshipNamed: \"\(key)\")")
        guard let slot = layout.slotByName[key], let relationship = layout.allProperties[slot] as? NSRelationshipDescription else { return }
        fireFaultIfNeeded()
        for object in objects { relate(relationship, slot: slot, to: object) }
    }

    /// Removes objects from a to-many relationship by name (an addition for generated accessors).
    public func removeObjects(_ objects: [NSManagedObject], fromRelationshipNamed key: String) {
        checkQueue("removeObjects(_:fromRelationshipNamed: \"\(key)\")")
        guard let slot = layout.slotByName[key], let relationship = layout.allProperties[slot] as? NSRelationshipDescription else { return }
        fireFaultIfNeeded()
        for object in objects { unrelate(relationship, slot: slot, from: object) }
    }
}

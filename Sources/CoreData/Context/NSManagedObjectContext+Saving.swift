/// The names of the notifications a context posts, with Apple's values.
public extension NSNotification.Name {
    /// Posted by a context after a save, with the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`; `mergeChanges(fromContextDidSave:)` applies it to
    /// another context.
    static let NSManagedObjectContextDidSave = NSNotification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted by a context when a save of changes begins: after pending changes are processed, before the
    /// objects' `willSave()` and validation. It carries no userInfo.
    static let NSManagedObjectContextWillSave = NSNotification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted by `processPendingChanges()` with what changed in the context since the last one (see
    /// `NSManagedObjectContext.didChangeObjectsNotification`).
    static let NSManagedObjectContextObjectsDidChange = NSNotification.Name("NSObjectsChangedInManagingContextNotification")
}

/// The objects inserted (`Set<NSManagedObject>`), in save and objects-did-change notifications. This key and
/// those below are the userInfo keys of those notifications, with Apple's values.
public let NSInsertedObjectsKey = "inserted"
/// The objects whose values changed (`Set<NSManagedObject>`).
public let NSUpdatedObjectsKey = "updated"
/// The objects deleted (`Set<NSManagedObject>`); in an objects-did-change notification also inserted objects
/// `rollback()` removed and objects a merge removed.
public let NSDeletedObjectsKey = "deleted"
/// The objects refreshed and not otherwise changed (`Set<NSManagedObject>`), in objects-did-change notifications.
public let NSRefreshedObjectsKey = "refreshed"
/// The objects invalidated (Apple's key; this package's notifications do not use it).
public let NSInvalidatedObjectsKey = "invalidated"
/// Present after `reset()`: the IDs (`[NSManagedObjectID]`) of the objects the context forgot.
public let NSInvalidatedAllObjectsKey = "invalidatedAll"

/// Saving: validation, permanent IDs, one change set per store, conflicts resolved by the merge policy.
extension NSManagedObjectContext {
    /// Writes every unsaved change to the stores, or for a child context into its parent.
    ///
    /// Objects are validated first (required values, value types, relationship counts, deny rules); failures
    /// throw 1550–1600 (1560 with `NSDetailedErrorsKey` for several) and nothing is written. Each store receives
    /// its changes as one atomic change set. Objects changed in a store since they were read are conflicts,
    /// resolved by `mergePolicy` or thrown as 133020 with the conflicts under "conflictList". Saving to a
    /// read-only store throws 134030. Pending changes are processed first (`processPendingChanges()`), so the
    /// objects-did-change notification comes before the will-save one. A context without changes does nothing.
    /// A child context's save pushes its changes into its parent, which saves them to the stores when it is
    /// saved itself. A context pinned to a query generation moves to the newest one when its save writes.
    public func save() throws {
        checkQueue("save()")
        remembersReportedChanges = true
        processPendingChanges()
        remembersReportedChanges = false
        defer { reportedChanges = nil }  // held for this save only
        guard hasChanges else { return }
        // What the save changes by itself (willSave, conflict resolution, a push into the parent) is not undone.
        undoRecorder?.suspensions += 1
        defer { undoRecorder?.suspensions -= 1 }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.operation("The context has no persistent store coordinator to save to.")
        }
        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        var (inserted, updated, deleted) = try callWillSave()
        updated.removeAll { $0.inserted || $0.deleted || $0.changedSlots.isEmpty }  // in place: the list is the save's own

        // One pass over each list (each pass over many objects is mostly cache misses): validation, and the
        // first unread relationship the save depends on, thrown after the validation errors.
        var errors: [NSError] = []
        var unread: Error?
        inserted.forEachBorrowed { _, object in collect(&errors) { try object.validateForInsert() } }
        updated.forEachBorrowed { _, object in
            if object.hasPersistentChangedValues { collect(&errors) { try object.validateForUpdate() } }
            if unread == nil { unread = unreadRelationshipFailure(of: object, deleted: false) }
        }
        deleted.forEachBorrowed { _, object in
            collect(&errors) { try object.validateForDelete() }
            if unread == nil { unread = unreadRelationshipFailure(of: object, deleted: true) }
        }
        try throwCombined(errors)
        if let unread { throw unread }

        if let parent {
            let reported = reportedSets(inserted: inserted, updated: updated)
            try push(inserted: inserted, updated: updated, deleted: deleted, into: parent)
            for object in inserted where object.committed == nil { object.committed = [] }
            finishSave(inserted: inserted, updated: updated, deleted: deleted, reported: reported)
            return
        }

        // A model without uniqueness constraints has no conflicts to find: no pass over the changed objects.
        if coordinator.managedObjectModel.entities.contains(where: \.layout.hasUniquenessConstraints),
           try resolveUniquenessConflicts(policy: NSMergePolicy.resolve(mergePolicy)) {
            inserted = insertionOrder.filter { $0.inserted }
            deleted = inAddressOrder(deletedSet.values.filter { !$0.inserted })
            updated = inAddressOrder(updatedSet.values.filter { !$0.inserted && !$0.deleted && !$0.changedSlots.isEmpty })
        }

        let reported = reportedSets(inserted: inserted, updated: updated)
        // The store all inserted objects got their IDs in, when there is one: their plan's list then is `inserted`.
        let insertedStore = try givePermanentIDs(to: inserted, coordinator: coordinator)
        var plans: [ObjectIdentifier: StoreSavePlan] = [:]
        var lastPlan: (store: StoreIdentity, plan: StoreSavePlan)?  // objects mostly come in runs of one store
        func plan(for object: NSManagedObject) throws -> StoreSavePlan {
            if let lastPlan, let identity = object.assignedStoreIdentity, identity === lastPlan.store { return lastPlan.plan }
            let found = try findPlan(for: object)
            if let identity = object.assignedStoreIdentity { lastPlan = (identity, found) }
            return found
        }
        func findPlan(for object: NSManagedObject) throws -> StoreSavePlan {
            guard let store = object.assignedStoreIdentity?.handle as? NSPersistentStore else {
                throw CoreDataError.saveFailed("object \(object.objectID.uriRepresentation().absoluteString) belongs to no added store")
            }
            return try findPlan(forStore: store)
        }
        func findPlan(forStore store: NSPersistentStore) throws -> StoreSavePlan {
            if let existing = plans[ObjectIdentifier(store)] { return existing }
            guard !store.isReadOnly else {
                throw CoreDataError.saveFailed("the store at \(store.url?.path ?? "") was added read-only",
                                               underlying: nil)
            }
            let created = StoreSavePlan(store: store)
            plans[ObjectIdentifier(store)] = created
            return created
        }
        /// Puts each of `objects` that `include` accepts into `list` of its store's plan. When every object is
        /// accepted and goes to one plan (one store, the usual case), that plan's list is `objects` itself: its buffer
        /// is shared, with no reference per object taken and dropped again.
        func distribute(_ objects: [NSManagedObject], into list: ReferenceWritableKeyPath<StoreSavePlan, [NSManagedObject]>,
                        where include: (NSManagedObject) -> Bool = { _ in true }) throws {
            var single: StoreSavePlan?
            var sharing = true  // every object so far accepted, each going to `single`
            try objects.forEachBorrowed { index, object in
                guard include(object) else {
                    if sharing { sharing = false; single?[keyPath: list].append(contentsOf: objects[..<index]) }
                    return
                }
                let target = try plan(for: object)
                if sharing {
                    if single == nil { single = target }
                    if single === target { return }
                    sharing = false
                    single?[keyPath: list].append(contentsOf: objects[..<index])
                }
                target[keyPath: list].append(object)
            }
            if sharing, let single { single[keyPath: list] = objects }
        }
        if let insertedStore, !inserted.isEmpty {
            try findPlan(forStore: insertedStore).inserted = inserted
        } else {
            try distribute(inserted, into: \.inserted)
        }
        try distribute(updated, into: \.updated, where: \.hasPersistentChangedValues)
        try distribute(deleted, into: \.deleted)
        for store in coordinator.persistentStores where plans[ObjectIdentifier(store)] == nil && store.hasPendingMetadata {
            plans[ObjectIdentifier(store)] = StoreSavePlan(store: store)
        }

        let orderedPlans = plans.values.sorted(by: { $0.order < $1.order })
        // Written objects take their written rows as committed values once no write of the save can fail any more:
        // the last plan's in the same pass that gives them their versions (one walk of its objects fewer), the
        // others' after it.
        for (position, plan) in orderedPlans.enumerated() {
            try write(plan, coordinator: coordinator, committing: position == orderedPlans.count - 1)
        }
        for plan in orderedPlans.dropLast() { plan.commitWrittenObjects() }
        var derived: [NSManagedObject] = []
        for plan in orderedPlans where !plan.derivedValues.isEmpty {
            derived += applyDerivedValues(plan.derivedValues, from: plan.store)
        }
        if !derived.isEmpty {
            // Objects the save wrote are already in the notification.
            let saved = Set((inserted + updated + deleted).map(ObjectIdentifier.init))
            derived = derived.filter { !saved.contains(ObjectIdentifier($0)) }
        }
        // A pinned context moves to the generation its save made; the did-save notification names it.
        let generation = advanceQueryGenerationPastSave()
        // A deletion the rollback policy undid stays in the context.
        finishSave(inserted: inserted, updated: updated, deleted: deleted.filter(\.deleted), derived: derived,
                   reported: reported, queryGeneration: generation, historyToken: historyToken(after: orderedPlans, coordinator: coordinator))
    }

    /// The history token right after a save, for its did-save notification (Apple's `newChangeToken`): of the
    /// stores it wrote that record history; nil when none does.
    private func historyToken(after plans: [StoreSavePlan], coordinator: NSPersistentStoreCoordinator) -> NSPersistentHistoryToken? {
        let recording = plans.map(\.store).filter { ($0.backend as? PersistentHistoryBackend)?.recordsHistory == true }
        return recording.isEmpty ? nil : coordinator.currentPersistentHistoryToken(fromStores: recording)
    }

    /// The sets of `inserted` and `updated` (the save's final lists) for the did-save notification, where the
    /// save's objects-did-change notification reported exactly those objects (`ReportedChanges`); nil for a set
    /// `finishSave` builds. Called once the lists are final, before the save writes to the change tables.
    private func reportedSets(inserted: [NSManagedObject], updated: [NSManagedObject]) -> (inserted: Set<NSManagedObject>?, updated: Set<NSManagedObject>?) {
        guard let reportedChanges else { return (nil, nil) }
        return (reportedChanges.set(of: \.inserted, inserted, writes: changeTableWrites),
                reportedChanges.set(of: \.updated, updated, writes: changeTableWrites))
    }

    /// The store's error for a to-many relationship whose saved destinations could not be read, when the save
    /// would write it (an updated object's changed relationship) or relied on it (a deleted object, whose
    /// delete rules walked it): the save throws it before anything is written. Nil when there is none.
    private func unreadRelationshipFailure(of object: NSManagedObject, deleted: Bool) -> Error? {
        for slot in object.layout.toManySlots where deleted || object.changedSlots.contains(slot) {
            if let error = (object.slots[slot] as? ToManyStorage)?.readFailure { return error }
        }
        return nil
    }

    /// `objects` sorted by their addresses in memory. The updated and deleted tables iterate in hash order,
    /// which jumps about the heap; a save then walks its lists many times (will-save, validation, planning,
    /// the change set, versions, marking saved, did-save, the notification's sets), and over many objects each
    /// walk in hash order is mostly cache misses, the more so the more objects there are. Objects made one after
    /// another (a fetch's) mostly lie in memory in that order, so walks in address order read forward. Sorting
    /// compares the references only, without touching the objects. The order of the `willSave` and `didSave`
    /// calls among updated or deleted objects is unspecified either way.
    /// The list is taken over and sorted in place (no copy of it, and no second reference to each object).
    private func inAddressOrder(_ objects: consuming [NSManagedObject]) -> [NSManagedObject] {
        if objects.count > 1 { objects.sort { ObjectIdentifier($0) < ObjectIdentifier($1) } }
        return objects
    }

    private func collect(_ errors: inout [NSError], _ body: () throws -> Void) {
        do { try body() } catch let error as NSError { errors.append(error) }
    }

    /// Calls `willSave` on every changed object: inserted, then updated, then deleted. As Apple documents, a
    /// `willSave` that changes values through accessors makes the save call `willSave` again: further rounds call
    /// it on each object whose values changed in the round before, and on each object that became part of the save
    /// (inserted, deleted or changed) without having had it, until a round changes nothing.
    ///
    /// Returns the changed objects as they are after the calls, updated ones with or without changed slots: the
    /// lists the first round walked when no `willSave` changed anything (the usual case, and then no second pass
    /// over the tables and no second sort), else taken again.
    /// - Throws: 134060 when `willSave` still changes objects after `maximumWillSaveRounds` rounds (Apple's
    ///   documentation warns that a `willSave` setting a value without comparing it first loops forever).
    private func callWillSave() throws -> (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        let inserted = stillInsertedObjects()
        let updated = inAddressOrder(updatedSet.values.filter { !$0.inserted && !$0.deleted })
        let deleted = inAddressOrder(deletedSet.values.filter { !$0.inserted })
        let writes = changeTableWrites
        changedDuringWillSave = []
        ChangeRecordingHooks.begin()
        defer {
            ChangeRecordingHooks.end()
            changedDuringWillSave = nil
        }
        inserted.forEachBorrowed { _, object in object.willSave() }
        updated.forEachBorrowed { _, object in object.willSave() }
        deleted.forEachBorrowed { _, object in object.willSave() }
        guard changeTableWrites != writes || changedDuringWillSave?.isEmpty == false else { return (inserted, updated, deleted) }
        try callWillSaveAgain(after: [inserted, updated, deleted])
        return (stillInsertedObjects(),
                inAddressOrder(updatedSet.values.filter { !$0.inserted && !$0.deleted }),
                inAddressOrder(deletedSet.values.filter { !$0.inserted }))
    }

    /// How many rounds of `willSave` calls a save makes at most before it gives up (see `callWillSave`).
    static let maximumWillSaveRounds = 100

    /// The rounds of `willSave` calls after the first, which called it on `firstRound`'s objects.
    private func callWillSaveAgain(after firstRound: [[NSManagedObject]]) throws {
        var called = Set<ObjectIdentifier>()
        for list in firstRound { for object in list { called.insert(ObjectIdentifier(object)) } }
        for _ in 2...Self.maximumWillSaveRounds {
            let due = objectsDueWillSave(called: called)
            if due.isEmpty { return }
            for object in due {
                called.insert(ObjectIdentifier(object))
                object.willSave()
            }
        }
        let stillDue = objectsDueWillSave(called: called)
        guard stillDue.isEmpty else {
            let entities = Set(stillDue.compactMap { $0.entity.name }).sorted()
            throw CoreDataError.make(NSCoreDataError, "willSave() still changed objects (\(entities.joined(separator: ", "))) after \(Self.maximumWillSaveRounds) rounds of calls; a willSave() that sets a value should first check that the value differs, or it is called again without end.")
        }
    }

    /// The objects the next round of `willSave` calls: those changed since the last round (taken from
    /// `changedDuringWillSave`, which starts empty again), then those inserted or deleted since without having had a
    /// call; only objects still part of the save, each once.
    private func objectsDueWillSave(called: Set<ObjectIdentifier>) -> [NSManagedObject] {
        var candidates = changedDuringWillSave ?? []
        changedDuringWillSave = []
        candidates += stillInsertedObjects().filter { !called.contains(ObjectIdentifier($0)) }
        candidates += inAddressOrder(deletedSet.values.filter { !called.contains(ObjectIdentifier($0)) })
        var seen = Set<ObjectIdentifier>()
        return candidates.filter { object in
            object.managedObjectContext === self && (object.inserted || object.deleted || !object.changedSlots.isEmpty)
                && seen.insert(ObjectIdentifier(object)).inserted
        }
    }

    /// The objects of the insertion list that are still inserted, in insertion order. When the list holds as many
    /// objects as are inserted, every one of them is (each inserted object is listed and counted once), and the
    /// list itself is returned: its buffer is shared, with no reference per object taken and dropped again.
    private func stillInsertedObjects() -> [NSManagedObject] {
        insertionOrder.count == insertedCount ? insertionOrder : insertionOrder.filter(\.inserted)
    }

    /// Writes one store's part of the save. The coordinator holds its lock while it builds the change set,
    /// applies it and, on a version conflict, has the merge policy resolve it (`resolveVersionConflict`) and
    /// tries again: no other save through the coordinator writes in between, so every policy but
    /// `NSErrorMergePolicy` ends in a write. With `committing`, each written object also takes its written row as its
    /// committed values (`StoreSavePlan.commit`), in the same walk.
    private func write(_ plan: StoreSavePlan, coordinator: NSPersistentStoreCoordinator, committing: Bool) throws {
        let policy = NSMergePolicy.resolve(mergePolicy)
        var writtenMetadata: NSPersistentStore.PendingMetadata?
        let (result, snapshots) = try coordinator.applyChanges(to: plan.store, building: {
            let pending = plan.store.peekPendingMetadata()
            writtenMetadata = pending
            return try transaction(for: plan, metadata: pending)
        }, resolvingConflicts: { try resolveVersionConflict($0, in: plan, policy: policy) })
        plan.store.clearPendingMetadata(written: writtenMetadata)
        plan.derivedValues = result.derivedValues
        // Each written object holds the row cache's snapshot of what it wrote, so other contexts' faults of it
        // find that row while the object lives. The snapshots come in change-set order, as the objects do (an
        // object without a stored key, which a save with permanent IDs never has, is not written and not here).
        // The objects are lent by their lists (no reference taken per object). An object commits after it holds its
        // new snapshot: the snapshot it let go of may have shared its committed array (a fetched object's does), which
        // is then written in place rather than copied.
        let inserted = snapshots.inserted, updated = snapshots.updated
        let insertedCommits = plan.insertedCommits, updatedCommits = plan.updatedCommits
        plan.writtenInserted.forEachBorrowed { index, object in
            if index < inserted.count {
                let snapshot = inserted[index]
                object.version = snapshot?.version ?? object.storedObjectKey.flatMap { result.versions[$0] } ?? 1
                object.holdSavedSnapshot(snapshot)
                markChangedToManyWritten(object)
            }
            if committing { object.committed = insertedCommits[index] }
        }
        plan.writtenUpdated.forEachBorrowed { index, object in
            if index < updated.count {
                let snapshot = updated[index]
                object.version = snapshot?.version ?? object.storedObjectKey.flatMap { result.versions[$0] } ?? object.version + 1
                object.holdSavedSnapshot(snapshot)
                markChangedToManyWritten(object)
            }
            if committing { StoreSavePlan.commit(updatedCommits[index], to: object) }
        }
    }

    /// Makes the written destinations of the object's changed to-many relationships their new baseline.
    private func markChangedToManyWritten(_ object: NSManagedObject) {
        for slot in object.layout.toManySlots where object.changedSlots.contains(slot) {
            (object.slots[slot] as? ToManyStorage)?.markWritten()
        }
    }

    /// One attempt's change set for `plan`, with the store's pending metadata and who is saving.
    private func transaction(for plan: StoreSavePlan, metadata: NSPersistentStore.PendingMetadata?) throws -> StoreChangeSet {
        var changes = try changeSet(for: plan)
        changes.metadata = metadata?.values
        changes.transaction = StoreTransactionInfo(author: transactionAuthor, contextName: name,
                                                   bundleID: Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName,
                                                   processID: String(ProcessInfo.processInfo.processIdentifier))
        return changes
    }

    /// A value read from a store as the object holds it: transformable data turned back into its value.
    func decodedStoreValue(_ value: Any?, type: NSAttributeType, slot: Int, of object: NSManagedObject) -> Any? {
        guard type == .transformableAttributeType, let data = value as? Data,
              let attribute = object.layout.allProperties[slot] as? NSAttributeDescription else { return value }
        return TransformableStorage.value(from: data, attribute: attribute)
    }

    /// The change set for one store's part of the save; the plan's `writtenInserted` and `writtenUpdated` list
    /// the objects of its inserted and updated rows in the same order.
    private func changeSet(for plan: StoreSavePlan) throws -> StoreChangeSet {
        var changes = StoreChangeSet()
        let store = plan.store, planInserted = plan.inserted
        changes.inserted.reserveCapacity(planInserted.count)
        // The written inserted objects are the plan's own list (its buffer shared, no reference per object) unless an
        // object has no key; then they are copied from the first such object on. The objects are lent by the list.
        var writtenInserted: [NSManagedObject]?
        var insertedCommits: [[Any?]] = []
        insertedCommits.reserveCapacity(planInserted.count)
        try planInserted.forEachBorrowed { index, object in
            guard let key = object.storedObjectKey else {
                if writtenInserted == nil { writtenInserted = Array(planInserted[..<index]) }
                return
            }
            let values = try rowValues(object, store: store)
            writtenInserted?.append(object)
            insertedCommits.append(values)
            changes.inserted.append(StoreRow(key: key, version: 0, values: values))
            if !object.layout.toManySlots.isEmpty {
                changes.toManyChanges += try toManyChanges(object, slots: object.layout.toManySlots, store: store)
            }
        }
        plan.writtenInserted = writtenInserted ?? planInserted
        plan.insertedCommits = insertedCommits
        // Updated rows go in key order, so a store walks its tables (or B-trees) forward rather than jumping
        // about. The plan's list mostly is in key order already (objects made one after another, as a fetch makes
        // them, lie in memory in key order, and the list is in address order): then it is the written list itself.
        // Else the keys are sorted with each object's position in the list, and the written list made from those.
        // Either way the written list's objects are in the order of `keyed`. The objects are lent by the lists.
        let planUpdated = plan.updated
        var keyed: [(key: ObjectKey, position: Int)] = []
        keyed.reserveCapacity(planUpdated.count)
        var inKeyOrder = true
        planUpdated.forEachBorrowed { position, object in
            guard let key = object.storedObjectKey else { inKeyOrder = false; return }
            if inKeyOrder, let last = keyed.last?.key, !Self.precedes(last, key) { inKeyOrder = false }
            keyed.append((key, position))
        }
        let writtenUpdated: [NSManagedObject]
        if inKeyOrder {
            writtenUpdated = planUpdated
        } else {
            keyed.sort { Self.precedes($0.key, $1.key) }
            writtenUpdated = keyed.map { planUpdated[$0.position] }
        }
        plan.writtenUpdated = writtenUpdated
        changes.updated.reserveCapacity(keyed.count)
        var updatedCommits: [[Any?]?] = []
        updatedCommits.reserveCapacity(keyed.count)
        let overwrite = plan.overwrite
        // Objects mostly come in runs of one entity changing the same slots: such a run shares one array.
        var lastChanged: (layout: EntityLayout, slots: SlotSet, stored: [Int])?
        try writtenUpdated.forEachBorrowed { index, object in
            let key = keyed[index].key
            let values = try rowValues(object, store: store)
            if object.layout.slotsAreRow, object.committed?.count == object.layout.slotCount {
                updatedCommits.append(nil)  // committed in place
            } else {
                updatedCommits.append(values)
            }
            let row = StoreRow(key: key, version: object.version, values: values)
            // Overwriting writes the whole object, so stores that write only changed slots write every slot.
            let overwriting = !overwrite.isEmpty && overwrite.contains(ObjectIdentifier(object))
            let changed: [Int]
            if overwriting {
                changed = object.layout.storedSlots
            } else if let lastChanged, lastChanged.layout === object.layout, lastChanged.slots == object.changedSlots {
                changed = lastChanged.stored
            } else {
                changed = object.changedSlots.filter { object.layout.isStoredSlot[$0] }
                lastChanged = (object.layout, object.changedSlots, changed)
            }
            changes.updated.append(StoreRowUpdate(row: row, expectedVersion: object.version, changedSlots: changed))
            let changedToMany = object.layout.toManySlots.filter { object.changedSlots.contains($0) }
            if !changedToMany.isEmpty {
                changes.toManyChanges += try toManyChanges(object, slots: changedToMany, store: store)
            }
        }
        plan.updatedCommits = updatedCommits
        for object in plan.deleted {
            guard let key = object.storedObjectKey else { continue }
            changes.deleted.append(StoreRowDeletion(key: key, expectedVersion: object.version))
        }
        changes.deleted.sort { Self.precedes($0.key, $1.key) }
        return changes
    }

    /// Whether `lhs` comes before `rhs` in the order a save writes rows in: by entity number, then primary key.
    private static func precedes(_ lhs: ObjectKey, _ rhs: ObjectKey) -> Bool {
        (lhs.entityNumber, lhs.primaryKey) < (rhs.entityNumber, rhs.primaryKey)
    }

    /// An object's values as a store row: attributes (transformable ones as data), to-one as keys.
    func rowValues(_ object: NSManagedObject, store: NSPersistentStore) throws -> [Any?] {
        if object.layout.slotsAreRow { return object.slots }  // every slot a stored attribute, kept as it is
        var values = [Any?](repeating: nil, count: object.layout.slotCount)
        for slot in object.layout.storedSlots {
            values[slot] = try rowValue(object, slot: slot, store: store)
        }
        return values
    }

    private func rowValue(_ object: NSManagedObject, slot: Int, store: NSPersistentStore) throws -> Any? {
        switch object.layout.slotKinds[slot] {
        case .toOne, .toMany:
            if let key = object.slots[slot] as? ObjectKey { return key }
            guard let target = object.slots[slot] as? NSManagedObject, !target.deleted else { return nil }
            return try key(of: target, from: object, relationship: object.layout.allProperties[slot].name, store: store)
        case .attribute(.transformableAttributeType):
            // An unchanged value is written back as it was stored: its bytes stay Apple's, and a transformer
            // that is not registered here (a custom one) is only needed for values that change.
            if !object.inserted, !object.changedSlots.contains(slot), let committed = object.committed, slot < committed.count {
                return committed[slot]
            }
            guard let value = object.slots[slot], let attribute = object.layout.allProperties[slot] as? NSAttributeDescription else { return nil }
            return try TransformableStorage.data(for: value, attribute: attribute)
        case .attribute, .other:
            return object.slots[slot]
        }
    }

    private func toManyChanges(_ object: NSManagedObject, slots: [Int], store: NSPersistentStore) throws -> [ToManyChange] {
        guard let owner = object.storedObjectKey else { return [] }
        var result: [ToManyChange] = []
        for slot in slots {
            guard let relationship = object.layout.allProperties[slot] as? NSRelationshipDescription else { continue }
            let targets = (object.slots[slot] as? ToManyStorage)?.objects ?? (object.inserted ? [] : object.toManyObjects(slot: slot))
            let keys = try targets.filter { !$0.deleted }.map { try key(of: $0, from: object, relationship: relationship.name, store: store) }
            result.append(ToManyChange(owner: owner, relationship: relationship, destinations: keys))
        }
        return result
    }

    private func key(of target: NSManagedObject, from object: NSManagedObject, relationship: String, store: NSPersistentStore) throws -> ObjectKey {
        guard target.managedObjectContext === self, let id = target.assignedID, let key = id.key else {
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                     "\(object.entity.name ?? "").\(relationship) points at an object that is not in this context (never inserted, deleted, or from another context).")
        }
        guard id.storeIdentity === store.identity else {
            throw CoreDataError.make(NSManagedObjectExternalRelationshipError,
                                     "\(object.entity.name ?? "").\(relationship) points at an object in another store; relationships cannot cross stores.")
        }
        return key
    }

    /// Marks everything saved, calls `didSave` and posts the save notification, whose updated objects include
    /// `derived`: the objects not saved whose derived attributes the save changed, and which carries
    /// `queryGeneration` (a pinned context's generation after its save) under `NotificationKey.queryGeneration`.
    private func finishSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
                            derived: [NSManagedObject] = [],
                            reported: (inserted: Set<NSManagedObject>?, updated: Set<NSManagedObject>?) = (nil, nil),
                            queryGeneration: NSQueryGenerationToken? = nil, historyToken: NSPersistentHistoryToken? = nil) {
        leftChangesSinceSweep += inserted.count + updated.count + deleted.count
        undoRecorder?.savedStateChanged()
        // The object-ID notification's sets are built while marking the objects saved, each at its final size: one
        // touch of each object and its ID instead of an array of IDs walked again to build the set (an object's ID
        // does not change from here on). The objects are lent by the lists (no reference taken per object and pass).
        var insertedIDs = Set<NSManagedObjectID>(minimumCapacity: inserted.count)
        var updatedIDs = Set<NSManagedObjectID>(minimumCapacity: updated.count + derived.count)
        var deletedIDs = Set<NSManagedObjectID>(minimumCapacity: deleted.count)
        inserted.forEachBorrowed { _, object in
            object.inserted = false
            object.changedSlots = []
            // A child context's inserts keep temporary IDs after its save; they are found by them from now on.
            let assigned = object.assignedID
            if assigned?.isTemporaryID == true { registered.insert(object) }
            insertedIDs.insert(assigned ?? object.objectID)
        }
        updated.forEachBorrowed { _, object in
            object.changedSlots = []
            updatedIDs.insert(object.objectID)
        }
        derived.forEachBorrowed { _, object in updatedIDs.insert(object.objectID) }
        deleted.forEachBorrowed { _, object in
            let id = object.objectID
            registered.remove(id.identity)
            object.deleted = false
            deletedIDs.insert(id)
        }
        insertedCount = 0
        updatedSet = UpdatedObjects()
        deletedSet = [:]
        insertionOrder = []
        temporaryIDIndex = [:]
        assignedStores = [:]
        inserted.forEachBorrowed { _, object in object.didSave() }
        updated.forEachBorrowed { _, object in object.didSave() }
        deleted.forEachBorrowed { _, object in object.didSave() }
        deleted.forEachBorrowed { _, object in object.managedObjectContext = nil }
        var userInfo: [AnyHashable: Any] = [
            NSInsertedObjectsKey: reported.inserted ?? Set(inserted),
            NSUpdatedObjectsKey: (reported.updated ?? Set(updated)).union(derived),
            NSDeletedObjectsKey: Set(deleted),
        ]
        if let queryGeneration { userInfo[NSManagedObjectContext.NotificationKey.queryGeneration.rawValue] = queryGeneration }
        // Apple's key, which it documents only through `DidSaveMessage.historyToken`.
        if let historyToken { userInfo["newChangeToken"] = historyToken }
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: userInfo)
        postObjectIDs(Self.didSaveObjectIDsNotification, inserted: insertedIDs, updated: updatedIDs, deleted: deletedIDs)
    }
}

/// One store's part of a save.
final class StoreSavePlan {
    let store: NSPersistentStore
    let order: Int
    var inserted: [NSManagedObject] = []
    var updated: [NSManagedObject] = []
    var deleted: [NSManagedObject] = []
    /// The inserted objects written, in the order of the change set's inserted rows.
    var writtenInserted: [NSManagedObject] = []
    /// The updated objects written, in the order of the change set's updated rows (key order).
    var writtenUpdated: [NSManagedObject] = []
    /// For each of `writtenUpdated`, at the same position, the row values written, which become its committed
    /// values; nil for an object whose written row is its slot array and whose other slots equal its committed
    /// values (see `NSManagedObject.commitChangedSlots`): only its changed slots are copied into `committed`. The
    /// change set holds the rows, so no object is referenced here.
    var updatedCommits: [[Any?]?] = []
    /// For each of `writtenInserted`, at the same position, the row values written, which become its committed values.
    var insertedCommits: [[Any?]] = []
    /// Updated objects the overwrite policy resolved: every attribute and to-one of theirs is written.
    var overwrite = Set<ObjectIdentifier>()
    /// The derived attribute values the store computed in the save (`StoreSaveResult.derivedValues`).
    var derivedValues: [ObjectKey: [String: Any?]] = [:]

    /// The change set this plan's write built last (its inserted rows hold the values `commit(insertedAt:_:)` reads).
    var changes = StoreChangeSet()

    init(store: NSPersistentStore) {
        self.store = store
        self.order = store.persistentStoreCoordinator?.persistentStores.firstIndex { $0 === store } ?? 0
    }

    /// Makes the written row of an updated object (`commit`, its entry in `updatedCommits`) its committed values.
    @inline(__always)
    static func commit(_ commit: [Any?]?, to object: NSManagedObject) {
        if let commit { object.committed = commit } else { object.commitChangedSlots() }
    }

    /// Makes every written object's row its committed values.
    func commitWrittenObjects() {
        let insertedCommits = insertedCommits, updatedCommits = updatedCommits
        writtenInserted.forEachBorrowed { index, object in object.committed = insertedCommits[index] }
        writtenUpdated.forEachBorrowed { index, object in Self.commit(updatedCommits[index], to: object) }
    }
}

/// Compares two row values (attribute values or keys) for equality.
enum StoreValueEquality {
    static func equal(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (l as ObjectKey, r as ObjectKey): return l == r
        case let (l as [String: Any], r as [String: Any]):  // composite values, element by element
            return l.count == r.count && l.allSatisfy { key, value in equal(value, r[key]) }
        case let (l as AnyHashable, r as AnyHashable): return l == r
        default: return false
        }
    }
}

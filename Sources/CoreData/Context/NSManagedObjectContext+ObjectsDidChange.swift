/// The objects-did-change notification: what changed in a context since it was last posted.
///
/// A context lists each object the first time something happens to it after the last notification (an array
/// append and a flag on the object, so inserting many objects costs next to nothing) and posts
/// `NSManagedObjectContextObjectsDidChange` from `processPendingChanges()`: at the end of the outermost
/// `perform`/`performAndWait` block, before a save, before a fetch, when merging another context's save, when
/// called, and for a main-queue context changed on the main queue outside its blocks, when the main queue's
/// current event ends. A context where nothing changed posts nothing.
///
/// userInfo holds only the keys that have objects, each a `Set<NSManagedObject>`:
/// - `NSInsertedObjectsKey`: objects inserted (or whose deletion was undone) and still inserted, and objects a
///   merge faulted in because another context inserted them;
/// - `NSUpdatedObjectsKey`: objects whose values changed;
/// - `NSDeletedObjectsKey`: objects deleted, inserted objects removed by `rollback()`, and objects a merge
///   removed because another context deleted them;
/// - `NSRefreshedObjectsKey`: objects refreshed (`refresh(_:mergeChanges:)`, a merge of another context's
///   update, or `rollback()` reverting their changes) and not otherwise changed;
/// - `NSInvalidatedAllObjectsKey`: after `reset()`, the IDs (`[NSManagedObjectID]`) of the objects it forgot.
///
/// An object inserted and deleted again between two notifications is not reported.
extension NSManagedObjectContext {
    /// Apple's Swift name of `NSManagedObjectContextObjectsDidChange`.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// Apple's Swift name of `NSManagedObjectContextDidSave`.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
    /// Apple's Swift name of `NSManagedObjectContextWillSave`.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave

    /// userInfo keys of the context notifications, with Apple's values. The object keys are those of the
    /// objects-did-change and did-save notifications; the object-ID keys those of
    /// `didSaveObjectIDsNotification` and `didMergeChangesObjectIDsNotification` (and of history transactions'
    /// and remote-change notifications); `sourceContext` names the context that saved. `queryGeneration` is
    /// set in a pinned context's did-save notification: the token of the generation the context reads after
    /// its save (see `setQueryGenerationFrom(_:)`).
    public enum NotificationKey: String, Sendable {
        /// The context that saved, in object-ID notifications.
        case sourceContext = "managedObjectContext"
        /// In a did-save notification of a context pinned to a query generation: the token of the generation it
        /// reads after the save.
        case queryGeneration = "newQueryGeneration"
        /// `NSInsertedObjectsKey`: the objects inserted.
        case insertedObjects = "inserted"
        /// `NSUpdatedObjectsKey`: the objects whose values changed.
        case updatedObjects = "updated"
        /// `NSDeletedObjectsKey`: the objects deleted.
        case deletedObjects = "deleted"
        /// `NSRefreshedObjectsKey`: the objects refreshed and not otherwise changed.
        case refreshedObjects = "refreshed"
        /// `NSInvalidatedObjectsKey`: the objects invalidated (not used by this package's notifications).
        case invalidatedObjects = "invalidated"
        /// `NSInvalidatedAllObjectsKey`: present after `reset()`, with the IDs of the objects the context forgot.
        case invalidatedAllObjects = "invalidatedAll"
        /// `NSInsertedObjectIDsKey`: the IDs of the objects inserted.
        case insertedObjectIDs = "inserted_objectIDs"
        /// `NSUpdatedObjectIDsKey`: the IDs of the objects updated.
        case updatedObjectIDs = "updated_objectIDs"
        /// `NSDeletedObjectIDsKey`: the IDs of the objects deleted.
        case deletedObjectIDs = "deleted_objectIDs"
        /// `NSRefreshedObjectIDsKey`: the IDs of the objects refreshed (not used by this package's notifications).
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// `NSInvalidatedObjectIDsKey`: the IDs of the objects invalidated (not used by this package's
        /// notifications).
        case invalidatedObjectIDs = "invalidated_objectIDs"
    }

    // MARK: Recording

    /// Lists `object` for the next change notification, remembering what happened to it.
    func notePending(_ object: NSManagedObject, _ change: PendingChanges) {
        claimPending(object)
        if object.pendingChanges.isEmpty {
            pendingObjects.append(object)
            if pendingObjects.count == 1 { processPendingChangesAfterEvent() }
        }
        object.pendingChanges.insert(change)
    }

    /// A main-queue context changed outside its blocks, on the main queue (how apps use the view context):
    /// like Apple's, it processes its pending changes when the current event ends, that is, once the main
    /// queue has finished the work it is doing now (a run loop turn, a main-queue block, a main-actor job).
    /// Inside a block the block's end processes them; a main queue that nobody serves leaves them to the next
    /// block, save or fetch.
    private func processPendingChangesAfterEvent() {
        guard queue == nil, !processesPendingChangesAfterEvent, !ActiveContexts.isActive(self), MainQueue.isCurrent else { return }
        processesPendingChangesAfterEvent = true
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            processesPendingChangesAfterEvent = false
            releaseUnreferencedObjects(.eventEnded)
            processPendingChanges()
            undoManager?.endEventGroup()  // the event's changes are registered: its undo group closes
        }
    }

    /// Makes this context the owner of the object's pending record; a record another context kept is dropped
    /// (that context skips the object when it posts).
    private func claimPending(_ object: NSManagedObject) {
        let me = ObjectIdentifier(self)
        guard object.pendingOwner != me else { return }
        object.pendingOwner = me
        object.pendingChanges = []
    }

    /// Records that a deleted object is back: a deletion not reported yet is forgotten, a reported one is
    /// reported as an insertion.
    func noteRestored(_ object: NSManagedObject) {
        claimPending(object)
        if object.pendingChanges.contains(.deleted) {
            object.pendingChanges.remove(.deleted)
            if object.pendingChanges.isEmpty { object.pendingChanges = .listed }
        } else {
            notePending(object, .inserted)
        }
    }

    /// Records that `reset()` forgets every object: what was pending is dropped, and the next notification
    /// carries `NSInvalidatedAllObjectsKey`.
    func noteInvalidatedAll() {
        for object in pendingObjects where object.pendingOwner == ObjectIdentifier(self) { object.pendingChanges = [] }
        pendingObjects = []
        let ids = allObjects.compactMap(\.assignedID)
        guard !ids.isEmpty || pendingInvalidatedAll != nil else { return }
        pendingInvalidatedAll = (pendingInvalidatedAll ?? []) + ids
        processPendingChangesAfterEvent()
    }

    // MARK: Posting

    /// Posts the change notification for what was recorded, and starts a new record; posts nothing when no
    /// object changed.
    func postObjectsDidChange() {
        guard !pendingObjects.isEmpty || pendingInvalidatedAll != nil else { return }
        var objects = pendingObjects
        pendingObjects = []  // `objects` is now the list's only holder: its references can be moved out
        var info: [AnyHashable: Any] = [:]
        if let invalidated = pendingInvalidatedAll {
            info[NSInvalidatedAllObjectsKey] = invalidated
            pendingInvalidatedAll = nil
        }
        // One pass, straight into the sets. Each reference is moved from the list into its set (no retain, and no
        // release of the list's element afterwards), the list taken from its end. A set is made at its first object
        // with room for every object still to come, so it never grows (a growth hashes each member again); when all
        // the objects are of one kind, as after a run of inserts or of updates, that is its final size.
        var inserted = Set<NSManagedObject>(), updated = Set<NSManagedObject>()
        var deleted = Set<NSManagedObject>(), refreshed = Set<NSManagedObject>()
        let me = ObjectIdentifier(self)
        // Whether every object reported as inserted is one of the inserted objects (not a deletion undone), and every one
        // reported as updated is a saved object with changed slots, which `updatedSet` holds.
        var reportsOnlyInsertedObjects = true, reportsOnlyUpdatedObjects = true
        while let object = objects.popLast() {
            guard object.pendingOwner == me else { continue }
            let changes = object.pendingChanges
            object.pendingChanges = []
            let live = object.managedObjectContext === self && !object.deleted
            if changes.contains(.inserted) {
                if live {  // inserted and removed again: nothing to report
                    if !object.inserted { reportsOnlyInsertedObjects = false }  // a deletion undone
                    Self.add(object, to: &inserted, toCome: objects.count)
                }
            } else if !live {
                if changes.contains(.deleted) { Self.add(object, to: &deleted, toCome: objects.count) }
            } else if changes.contains(.updated) {
                if object.inserted || object.changedSlots.isEmpty { reportsOnlyUpdatedObjects = false }
                Self.add(object, to: &updated, toCome: objects.count)
            } else if changes.contains(.refreshed) {
                Self.add(object, to: &refreshed, toCome: objects.count)
            }
        }
        var reported = ReportedChanges(writes: changeTableWrites)
        if !inserted.isEmpty {
            info[NSInsertedObjectsKey] = inserted
            // The set is then exactly the context's inserted objects.
            if reportsOnlyInsertedObjects, inserted.count == insertedCount { reported.inserted = inserted }
        }
        if !updated.isEmpty {
            info[NSUpdatedObjectsKey] = updated
            if reportsOnlyUpdatedObjects { reported.updated = updated }
        }
        reportedChanges = remembersReportedChanges ? reported : nil
        if !deleted.isEmpty { info[NSDeletedObjectsKey] = deleted }
        if !refreshed.isEmpty { info[NSRefreshedObjectsKey] = refreshed }
        guard !info.isEmpty else { return }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
    }

    /// Adds `object` (taken over, not retained again) to `set`, which is first given room for it and the `toCome`
    /// objects after it when it is empty.
    @inline(__always)
    private static func add(_ object: consuming NSManagedObject, to set: inout Set<NSManagedObject>, toCome: Int) {
        if set.isEmpty { set.reserveCapacity(toCome + 1) }
        set.insert(object)
    }
}

/// What happened to an object since its context's last change notification.
struct PendingChanges: OptionSet {
    let rawValue: UInt8
    static let inserted = PendingChanges(rawValue: 1 << 0)
    static let updated = PendingChanges(rawValue: 1 << 1)
    static let deleted = PendingChanges(rawValue: 1 << 2)
    static let refreshed = PendingChanges(rawValue: 1 << 3)
    /// Listed, with nothing left to report (a deletion undone before it was reported).
    static let listed = PendingChanges(rawValue: 1 << 7)
}

/// The sets of inserted and updated objects that the objects-did-change notification posted at the start of a save
/// reported, for the save's did-save notification to post again instead of building equal sets.
///
/// `inserted` is kept only when it was every inserted object of the context; `updated` only when each of its objects
/// was a saved, undeleted object with changed slots (each one of those the save writes). With `writes`, the
/// context's `changeTableWrites` then: while no change table has had a write since, the context's inserted objects
/// are the same, and the saved objects with changed slots include the same ones, so a save whose list of inserted
/// (or updated) objects has as many objects as the set has exactly those (`set(of:_:)`).
struct ReportedChanges {
    var inserted: Set<NSManagedObject>?
    var updated: Set<NSManagedObject>?
    let writes: Int

    init(writes: Int) { self.writes = writes }

    /// The kept set (`\.inserted` or `\.updated`) when it holds exactly `objects`, the save's final list of that
    /// kind, with the context's change tables written `writes` times in all; else nil.
    func set(of kind: KeyPath<ReportedChanges, Set<NSManagedObject>?>, _ objects: [NSManagedObject], writes now: Int) -> Set<NSManagedObject>? {
        guard now == writes, let set = self[keyPath: kind], set.count == objects.count else { return nil }
        return set
    }
}

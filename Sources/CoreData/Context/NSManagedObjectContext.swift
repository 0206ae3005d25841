import Dispatch

/// The concurrency kind of a context, with Apple's raw values.
public enum NSManagedObjectContextConcurrencyType: UInt, Sendable {
    /// Deprecated by Apple; treated like a private queue.
    case confinementConcurrencyType = 0
    /// The context has a private serial queue; use `perform` and `performAndWait`.
    case privateQueueConcurrencyType = 1
    /// The context belongs to the main queue.
    case mainQueueConcurrencyType = 2
}

/// A scratch pad of managed objects: it registers the objects it fetched or inserted, records their changes,
/// and saves them to its coordinator's stores (Apple's class of the same name).
///
/// A context is used from its own queue: the main queue for `.mainQueueConcurrencyType`, a private serial
/// queue otherwise, reached with `perform` or `performAndWait`. Objects belong to one context.
///
/// `@unchecked Sendable`: its state is touched only on its queue (inside `perform`/`performAndWait`, Apple's rule,
/// which the concurrency check enforces); what other threads may call (`perform`, `performAndWait`,
/// `concurrencyType`) reads only `let`s.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// The context's concurrency kind.
    public let concurrencyType: NSManagedObjectContextConcurrencyType
    /// The coordinator whose stores the context fetches from and saves to.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        didSet { if let model = persistentStoreCoordinator?.managedObjectModel { ManagedObjectClassRegistry.shared.noteModel(model) } }
    }
    /// The parent context: a child context fetches through its parent's unsaved changes and saves into it
    /// (see `NSManagedObjectContext+Nesting.swift`). Setting it also sets the coordinator to the parent's.
    ///
    /// Read as a fault fills, so not checked for exclusivity at run time: each access is one load or store of the
    /// reference (the observer sets another property).
    @exclusivity(unchecked) open var parent: NSManagedObjectContext? {
        didSet { if let parent { persistentStoreCoordinator = parent.persistentStoreCoordinator } }
    }
    /// A name for debugging.
    open var name: String?
    /// How conflicts found by a save are resolved; `NSErrorMergePolicy` (the default) throws them.
    open var mergePolicy: Any = NSErrorMergePolicy
    /// Whether the context merges by itself what its parent saves (for a root context: what other root
    /// contexts of its coordinator save, and ➕ what other connections save to a store that names the changed
    /// objects in its `NSPersistentStoreRemoteChange` notifications, such as the PostgreSQL store).
    open var automaticallyMergesChangesFromParent: Bool = false {
        didSet { updateAutomaticMerging() }
    }
    /// The author recorded with saves (kept; persistent history is not recorded yet).
    open var transactionAuthor: String?
    /// Whether the context keeps every registered object alive. False (the default, as Apple's): an object
    /// without unsaved changes that nothing else holds is let go (see `NSManagedObjectContext+Releasing.swift`),
    /// and comes back as a fault when asked for again; objects with unsaved changes are always kept. Setting
    /// it true keeps every registered object until it is deleted and saved, or the context is reset.
    open var retainsRegisteredObjects: Bool = false
    /// Whether a fault whose object is gone from its store becomes an empty object that reports `isDeleted`
    /// when it is first accessed (otherwise it stays empty without being marked).
    open var shouldDeleteInaccessibleFaults: Bool = true
    /// How old the values a fetch read may be when a fault fills from them, in seconds. Negative (the default,
    /// as Apple's): any age, so a fault fills from the row its fetch read. Zero: none, so a fault reads its
    /// store when it fires. Positive: rows read (or saved) less than that many seconds ago, else the store.
    ///
    /// Read as each fault fills, so not checked for exclusivity at run time: each access is one load or store.
    @exclusivity(unchecked) open var stalenessInterval: TimeInterval = -1
    /// The query generation the context is pinned to (`NSManagedObjectContext+QueryGenerations.swift`).
    let queryGenerationPin = QueryGenerationPin()
    /// Free-form information.
    open var userInfo: NSMutableDictionary = NSMutableDictionary()
    /// The undo manager that records the context's changes (nil by default, as on Apple's platforms since
    /// macOS 10.15 and iOS): inserts, deletes and value changes register with it each time the context
    /// processes its pending changes, and `undo()` / `redo()` put them back (see
    /// `NSManagedObjectContext+Undo.swift`). Setting it to nil makes changes cost nothing extra again.
    open var undoManager: UndoManager? {
        didSet { undoManagerChanged(from: oldValue) }
    }

    let queue: DispatchQueue?
    /// Marks the private queue, so code can tell it runs there (see `NSManagedObjectContext+Queue.swift`).
    let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// The objects registered by the identities of their IDs (see `RegistrationTable`).
    let registered = RegistrationTable()
    /// How many objects `registered` held after the last sweep for unreferenced objects (see
    /// `releaseUnreferencedObjects(_:)`).
    var registeredAfterSweep = 0
    /// How many objects left the change tables (saved or rolled back) since that sweep.
    var leftChangesSinceSweep = 0
    /// How many objects of `insertionOrder` are inserted (`inserted` true): the context's inserted objects are
    /// exactly those, so no table of them is kept. Every object whose `inserted` becomes true here is counted
    /// (`recordInsertion(_:)`) and every one whose `inserted` becomes false while listed is uncounted
    /// (`forgetInsertion(of:)`), or the list and the count are emptied together.
    var insertedCount = 0 { didSet { changeTableWrites &+= 1 } }
    /// The objects with changes since they were fetched or saved, each once (see `UpdatedObjects`); an inserted or
    /// deleted object may stay listed, and readers filter by `inserted` and `deleted`.
    var updatedSet = UpdatedObjects() { didSet { changeTableWrites &+= 1 } }
    var deletedSet: [ObjectIdentifier: NSManagedObject] = [:] { didSet { changeTableWrites &+= 1 } }
    var insertionOrder: [NSManagedObject] = [] { didSet { changeTableWrites &+= 1 } }
    /// How many writes the change tables above have had (any write, even one that leaves them as they were): a
    /// save that finds it unchanged after the objects' `willSave` knows the lists it took before still hold.
    var changeTableWrites = 0
    /// While `save()` processes its pending changes: the objects-did-change notification then remembers its sets
    /// in `reportedChanges`, for the did-save notification (see `postObjectsDidChange()`).
    var remembersReportedChanges = false
    /// During a save: the sets its objects-did-change notification reported, each kept only when it held every
    /// object of its kind that the save writes (see `ReportedChanges`).
    var reportedChanges: ReportedChanges?
    /// Inserted objects by temporary ID, for those whose ID was asked for (entries are checked when read).
    var temporaryIDIndex: [NSManagedObjectID.Identity: NSManagedObject] = [:]
    /// For a context that child contexts save into: its saved objects by the temporary IDs they had, which a
    /// child's objects keep.
    var formerTemporaryIDs: [NSManagedObjectID.Identity: NSManagedObject] = [:]
    /// Whether changes are not recorded (while an object's `awakeFromFetch` runs). Read and set around every
    /// fault's `awakeFromFetch`; each access is one load or store, never held across other code, so it is not
    /// checked for exclusivity at run time (see `NSManagedObject.slots`).
    @exclusivity(unchecked) var suspendsChangeRecording = false
    /// While a save calls `willSave` (`callWillSave`): every object whose values changed since its round began,
    /// once per change (appended by `NSManagedObject.noteChange(slot:)` under `ChangeRecordingHooks`); nil otherwise.
    var changedDuringWillSave: [NSManagedObject]?
    /// Whether a child context has saved into this one (so former temporary IDs are remembered).
    var receivesChildSaves = false
    /// During a save's uniqueness-conflict round: each merged object, by identity, with the object it merged into.
    var constraintMerges: [ObjectIdentifier: (object: NSManagedObject, survivor: NSManagedObject)] = [:]
    /// During a save's uniqueness-conflict round: how many inserted objects took the place of a saved row.
    var constraintTakeOvers = 0
    /// The observers of automatic merging (`automaticallyMergesChangesFromParent`).
    var mergeObservers: [NSObjectProtocol] = []
    /// Objects changed since `NSManagedObjectContextObjectsDidChange` was last posted, each once (its
    /// `pendingChanges` says what happened); see `NSManagedObjectContext+ObjectsDidChange.swift`.
    var pendingObjects: [NSManagedObject] = []
    /// The IDs of the objects `reset()` forgot since the change notification was last posted, or nil.
    var pendingInvalidatedAll: [NSManagedObjectID]?
    /// Whether a main-queue context has asked the main queue to process its pending changes when the current
    /// event (the run loop turn, or the main-queue block) ends.
    var processesPendingChangesAfterEvent = false
    /// What changed since the last processing, for `undoManager`; nil without one.
    var undoRecorder: ObjectGraphUndoRecorder?
    /// The observer of `undoManager`'s checkpoints.
    var undoCheckpointObserver: NSObjectProtocol?

    /// A context of the given concurrency kind, with no coordinator yet.
    public init(concurrencyType type: NSManagedObjectContextConcurrencyType) {
        concurrencyType = type
        switch type {
        case .mainQueueConcurrencyType: queue = nil
        case .privateQueueConcurrencyType, .confinementConcurrencyType:
            queue = DispatchQueue(label: "NSManagedObjectContext.private")
        }
        super.init()
        queue?.setSpecific(key: queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        for observer in mergeObservers { NotificationCenter.default.removeObserver(observer) }
        if let undoCheckpointObserver { NotificationCenter.default.removeObserver(undoCheckpointObserver) }
        if undoRecorder != nil { UndoCapturingContexts.remove() }
    }

    // MARK: Queues (the rest is in NSManagedObjectContext+Queue.swift)

    /// Runs `block` on the context's queue, later: never inline, even when called on the queue. The block is
    /// `@Sendable` in a `@preconcurrency` declaration, as Apple's: it runs on the context's queue, so it is not
    /// isolated to its caller's actor (a `Task` it starts does not inherit the main actor).
    @preconcurrency
    open func perform(_ block: @escaping @Sendable () -> Void) {
        enqueue(block)
    }

    /// Runs `block` on the context's queue and waits for it; re-entrant: runs it at once when already on the
    /// queue or inside another of this context's blocks. `@Sendable` in a `@preconcurrency` declaration, as Apple's.
    @preconcurrency
    open func performAndWait(_ block: @Sendable () -> Void) {
        runAndWait(block)
    }

    // MARK: Registered objects and changes

    /// Whether any object is inserted, updated or deleted.
    open var hasChanges: Bool { insertedCount != 0 || !updatedSet.isEmpty || !deletedSet.isEmpty }
    /// The objects inserted and not saved yet.
    open var insertedObjects: Set<NSManagedObject> { Set(insertionOrder.filter(\.inserted)) }
    /// The objects with unsaved changes.
    open var updatedObjects: Set<NSManagedObject> { Set(updatedSet.values.filter { !$0.inserted && !$0.deleted }) }
    /// The objects deleted and not saved yet.
    open var deletedObjects: Set<NSManagedObject> { Set(deletedSet.values) }
    /// Every object the context holds: those with unsaved changes, and the others that something outside the
    /// context still holds (or all, with `retainsRegisteredObjects`).
    open var registeredObjects: Set<NSManagedObject> {
        releaseUnreferencedObjects(.always)
        return Set(allObjects)
    }

    /// Every object of the context: those registered by ID and the inserted ones that still have temporary IDs.
    var allObjects: [NSManagedObject] {
        registered.allObjects + insertionOrder.filter { $0.managedObjectContext === self && $0.assignedID?.isTemporaryID ?? true }
    }

    /// The registered object with this ID, or nil (never a fault made for the call).
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        guard objectID.isTemporaryID else { return registered[objectID.identity] }
        if let object = insertedObject(withTemporaryID: objectID) ?? registered[objectID.identity] { return object }
        if let saved = formerTemporaryIDs[objectID.identity], saved.managedObjectContext === self { return saved }
        return nil
    }

    /// The inserted object with a temporary ID (such objects are kept out of `registered` until they get a
    /// permanent ID, so inserting many objects costs no table updates).
    func insertedObject(withTemporaryID objectID: NSManagedObjectID) -> NSManagedObject? {
        guard let object = temporaryIDIndex[objectID.identity] else { return nil }
        guard object.inserted, object.managedObjectContext === self, object.assignedID == objectID else {
            temporaryIDIndex[objectID.identity] = nil
            return nil
        }
        return object
    }

    /// Makes an inserted object with a temporary ID findable by it.
    func indexTemporaryID(of object: NSManagedObject) {
        guard let id = object.assignedID, id.isTemporaryID else { return }
        temporaryIDIndex[id.identity] = object
    }

    func noteUpdated(_ object: NSManagedObject) {
        updatedSet.insert(object)
        notePending(object, .updated)
    }

    /// Makes `object` one of the context's objects, found by ID unless it is an insert with a temporary ID (a
    /// child context's objects for its parent's inserts have temporary IDs and are found by them).
    func register(_ object: NSManagedObject) {
        if let identity = object.assignedIdentity, !(identity.isTemporary && object.inserted) { registered.insert(object) }
        object.managedObjectContext = self
    }

    /// Inserts a new object; it is saved with the next `save()`. Inserting an object of another context, or
    /// a saved one, does nothing.
    open func insert(_ object: NSManagedObject) {
        checkQueue("insert(_:)")
        let owner = object.managedObjectContext  // loaded once: nothing below changes it before `recordInsertion`
        if let owner, owner !== self { return }
        if object.deleted, object.inserted == false, deletedSet[ObjectIdentifier(object)] != nil {
            // Re-inserting a deleted object undoes the deletion.
            undoRecorder?.captureMembership(of: object, alive: false)
            deletedSet[ObjectIdentifier(object)] = nil
            object.deleted = false
            noteRestored(object)
            return
        }
        guard !object.inserted, object.assignedID?.isTemporaryID ?? true else { return }
        let isNew = owner == nil
        undoRecorder?.captureMembership(of: object, alive: false)
        recordInsertion(object)
        if isNew {
            let layout = object.layout
            if object.slots.sharesStorage(with: layout.emptySlots) {
                object.slots = layout.defaultSlots  // nothing written yet: the defaults, shared until the first write
            } else {
                for (slot, value) in layout.defaultValues where object.slots[slot] == nil { object.slots[slot] = value }
            }
            // Every to-many slot, transient ones too (`layout.toManySlots` lists only stored ones). The kind is matched
            // by its case, not compared with `==`, which is a call per slot for an enum with payloads.
            for (slot, kind) in layout.slotKinds.enumerated() {
                if case .toMany = kind, object.slots[slot] == nil { object.slots[slot] = ToManyStorage() }
            }
            object.awakeFromInsert()
        }
    }

    /// Makes `object` one of the context's inserted objects: registered, listed in insertion order, findable by
    /// a temporary ID, and reported by the next change notification.
    func recordInsertion(_ object: NSManagedObject) {
        object.inserted = true
        register(object)
        insertedCount += 1
        insertionOrder.append(object)
        indexTemporaryID(of: object)
        notePending(object, .inserted)
    }

    /// Makes an inserted object of this context no longer inserted (it stays in `insertionOrder`, whose readers
    /// skip objects that are not inserted, until the caller removes it or the list is emptied).
    func forgetInsertion(of object: NSManagedObject) {
        guard object.inserted else { return }
        object.inserted = false
        insertedCount -= 1
    }

    /// Marks an object deleted: its delete rules run now, and the deletion is saved with the next `save()`.
    /// Deleting an unsaved object simply removes it.
    open func delete(_ object: NSManagedObject) {
        checkQueue("delete(_:)")
        guard object.managedObjectContext === self, !object.deleted else { return }
        undoRecorder?.captureMembership(of: object, alive: true)
        object.fireFaultIfNeeded()
        object.prepareForDeletion()
        object.deleted = true
        deletedSet[ObjectIdentifier(object)] = object
        notePending(object, .deleted)
        applyDeleteRules(of: object)
        if object.inserted {
            // An unsaved object simply leaves: nothing will be deleted from a store, so it is not `isDeleted`.
            removeUnsavedObject(object)
        }
    }

    /// Takes an inserted, unsaved object out of the context, as if it had never been inserted.
    func removeUnsavedObject(_ object: NSManagedObject) {
        forgetInsertion(of: object)
        object.deleted = false
        deletedSet[ObjectIdentifier(object)] = nil
        updatedSet.remove(object)
        insertionOrder.removeAll { $0 === object }
        assignedStores[ObjectIdentifier(object)] = nil  // the object may go: its address must not name a store
        registered.remove(object.objectID.identity)
        object.managedObjectContext = nil
    }

    /// Cascades and nullifies a deleted object's relationships (deny is checked when saving).
    private func applyDeleteRules(of object: NSManagedObject) {
        for case let relationship as NSRelationshipDescription in object.layout.allProperties {
            guard let slot = object.layout.slotByName[relationship.name] else { continue }
            let targets = relationship.isToMany ? object.toManyObjects(slot: slot) : [object.toOneObject(slot: slot)].compactMap { $0 }
            switch relationship.deleteRule {
            case .cascadeDeleteRule:
                for target in targets { delete(target) }
                fallthrough
            case .nullifyDeleteRule:
                guard let inverse = relationship.inverseRelationship else { continue }
                for target in targets { target.forget(object, in: inverse) }
            case .denyDeleteRule, .noActionDeleteRule:
                continue
            }
        }
    }

    /// Discards every unsaved change: inserted objects leave the context, updated and deleted ones get their
    /// saved values back. Empties the undo manager's stacks (`removeAllActions()`), as Apple's does.
    open func rollback() {
        checkQueue("rollback()")
        clearUndo(allActions: true)
        for object in insertionOrder {
            notePending(object, .deleted)
            registered.remove(object.objectID.identity)
            object.inserted = false
            object.managedObjectContext = nil
            object.assignedID = nil  // a permanent ID obtained for it is dropped: it may be inserted again
        }
        leftChangesSinceSweep += insertionOrder.count + updatedSet.count + deletedSet.count
        for object in Array(updatedSet.values) + Array(deletedSet.values) where object.managedObjectContext === self {
            if object.deleted { noteRestored(object) } else { notePending(object, .refreshed) }
            object.deleted = false
            revertToCommitted(object)
        }
        insertedCount = 0
        updatedSet = UpdatedObjects()
        deletedSet = [:]
        insertionOrder = []
        temporaryIDIndex = [:]
        assignedStores = [:]
    }

    /// Forgets every registered object; objects held elsewhere become unusable. The undo manager forgets the
    /// context's operations (`removeAllActions(withTarget:)`), which name objects the context no longer has. A
    /// context pinned to a query generation releases it and moves to the newest one, taken at its next read.
    open func reset() {
        checkQueue("reset()")
        advanceQueryGeneration()
        clearUndo(allActions: false)
        noteInvalidatedAll()
        for object in allObjects {
            object.managedObjectContext = nil
        }
        registered.removeAll()
        registeredAfterSweep = 0
        insertedCount = 0
        updatedSet = UpdatedObjects()
        deletedSet = [:]
        insertionOrder = []
        temporaryIDIndex = [:]
        formerTemporaryIDs = [:]
        assignedStores = [:]  // the objects are gone: their addresses must not name stores
    }

    /// Turns an object into a fault, or with `mergeChanges` reloads its saved values under its unsaved changes.
    ///
    /// Without `mergeChanges` the object's values (unsaved changes included) are freed, and the fault reads the
    /// store again when it next fires: memory follows the objects that hold values.
    open func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        checkQueue("refresh(_:mergeChanges:)")
        guard object.managedObjectContext === self, !object.inserted else { return }
        changeTableWrites &+= 1  // the refill may find the row gone and mark the object deleted (see `ReportedChanges`)
        undoRecorder?.savedStateChanged()
        notePending(object, .refreshed)
        if flag {
            let changed = object.changedSlots.map { ($0, object.slots[$0]) }
            object.faulted = true
            fulfillFault(of: object)
            for (slot, value) in changed { object.slots[slot] = value; object.changedSlots.insert(slot) }
        } else {
            object.changesFaultState = true
            defer { object.changesFaultState = false }
            object.willTurnIntoFault()
            updatedSet.remove(object)
            object.discardValues()
            object.didTurnIntoFault()
        }
    }

    /// Refreshes every registered object: objects without changes become faults (freeing their values),
    /// changed objects reload their saved values under their changes.
    open func refreshAllObjects() {
        checkQueue("refreshAllObjects()")
        for object in registered.allObjects where !object.inserted {
            refresh(object, mergeChanges: object.hasChanges)
        }
        releaseUnreferencedObjects(.always)
    }

    /// Registers the changes made since the last call with the undo manager, as one operation, and posts
    /// `NSManagedObjectContextObjectsDidChange` for them, if any (delete rules already ran when `delete(_:)`
    /// was called). Runs by itself at the end of the outermost `perform`/`performAndWait` block, before a save,
    /// before a fetch, and when the undo manager posts `NSUndoManagerCheckpoint`.
    open func processPendingChanges() {
        registerUndoForPendingChanges()
        postObjectsDidChange()
    }

    /// Asks the undo manager to undo its latest group, which puts back the context's changes it records
    /// (Apple's `undo()`); pending changes are recorded first. Does nothing without an undo manager.
    open func undo() {
        checkQueue("undo()")
        undoManager?.undo()
    }

    /// Asks the undo manager to redo what was last undone (Apple's `redo()`). Does nothing without an undo
    /// manager.
    open func redo() {
        checkQueue("redo()")
        undoManager?.redo()
    }

    /// Gives store `store` to newly inserted `object` (Apple's `assign(_:to:)`).
    open func assign(_ object: Any, to store: NSPersistentStore) {
        guard let object = object as? NSManagedObject else { return }
        assignedStores[ObjectIdentifier(object)] = store
    }

    var assignedStores: [ObjectIdentifier: NSPersistentStore] = [:]

    /// Drops an object's unsaved changes: a saved object becomes a fault that reads its store again.
    private func revertToCommitted(_ object: NSManagedObject) {
        if object.committed != nil {
            object.discardValues()
        } else {
            object.changedSlots = []
        }
    }
}

/// Carries a value across a concurrency boundary that the context's queue discipline makes safe.
///
/// `@unchecked Sendable`: each use says why the value is only touched on one queue at a time.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A weak reference, for closures that must not keep their object alive.
final class WeakReference<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

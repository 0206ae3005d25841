import Synchronization

/// Records, for a context with an undo manager, what each object was like before its first change since the
/// context last processed its pending changes, and turns that into one undo operation
/// (`ObjectGraphUndo`) when it processes them, as Apple's contexts register undo in `processPendingChanges()`.
///
/// Objects report a slot before they write it (`NSManagedObject.willChangeSlotForUndo(_:)`), and the context
/// reports an object before it inserts, deletes or restores it. Only the first report of a slot or of an
/// object's membership counts until the next processing. Reports are ignored while capture is suspended
/// (merges, a save's own changes, a child's save pushed into its parent).
final class ObjectGraphUndoRecorder {
    private var captures: [ObjectIdentifier: ObjectUndoCapture] = [:]
    /// The captures in the order objects were first reported.
    private var order: [ObjectUndoCapture] = []
    /// While above zero, reports are ignored.
    var suspensions = 0
    /// Counts the events that change objects' saved values (saves, merges, refreshes): an undo operation made
    /// before one of them cannot trust the "unchanged since saved" marks it recorded.
    private(set) var savedStateGeneration = 0

    var hasCaptures: Bool { !order.isEmpty }

    func savedStateChanged() { savedStateGeneration &+= 1 }

    /// Records slot `slot` of `object` as it is now, unless it was recorded since the last processing. A
    /// to-many relationship not read yet is read first, so its destinations are known.
    func captureSlot(_ slot: Int, of object: NSManagedObject) {
        guard suspensions == 0 else { return }
        let capture = self.capture(for: object)
        guard capture.slots[slot] == nil else { return }
        object.fireFaultIfNeeded()
        if case .toMany = object.layout.slotKinds[slot], object.slots[slot] == nil { _ = object.toManyStorage(slot: slot) }
        capture.slots[slot] = CapturedSlot(value: Self.undoValue(of: object, slot: slot),
                                           wasChanged: object.changedSlots.contains(slot),
                                           wasInvalid: object.invalidSlots.contains(slot))
    }

    /// Records whether `object` is alive in the context (registered and not deleted) now, unless that was
    /// recorded since the last processing.
    func captureMembership(of object: NSManagedObject, alive: Bool) {
        guard suspensions == 0 else { return }
        let capture = self.capture(for: object)
        if capture.wasAlive == nil { capture.wasAlive = alive }
    }

    private func capture(for object: NSManagedObject) -> ObjectUndoCapture {
        if let known = captures[ObjectIdentifier(object)] { return known }
        let capture = ObjectUndoCapture(object: object)
        captures[ObjectIdentifier(object)] = capture
        order.append(capture)
        return capture
    }

    /// Forgets everything recorded.
    func discard() {
        captures = [:]
        order = []
    }

    /// The operation that puts back what changed since the last processing, or nil when nothing did (values
    /// set and set back again); starts a new record either way.
    func takeUndo(isAlive: (NSManagedObject) -> Bool) -> ObjectGraphUndo? {
        let taken = order
        discard()
        var restores: [ObjectStateRestore] = []
        for capture in taken {
            let object = capture.object
            let aliveNow = isAlive(object)
            let alive = capture.wasAlive.flatMap { $0 == aliveNow ? nil : $0 }
            // An object out of the context before and after (inserted and deleted again) needs nothing back.
            guard alive != nil || aliveNow else { continue }
            let slots = capture.slots.sorted { $0.key < $1.key }.filter { slot, captured in
                !Self.same(captured.value, Self.undoValue(of: object, slot: slot))
            }
            guard alive != nil || !slots.isEmpty else { continue }
            restores.append(ObjectStateRestore(object: object, alive: alive, slots: slots.map { ($0.key, $0.value) }))
        }
        return restores.isEmpty ? nil : ObjectGraphUndo(restores: restores, savedStateGeneration: savedStateGeneration)
    }

    /// A slot's value as the record keeps it: a to-many relationship as its destinations (its storage is
    /// changed in place), anything else as it is.
    static func undoValue(of object: NSManagedObject, slot: Int) -> Any? {
        guard slot < object.slots.count else { return nil }
        if let storage = object.slots[slot] as? ToManyStorage { return CapturedDestinations(objects: storage.objects) }
        return object.slots[slot]
    }

    /// Whether two recorded values are the same: objects by identity, destinations by identity and order,
    /// other values by equality (values that are not `Hashable` never compare equal).
    static func same(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil):
            return true
        case let (l as NSManagedObject, r as NSManagedObject):
            return l === r
        case let (l as CapturedDestinations, r as CapturedDestinations):
            return l.objects.count == r.objects.count && zip(l.objects, r.objects).allSatisfy { $0 === $1 }
        default:
            return StoreValueEquality.equal(lhs, rhs)
        }
    }
}

/// What one object was like before its first change since the last processing.
final class ObjectUndoCapture {
    let object: NSManagedObject
    /// Whether the object was alive in the context, when its membership may have changed.
    var wasAlive: Bool?
    var slots: [Int: CapturedSlot] = [:]

    init(object: NSManagedObject) { self.object = object }
}

/// One slot's recorded value, with whether it differed from the saved value and whether it was invalid.
struct CapturedSlot {
    let value: Any?
    let wasChanged: Bool
    let wasInvalid: Bool
}

/// The destinations of a to-many relationship, as recorded for undo.
struct CapturedDestinations {
    let objects: [NSManagedObject]
}

/// What to put back for one object: its membership, when it changed, and the slots that changed.
struct ObjectStateRestore {
    let object: NSManagedObject
    /// True to bring the object back into the context, false to take it out, nil to leave it.
    let alive: Bool?
    let slots: [(slot: Int, captured: CapturedSlot)]
}

/// One registered undo operation of a context: the objects' states before the changes it undoes.
final class ObjectGraphUndo {
    let restores: [ObjectStateRestore]
    /// The recorder's `savedStateGeneration` when it was made.
    let savedStateGeneration: Int

    init(restores: [ObjectStateRestore], savedStateGeneration: Int) {
        self.restores = restores
        self.savedStateGeneration = savedStateGeneration
    }
}

/// How many contexts of the process have an undo manager. An object asks its (weakly held) context whether
/// to record a change for undo only when this is not zero, so without undo managers a property set costs one
/// load of this count.
enum UndoCapturingContexts {
    private static let count = Atomic<Int>(0)

    static var any: Bool { count.load(ordering: .relaxed) != 0 }

    static func add() { count.add(1, ordering: .relaxed) }
    static func remove() { count.subtract(1, ordering: .relaxed) }
}

import Foundation

/// Undo of a context's changes (Apple's `undoManager`, `undo()`, `redo()`).
///
/// With an undo manager, each change to the context's objects — an insertion, a deletion, an attribute value,
/// a relationship on either side, including what delete rules change — is recorded as it happens (what the
/// object was like before its first change since the last processing, `ObjectGraphUndoRecorder`), and
/// `processPendingChanges()` registers what changed since it last ran as one undo operation in the undo
/// manager's current group. The context processes its pending changes whenever its undo manager posts
/// `NSUndoManagerCheckpoint` (before an undo or redo, when a group opens or closes), as Apple's contexts do, so
/// `undo()` records what is pending first.
///
/// Undoing puts the recorded values and memberships back directly: an undone insertion takes the object out
/// of the context (it is no longer in `insertedObjects`), an undone deletion brings it back, values return with
/// their "changed since saved" marks, so `hasChanges`, `insertedObjects`, `updatedObjects` and
/// `deletedObjects` read as they did, and the next `NSManagedObjectContextObjectsDidChange` reports what
/// moved. `awakeFromInsert`, `prepareForDeletion` and delete rules do not run again (their effects were
/// recorded as changes themselves). What an undo changes is recorded in turn and becomes the redo operation.
///
/// After a save, undoing makes the object changed again, so the next save writes the undone state: an undone
/// insertion becomes a deletion, an undone deletion an insertion (the object keeps its ID), values come back
/// marked changed. Merged changes (`mergeChanges(fromContextDidSave:)`, automatic merging), a child's save
/// pushed into this context, and what a save changes by itself are not registered; `rollback()` empties the
/// undo manager and `reset()` removes the context's operations from it.
extension NSManagedObjectContext {
    /// Starts or stops recording when `undoManager` changes. Without an undo manager the context records
    /// nothing and observes nothing.
    func undoManagerChanged(from old: UndoManager?) {
        guard old !== undoManager else { return }
        if let undoCheckpointObserver {
            NotificationCenter.default.removeObserver(undoCheckpointObserver)
            self.undoCheckpointObserver = nil
        }
        guard let manager = undoManager else {
            if undoRecorder != nil {
                undoRecorder = nil
                UndoCapturingContexts.remove()
            }
            return
        }
        if let undoRecorder {
            undoRecorder.discard()
        } else {
            undoRecorder = ObjectGraphUndoRecorder()
            UndoCapturingContexts.add()
        }
        undoCheckpointObserver = NotificationCenter.default.addObserver(forName: .NSUndoManagerCheckpoint, object: manager, queue: nil) { [weak self] _ in
            self?.processPendingChanges()
        }
    }

    /// Registers what changed since the last processing as one undo operation; with registration disabled
    /// (`disableUndoRegistration()`) the changes are forgotten instead, and cannot be undone.
    func registerUndoForPendingChanges() {
        guard let recorder = undoRecorder, recorder.hasCaptures else { return }
        guard let manager = undoManager, manager.isUndoRegistrationEnabled,
              let undo = recorder.takeUndo(isAlive: isAliveForUndo) else {
            recorder.discard()
            return
        }
        manager.registerUndo(withTarget: self) { context in context.apply(undo) }
    }

    /// Empties the undo record and the undo manager: every operation (`rollback()`), or the context's own
    /// (`reset()`).
    func clearUndo(allActions: Bool) {
        guard let undoRecorder else { return }
        undoRecorder.discard()
        if allActions { undoManager?.removeAllActions() } else { undoManager?.removeAllActions(withTarget: self) }
    }

    /// Whether `object` is one of the context's objects and not deleted.
    private func isAliveForUndo(_ object: NSManagedObject) -> Bool {
        object.managedObjectContext === self && !object.deleted
    }

    // MARK: Undoing

    /// Puts back the objects' recorded states: objects coming back first, then values, then objects leaving,
    /// so values are always restored on objects that are in the context.
    private func apply(_ undo: ObjectGraphUndo) {
        // After a save or merge, "unchanged since saved" marks are out of date: restored values are changes.
        let savedStateMoved = undo.savedStateGeneration != undoRecorder?.savedStateGeneration
        for restore in undo.restores where restore.alive == true { bringBack(restore.object) }
        for restore in undo.restores where !restore.slots.isEmpty { restoreSlots(restore, markingChanged: savedStateMoved) }
        for restore in undo.restores where restore.alive == false { takeOut(restore.object) }
    }

    /// Brings back an object whose insertion or deletion is undone: a deleted one is no longer deleted, one
    /// out of the context (an undone insertion, or a deletion that was saved since) is inserted again, without
    /// `awakeFromInsert`.
    private func bringBack(_ object: NSManagedObject) {
        if object.managedObjectContext === self {
            guard object.deleted else { return }
            undoRecorder?.captureMembership(of: object, alive: false)
            deletedSet[ObjectIdentifier(object)] = nil
            object.deleted = false
            noteRestored(object)
        } else if object.managedObjectContext == nil {
            undoRecorder?.captureMembership(of: object, alive: false)
            recordInsertion(object)
        }
    }

    /// Takes out an object whose insertion is undone (or whose deletion is redone): an unsaved one leaves the
    /// context, a saved one is deleted (the next save deletes it from its store).
    private func takeOut(_ object: NSManagedObject) {
        guard isAliveForUndo(object) else { return }
        undoRecorder?.captureMembership(of: object, alive: true)
        notePending(object, .deleted)
        if object.inserted {
            removeUnsavedObject(object)
        } else {
            object.deleted = true
            deletedSet[ObjectIdentifier(object)] = object
        }
    }

    /// Puts back recorded slot values with their "changed" and "invalid" marks (every restored value is
    /// marked changed when `markingChanged`), and updates the object's place in `updatedObjects`.
    private func restoreSlots(_ restore: ObjectStateRestore, markingChanged: Bool) {
        let object = restore.object
        object.fireFaultIfNeeded()
        for (slot, captured) in restore.slots where slot < object.slots.count {
            undoRecorder?.captureSlot(slot, of: object)
            object.slots[slot] = slotValue(captured.value, replacing: object.slots[slot])
            if markingChanged || captured.wasChanged { object.changedSlots.insert(slot) } else { object.changedSlots.remove(slot) }
            if captured.wasInvalid { object.invalidSlots.insert(slot) } else { object.invalidSlots.remove(slot) }
        }
        guard object.managedObjectContext === self else { return }
        if !object.inserted && !object.deleted {
            updatedSet.set(object, listed: !object.changedSlots.isEmpty)
        }
        notePending(object, .updated)
    }

    /// A recorded value in slot form: recorded destinations become a to-many storage that keeps the
    /// relationship's saved baseline.
    private func slotValue(_ recorded: Any?, replacing current: Any?) -> Any? {
        guard let destinations = recorded as? CapturedDestinations else { return recorded }
        guard let storage = current as? ToManyStorage else { return ToManyStorage(destinations.objects) }
        return ToManyStorage(destinations.objects, original: storage.original)
    }
}

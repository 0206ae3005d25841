/// Making an object a fault, of each kind (see `FaultState`); contexts fill faults
/// (`NSManagedObjectContext+Faults.swift`).
extension NSManagedObject {
    /// Makes the object a fault holding the snapshot of the row a fetch read for it: the row's values (as the
    /// store gave them, read from the snapshot) become its committed values, its slots the entity's shared empty
    /// array, and it fills when it fires (see `FaultState.snapshot`). The row's value array is not touched: a fetch
    /// makes its faults after the store made every row, when the arrays are no longer in the processor's cache.
    func holdSnapshot(_ snapshot: RowSnapshot) {
        ownCommitted = nil
        version = snapshot.version
        if !slots.sharesStorage(with: layout.emptySlots) { slots = layout.emptySlots }
        if !changedSlots.isEmpty { changedSlots = SlotSet() }
        faultState = .snapshot(snapshot)
    }

    /// Puts a snapshot's values into the object, marks it saved, unchanged and filled, and has it hold the
    /// snapshot (so the row cache keeps it while the object lives).
    func fill(from snapshot: RowSnapshot) {
        fill(values: snapshot.values, version: snapshot.version)
        faultState = .filledFromRow(snapshot)
    }

    /// Fills a snapshot fault from the row it holds (`snapshot`, whose values are its committed values), as
    /// `fill(from: snapshot)` would: the committed values become the slots (shared until a slot is written), and
    /// the object holds the snapshot. A row that needs conversion (a transformable value, a count that is not the
    /// entity's) goes through `fill(values:version:)`.
    func fillFromHeldRow(_ snapshot: RowSnapshot) {
        let row = committed ?? []
        if row.count == layout.slotCount, layout.transformableSlots.isEmpty {
            ownCommitted = row
            slots = row
            if !changedSlots.isEmpty { changedSlots = SlotSet() }
        } else {
            fill(values: row, version: version)
        }
        faultState = .filledFromRow(snapshot)
    }

    /// Has a filled object hold `snapshot`, the row a save through the coordinator just wrote for it, in place
    /// of the snapshot it held (nil: the row cache does not know the row written, so it holds none); a fault
    /// is left as it is.
    func holdSavedSnapshot(_ snapshot: RowSnapshot?) {
        guard !faulted else { return }
        faultState = snapshot.map { .filledFromRow($0) } ?? .filled
    }

    /// Puts a row's values (by slot, as the store gave them) into the object and marks it saved, unchanged and
    /// filled, holding no snapshot.
    func fill(values row: [Any?], version: Int64) {
        var values = row
        if values.count != layout.slotCount {
            values = Array(values.prefix(layout.slotCount)) + [Any?](repeating: nil, count: max(0, layout.slotCount - values.count))
        }
        committed = values
        for slot in layout.transformableSlots {
            guard let data = values[slot] as? Data, let attribute = layout.allProperties[slot] as? NSAttributeDescription else { continue }
            values[slot] = TransformableStorage.value(from: data, attribute: attribute)
        }
        slots = values
        self.version = version
        changedSlots = []
        faulted = false
    }

    /// Fires a snapshot fault that has no context (its context was reset, or let go of it): it fills from the
    /// row its fetch read, as it would have in its context; any other fault stays a fault.
    func fireDetachedSnapshotFault() {
        guard case .snapshot(let snapshot) = faultState else { return }
        fillFromHeldRow(snapshot)
        awakeFromFetchWithoutRecording()
    }

    /// Makes the object a fault that reads its store when it next fires, and frees everything it held: its
    /// values, committed values, unsaved changes and invalid-value marks, and the snapshot or batch it held.
    func discardValues() {
        slots = layout.emptySlots
        committed = nil
        changedSlots = []
        invalidSlots = []
        faultState = .store
    }

    /// Drops the row a snapshot fault holds, so it fills as a `.store` fault when it fires (the row changed
    /// since the fetch); any other object is left as it is.
    func dropSnapshot() {
        guard case .snapshot = faultState else { return }
        committed = nil
        faultState = .store
    }

    /// Clears the to-one keys among `keys` (objects deleted elsewhere) from a snapshot fault's row, as a merge
    /// clears them from filled objects; any other object is left as it is.
    func forgetSnapshotReferences(to keys: Set<ObjectKey>) {
        guard case .snapshot = faultState, var values = committed, !keys.isEmpty else { return }
        var changed = false
        for index in values.indices {
            guard let key = values[index] as? ObjectKey, keys.contains(key) else { continue }
            values[index] = nil
            changed = true
        }
        if changed { committed = values }
    }
}

/// Making an object a fault, of each kind (see `FaultState`); contexts fill faults
/// (`NSManagedObjectContext+Faults.swift`).
extension NSManagedObject {
    /// Makes the object a fault holding the row a fetch read for it: the row's values (as the store gave
    /// them) become its committed values, its slots the entity's shared empty array, and it fills from them
    /// when it fires.
    func holdSnapshot(of row: StoreRow) {
        committed = row.values
        version = row.version
        slots = layout.emptySlots
        changedSlots = []
        faultState = .snapshot
    }

    /// Makes the object a fault that reads its store when it next fires, and frees everything it held: its
    /// values, committed values, unsaved changes and invalid-value marks, and a fetched snapshot or batch.
    func discardValues() {
        slots = layout.emptySlots
        committed = nil
        changedSlots = []
        invalidSlots = []
        faultState = .store
    }

    /// Drops the row a snapshot fault holds, so it reads its store when it fires (the row changed since the
    /// fetch); any other object is left as it is.
    func dropSnapshot() {
        guard case .snapshot = faultState else { return }
        committed = nil
        faultState = .store
    }

    /// Whether a snapshot fault's row refers to one of `keys` through a to-one relationship.
    func snapshotRefers(to keys: Set<ObjectKey>) -> Bool {
        guard case .snapshot = faultState, let committed, !keys.isEmpty else { return false }
        return committed.contains { ($0 as? ObjectKey).map(keys.contains) ?? false }
    }
}

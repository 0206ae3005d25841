/// Whether an object is a fault and, if it is, where its values come from when it fires.
///
/// An object's memory follows this state: a filled object holds its values (`slots`, `committed`); a
/// `.snapshot` fault holds only the row its fetch read (in `committed`, its slots the entity's shared empty
/// array); `.store` and `.batch` faults hold no values at all. Turning an object back into a fault
/// (`NSManagedObject.discardValues()`) frees whatever it held.
enum FaultState {
    /// Not a fault: the values are in the slots.
    case filled
    /// A fault that reads its row from its store when it fires (one `rows(for:)` call through the
    /// coordinator, or its ancestors' unsaved state in a child context).
    case store
    /// A fault made by a fetch that read its row: the row's values are in `committed` and its version in
    /// `version`, so firing fills the slots from them without calling the store (Apple's faults fulfilled
    /// from the row cache). Values fetched, not values current when the fault fires: a merge of another
    /// context's change to the object drops the snapshot (`.store`).
    case snapshot
    /// A fault made by a fetch with `fetchBatchSize`: firing it reads the rows of every fault of its batch
    /// still waiting, in one store call (`NSManagedObjectContext.fillBatch(_:)`).
    case batch(FaultBatch)
}

/// One batch of a fetch with `fetchBatchSize`: the keys of up to `fetchBatchSize` consecutive results of one
/// store, in result order. The faults the fetch made for them point to the batch until it is filled; the
/// batch holds keys only (packed, about 8 bytes a result), never objects, and lives as long as one of its
/// faults waits for it, so walking a batched array frees the keys batch by batch.
final class FaultBatch {
    /// The store the keys belong to.
    let store: NSPersistentStore
    /// The results' keys, in the order of the fetch.
    let keys: PackedObjectKeys
    /// The relationships the fetch prefetches, prefetched from the batch's objects when it fills.
    var prefetching: RelationshipPrefetchPlan?

    init(store: NSPersistentStore, keys: PackedObjectKeys) {
        self.store = store
        self.keys = keys
    }
}

/// Whether an object is a fault and, if it is, where its values come from when it fires; and which snapshot of
/// the coordinator's row cache (`RowCache`) the object holds, if any.
///
/// An object's memory follows this state: a filled object holds its values (`slots`, `committed`) and, when they
/// came from a row, that row's snapshot; a `.snapshot` fault holds only the snapshot its fetch read (`committed`
/// reads the snapshot's values until something writes them; its slots are the entity's shared empty array); `.store` and
/// `.batch` faults hold no values at all. Holding a snapshot keeps it in the row cache, where faults of other
/// contexts of the coordinator find it. Turning an object back into a fault (`NSManagedObject.discardValues()`)
/// frees whatever it held, its snapshot included. One word, like a single reference.
enum FaultState {
    /// Not a fault: the values are in the slots, and came from no row the object holds (a new or saved object
    /// without a snapshot, values adopted from a parent context, a row read outside the row cache).
    case filled
    /// Not a fault: the values are in the slots, filled from (or last saved as) this snapshot, which the object
    /// holds so that the row cache keeps it while the object lives.
    case filledFromRow(RowSnapshot)
    /// A fault that fills from the row cache's newest snapshot of its row when one is fresh enough for its
    /// context's `stalenessInterval`, else reads its store (one `rows(for:)` call through the coordinator), or
    /// its ancestors' unsaved state in a child context.
    case store
    /// A fault made by a fetch that read its row: it holds the row's snapshot (its values are what `committed`
    /// reads, its version in `version`). Firing fills it from the row cache's newest snapshot of the row (what a save
    /// through the coordinator wrote since, or this one), or reads the store when the cache no longer has the
    /// row (deleted, batch-changed or merged since) or the snapshot is too old for `stalenessInterval`.
    case snapshot(RowSnapshot)
    /// A fault made by a fetch with `fetchBatchSize`: firing it fills every fault of its batch still waiting,
    /// from the row cache and, for the rows it lacks, with one store call (`NSManagedObjectContext.fillBatch(_:)`).
    case batch(FaultBatch)

    /// The snapshot the object holds, if any.
    var heldSnapshot: RowSnapshot? {
        switch self {
        case .filledFromRow(let snapshot), .snapshot(let snapshot): return snapshot
        case .filled, .store, .batch: return nil
        }
    }
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

/// Filling faults: from the coordinator's row cache (`RowCache`, shared by the coordinator's contexts), with
/// the rest of a fetch's batch (`FaultState.batch`), or from the store.
///
/// Guarantees:
/// - A fault fires on first access to a property (and on `existingObject(with:)`), and calls `awakeFromFetch`
///   once its values are in place.
/// - A fault fills from the row cache's newest snapshot of its row, without a store call, when an object of the
///   coordinator still uses that snapshot and it is fresh enough for `stalenessInterval` (any age when negative,
///   the default; none when 0; read less than that many seconds ago when positive); else from its store. The
///   newest snapshot is what a save through the coordinator last wrote, or what a fetch or fault last read: a
///   fault that fires after another context of the coordinator saved its object shows the saved values, as on
///   Apple's platforms. A fault made by a fetch (`FaultState.snapshot`) whose snapshot is still the cache's fills
///   from the values it holds (a merged deletion may have cleared references in them), and knows so without the
///   cache's lock or a look-up (`RowSnapshot.isCacheNewest`).
/// - A context pinned to a query generation of the fault's store never fills from the row cache (whose rows may
///   be newer): a fault a fetch made fills from the row its fetch read, any other reads the generation.
/// - A batch fault fills every fault still waiting for its batch, from the row cache and with one
///   `rows(for:in:)` call for the rows the cache lacks.
/// - A fault whose row is gone, or whose store cannot be read, stays empty and, with
///   `shouldDeleteInaccessibleFaults` (the default), reports `isDeleted`; `existingObject(with:)` throws.
extension NSManagedObjectContext {
    /// Puts a row's values into an object and marks it saved and unchanged (the object holds no snapshot).
    func fill(_ object: NSManagedObject, with row: StoreRow) {
        object.fill(values: row.values, version: row.version)
    }

    /// Puts a snapshot's values into an object, marks it saved and unchanged, and has it hold the snapshot.
    func fill(_ object: NSManagedObject, from snapshot: RowSnapshot) {
        object.fill(from: snapshot)
    }

    /// Loads a fault's values. When the store no longer has the object, or cannot be read, it stays empty, and
    /// with `shouldDeleteInaccessibleFaults` (the default) it reports `isDeleted`, as Apple's contexts do for
    /// an inaccessible fault (a property access cannot throw; `existingObject(with:)` throws the error).
    func fulfillFault(of object: NSManagedObject) {
        do {
            try fulfillFaultThrowing(object)
        } catch {
            object.faulted = false
            if shouldDeleteInaccessibleFaults { object.deleted = true }
        }
    }

    /// Loads a fault's values, or throws (leaving it a fault): 133000 when its store no longer has it, the
    /// store's error when the store cannot be read.
    func fulfillFaultThrowing(_ object: NSManagedObject) throws {
        switch object.faultState {
        case .snapshot(let held):
            if try readsAtGeneration(object) {
                // Pinned: the row cache holds the newest rows, not the generation's; the fault's own row is.
                if stalenessInterval != 0 { return fillFromOwnSnapshot(object, holding: held) }
            } else if fillFromHeldSnapshot(object, holding: held) || fillFromRowCache(object, holding: held) {
                return
            }
            object.dropSnapshot()  // the cache has no usable row: read the store
        case .batch(let batch):
            try fillBatch(batch)
            if !object.faulted { return }  // else its row is gone, or an ancestor holds it: read it alone
        case .filled, .filledFromRow, .store:
            break
        }
        if parent != nil, let id = object.assignedID, let state = inheritedState(for: id) {
            guard !state.isDeleted else {
                throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                         "Core Data could not fulfill a fault for \(id.uriRepresentation().absoluteString): a parent context deleted the object.")
            }
            adopt(state, into: object)
            awakeFromFetchWithoutRecording(object)
            return
        }
        guard let id = object.assignedID, let key = id.key, let coordinator = persistentStoreCoordinator,
              let store = coordinator.store(for: id) else {
            if parent != nil, let id = object.assignedID, id.isTemporaryID {
                throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                         "Core Data could not fulfill a fault for \(id.uriRepresentation().absoluteString): no parent context has this unsaved object.")
            }
            object.faulted = false
            return
        }
        let rows = try coordinator.rowSnapshots(for: [key], in: store, stalenessInterval: stalenessInterval, at: try readingGeneration())
        guard let row = rows.first else {
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                     "Core Data could not fulfill a fault for \(id.uriRepresentation().absoluteString): the object was deleted from its store.")
        }
        fill(object, from: row)
        awakeFromFetchWithoutRecording(object)
    }

    /// Whether this context reads `object`'s store at a query generation (see
    /// `NSManagedObjectContext+QueryGenerations.swift`), so that the row cache must not fill its fault.
    /// - Throws: a store's error taking the context's generation.
    private func readsAtGeneration(_ object: NSManagedObject) throws -> Bool {
        guard let generation = try readingGeneration(),
              let store = object.assignedStoreIdentity?.handle as? NSPersistentStore else { return false }
        return generation.storeGeneration(of: store) != nil
    }

    /// Fills a fault a fetch made (holding `held`) from the values it holds: the row as its fetch read it.
    private func fillFromOwnSnapshot(_ object: NSManagedObject, holding held: RowSnapshot) {
        object.fill(values: object.committed ?? [], version: object.version)
        object.faultState = .filledFromRow(held)
        awakeFromFetchWithoutRecording(object)
    }

    /// The fast path of a fault a fetch made (holding `held`): when `held` is still the row cache's newest
    /// snapshot of its row (`RowSnapshot.isCacheNewest`) and fresh enough for `stalenessInterval`, fills the
    /// fault from the values it holds, as `fillFromRowCache` would, without the cache's lock, a look-up or
    /// reaching the store. Returns false, leaving the fault alone, otherwise (a newer snapshot, none, a
    /// `stalenessInterval` of 0 or a row too old): `fillFromRowCache` then decides.
    private func fillFromHeldSnapshot(_ object: NSManagedObject, holding held: RowSnapshot) -> Bool {
        let interval = stalenessInterval
        guard interval != 0, held.isCacheNewest else { return false }
        if interval > 0, !held.isFresh(forStalenessInterval: interval, now: RowSnapshot.now()) { return false }
        object.fillFromHeldRow(held)
        awakeFromFetchWithoutRecording(object)
        return true
    }

    /// Fills a fault a fetch made (holding `held`) from the row cache, when the cache's newest snapshot of its
    /// row is fresh enough for `stalenessInterval`: from the values the fault holds when that snapshot is `held`
    /// itself, else from the newer one. Returns false, leaving the fault alone, when the cache has no usable
    /// snapshot (the row was deleted, batch-changed or merged through the coordinator, or is too old).
    private func fillFromRowCache(_ object: NSManagedObject, holding held: RowSnapshot) -> Bool {
        guard let coordinator = persistentStoreCoordinator, let store = object.assignedStoreIdentity?.handle as? NSPersistentStore,
              let newest = coordinator.rowCache.snapshot(of: held.key, in: store, stalenessInterval: stalenessInterval) else { return false }
        if newest === held {
            object.fillFromHeldRow(held)
        } else {
            fill(object, from: newest)
        }
        awakeFromFetchWithoutRecording(object)
        return true
    }

    /// Fills every fault still waiting for `batch` with its row, from the row cache (as a single fault would)
    /// and, for the rows the cache lacks, with one store call, then calls their `awakeFromFetch`. Each waiting
    /// fault leaves the batch first: one whose row the store no longer has (or, in a child context, one an
    /// ancestor holds unsaved state for) is left a fault that reads on its own when it fires, and so is every
    /// one of them when the store cannot be read.
    /// - Throws: the store's error.
    func fillBatch(_ batch: FaultBatch) throws {
        let storeIdentity = batch.store.identity
        var waiting: [NSManagedObject] = []
        var keys: [ObjectKey] = []
        for key in batch.keys {
            guard let object = registered[NSManagedObjectID.Identity(store: storeIdentity, key: key)],
                  case .batch(let owner) = object.faultState, owner === batch else { continue }
            object.faultState = .store
            waiting.append(object)
            keys.append(key)
        }
        if parent != nil, let entity = waiting.first?.entity.rootEntity {
            // Objects an ancestor changed or deleted are read from the ancestor, as any fault of a child is.
            let inherited = inheritedChanges(touching: entity)
            if !inherited.isEmpty {
                let kept = waiting.indices.filter { index in waiting[index].assignedID.map { !inherited.has($0) } ?? false }
                waiting = kept.map { waiting[$0] }
                keys = kept.map { keys[$0] }
            }
        }
        guard !keys.isEmpty, let coordinator = persistentStoreCoordinator else { return }
        var filled: [NSManagedObject] = []
        filled.reserveCapacity(keys.count)
        for row in try coordinator.rowSnapshots(for: keys, in: batch.store, stalenessInterval: stalenessInterval, at: try readingGeneration()) {
            guard let object = registered[NSManagedObjectID.Identity(store: storeIdentity, key: row.key)],
                  case .store = object.faultState else { continue }
            fill(object, from: row)
            filled.append(object)
        }
        for object in filled { awakeFromFetchWithoutRecording(object) }
        if let plan = batch.prefetching { prefetchRelationships(ofFilledBatch: filled, plan: plan) }
    }

    /// Calls a just-filled object's `awakeFromFetch()` with this context's change recording suspended, so that
    /// values it sets (transient caches, as Apple's documentation suggests) neither dirty the object nor the
    /// context; the object reports `faultingState` 1 meanwhile.
    ///
    /// A method of the context, so the context is the caller's reference, borrowed: reached through an optional
    /// parameter, it was retained and released around the user's `awakeFromFetch()` for each fault, and contexts
    /// are weakly referenced by their objects, so both took the runtime's slow reference-counting path.
    func awakeFromFetchWithoutRecording(_ object: NSManagedObject) {
        object.changesFaultState = true
        defer { object.changesFaultState = false }
        guard !suspendsChangeRecording else { return object.awakeFromFetch() }
        suspendsChangeRecording = true
        ChangeRecordingHooks.begin()
        defer {
            suspendsChangeRecording = false
            ChangeRecordingHooks.end()
        }
        object.awakeFromFetch()
    }
}

/// Filling faults: from the row a fetch read (`FaultState.snapshot`), with the rest of a fetch's batch
/// (`FaultState.batch`), or from the store (`FaultState.store`).
///
/// Guarantees:
/// - A fault fires on first access to a property (and on `existingObject(with:)`), and calls `awakeFromFetch`
///   once its values are in place.
/// - A snapshot fault fills from the values its fetch read, without a store call: a fault of a default fetch
///   reads as the object read at the fetch would have; with `stalenessInterval` 0 it reads its store instead.
/// - A batch fault fills every fault still waiting for its batch with one `rows(for:in:)` call.
/// - A fault whose row is gone, or whose store cannot be read, stays empty and, with
///   `shouldDeleteInaccessibleFaults` (the default), reports `isDeleted`; `existingObject(with:)` throws.
extension NSManagedObjectContext {
    /// Puts a row's values into an object and marks it saved and unchanged.
    func fill(_ object: NSManagedObject, with row: StoreRow) {
        fill(object, values: row.values, version: row.version)
    }

    /// Puts a row's values (by slot, as the store gave them) into an object and marks it saved and unchanged.
    private func fill(_ object: NSManagedObject, values row: [Any?], version: Int64) {
        object.fill(values: row, version: version)
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
        case .snapshot where stalenessInterval == 0:
            object.dropSnapshot()  // no staleness accepted: read the store
        case .snapshot:
            fill(object, values: object.committed ?? [], version: object.version)
            object.awakeFromFetchWithoutRecording()
            return
        case .batch(let batch):
            try fillBatch(batch)
            if !object.faulted { return }  // else its row is gone, or an ancestor holds it: read it alone
        case .filled, .store:
            break
        }
        if parent != nil, let id = object.assignedID, let state = inheritedState(for: id) {
            guard !state.isDeleted else {
                throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                         "Core Data could not fulfill a fault for \(id.uriRepresentation().absoluteString): a parent context deleted the object.")
            }
            adopt(state, into: object)
            object.awakeFromFetchWithoutRecording()
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
        let rows = try coordinator.rows(for: [key], in: store)
        guard let row = rows.first else {
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                     "Core Data could not fulfill a fault for \(id.uriRepresentation().absoluteString): the object was deleted from its store.")
        }
        fill(object, with: row)
        object.awakeFromFetchWithoutRecording()
    }

    /// Fills every fault still waiting for `batch` with its current row, read with one store call, then calls
    /// their `awakeFromFetch`. Each waiting fault leaves the batch first: one whose row the store no longer has
    /// (or, in a child context, one an ancestor holds unsaved state for) is left a fault that reads on its own
    /// when it fires, and so is every one of them when the store cannot be read.
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
        for row in try coordinator.rows(for: keys, in: batch.store) {
            guard let object = registered[NSManagedObjectID.Identity(store: storeIdentity, key: row.key)],
                  case .store = object.faultState else { continue }
            fill(object, with: row)
            filled.append(object)
        }
        for object in filled { object.awakeFromFetchWithoutRecording() }
        if let plan = batch.prefetching { prefetchRelationships(ofFilledBatch: filled, plan: plan) }
    }
}

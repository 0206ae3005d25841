/// Looking objects up by ID, making and filling faults, and loading to-many relationships.
extension NSManagedObjectContext {
    /// The object with this ID: the registered one, or a new fault (which fails to load if the object does not
    /// exist). Use `existingObject(with:)` to find out.
    public func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        checkQueue("object(with:)")
        if let object = registeredObject(for: objectID) { return object }
        let object = makeObject(entity: objectID.entity)
        object.assignedID = objectID
        object.faulted = true
        register(object)
        return object
    }

    /// The object with this ID, loaded from its store if needed.
    /// - Throws: 133000 when no store has the object.
    public func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        checkQueue("existingObject(with:)")
        if let object = registeredObject(for: objectID) {
            if object.faulted { try fulfillFaultThrowing(object) }
            return object
        }
        if parent != nil {
            // A child context looks through its ancestors first: the object may be one they inserted.
            let object = self.object(with: objectID)
            do {
                try fulfillFaultThrowing(object)
            } catch {
                registered.remove(objectID.identity)
                object.managedObjectContext = nil
                throw error
            }
            return object
        }
        guard let key = objectID.key, let coordinator = persistentStoreCoordinator, let store = coordinator.store(for: objectID) else {
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError, "No object with ID \(objectID.uriRepresentation().absoluteString) exists in this context's stores.")
        }
        // Whether the object exists is asked of the store itself (the row read is recorded in the row cache).
        let rows = try coordinator.rowSnapshots(for: [key], in: store, stalenessInterval: 0, at: try readingGeneration())
        guard let row = rows.first else {
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError, "No object with ID \(objectID.uriRepresentation().absoluteString) exists in its store.")
        }
        var memo = MaterializationMemo(store: store, fallback: nil)
        guard let object = materialize(row: row, refresh: false, memo: &memo) else {
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError, "The store has no entity numbered \(row.key.entityNumber) in this model.")
        }
        return object
    }

    /// A new object of the entity's class, outside any context.
    func makeObject(entity: NSEntityDescription, fallback: NSManagedObject.Type? = nil) -> NSManagedObject {
        ManagedObjectClassRegistry.shared.objectClass(for: entity, fallback: fallback).init(instantiating: entity, insertInto: nil)
    }

    /// The registered object for a row of `store` read outside the row cache, filled from the row unless it has
    /// unsaved changes; nil for a row whose entity number the model does not have.
    func materialize(row: StoreRow, store: NSPersistentStore, refresh: Bool = false, fallback: NSManagedObject.Type? = nil) -> NSManagedObject? {
        var memo = MaterializationMemo(store: store, fallback: fallback)
        return materialize(row: RowSnapshot(row, readTime: RowSnapshot.now()), refresh: refresh, memo: &memo)
    }

    /// The registered object for a row of the memo's store (a snapshot of the coordinator's row cache), with the
    /// entities and classes looked up so far; filled from the row unless it has unsaved changes, and then holding
    /// the snapshot. With `asFault`, an object that is not filled yet (new, or a registered fault) becomes a
    /// fault holding the snapshot (`FaultState.snapshot`), filled when it fires without calling the store; a
    /// filled object is treated as without `asFault`.
    func materialize(row: RowSnapshot, refresh: Bool, asFault: Bool = false, memo: inout MaterializationMemo) -> NSManagedObject? {
        // A registered object is found without making its ID.
        if let object = registered[NSManagedObjectID.Identity(store: memo.store.identity, key: row.key)] {
            if object.faulted, asFault {
                object.holdSnapshot(row)
            } else if object.faulted || (refresh && !object.hasChanges) {
                fill(object, from: row)
                object.awakeFromFetchWithoutRecording()
            }
            return object
        }
        guard let object = memo.makeObject(for: row.key) else { return nil }
        object.assignKey(row.key, in: memo.store.identity)
        if asFault {
            object.holdSnapshot(row)
            register(object)
        } else {
            fill(object, from: row)
            register(object)
            object.awakeFromFetchWithoutRecording()
        }
        return object
    }

    /// The registered object for a key of the memo's store, or a new fault for it (nil for a key whose entity
    /// number the model does not have). A fault that would read its store alone is given `batch`, when there
    /// is one, so that it fills with the rest of its batch.
    func fault(for key: ObjectKey, batch: FaultBatch?, memo: inout MaterializationMemo) -> NSManagedObject? {
        if let object = registered[NSManagedObjectID.Identity(store: memo.store.identity, key: key)] {
            if let batch, case .store = object.faultState { object.faultState = .batch(batch) }
            return object
        }
        guard let object = memo.makeObject(for: key) else { return nil }
        object.assignKey(key, in: memo.store.identity)
        object.faultState = batch.map { .batch($0) } ?? .store
        register(object)
        return object
    }

    /// The object a to-one key of `near`'s store names (registered, or a new fault).
    func object(for key: ObjectKey, near other: NSManagedObject) -> NSManagedObject? {
        guard let store = other.assignedStoreIdentity?.handle as? NSPersistentStore,
              let entity = persistentStoreCoordinator?.managedObjectModel.entity(withNumber: key.entityNumber) else { return nil }
        return object(with: store.objectID(for: key, entity: entity))
    }

    /// The destinations of a saved object's to-many relationship, from its store (or an ancestor context).
    /// - Throws: the store's error when the store cannot be read; never an empty relationship in its place.
    func loadToMany(of object: NSManagedObject, relationship: NSRelationshipDescription) throws -> [NSManagedObject] {
        if parent != nil, let id = object.assignedID, let state = inheritedState(for: id), !state.isDeleted,
           let slot = object.layout.slotByName[relationship.name], slot < state.values.count,
           let ids = state.values[slot] as? [NSManagedObjectID] {
            return ids.map { self.object(with: $0) }
        }
        guard let id = object.assignedID, let key = id.key, let coordinator = persistentStoreCoordinator,
              let store = coordinator.store(for: id) else { return [] }
        let keys = try coordinator.relatedKeys(of: key, through: relationship, in: store, at: try readingGeneration())
        return keys.compactMap { self.object(for: $0, near: object) }
    }

    /// Gives permanent IDs to objects that have temporary ones, allocating keys in their stores.
    /// - Throws: 134070 when an object's entity is in no store, or a store error (no object changes then).
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        checkQueue("obtainPermanentIDs(for:)")
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.operation("The context has no persistent store coordinator.")
        }
        try givePermanentIDs(to: objects, coordinator: coordinator)
    }

    /// `obtainPermanentIDs(for:)`, for a caller that has checked the queue and found the coordinator (a save).
    ///
    /// One pass finds the objects that need IDs, in runs of one entity and store; the coordinator allocates their keys
    /// (one store call per store and entity hierarchy); a second pass makes each ID from its run's entity and store
    /// and registers the object by it. An object of this context whose temporary ID a child context may still name
    /// stays findable by it (`formerTemporaryIDs`); an object of no context or another context gets its ID without
    /// being registered here. Returns the store every one of `objects` got its ID in, when there is one (each object
    /// had a temporary ID, and all go to one store: a save's inserted objects, the usual case), so a save need not
    /// walk the objects again to find their stores; else nil.
    /// - Throws: 134070 when an object's entity is in no store, or a store error (no object changes then).
    @discardableResult
    func givePermanentIDs(to objects: [NSManagedObject], coordinator: NSPersistentStoreCoordinator) throws -> NSPersistentStore? {
        let (waiting, runs) = try runsForNewIDs(objects)
        guard !waiting.isEmpty else { return nil }
        let keys = try coordinator.permanentKeys(for: runs)
        registered.reserveCapacity(registered.count + waiting.count)
        // The objects are lent by the list (no reference taken per object); the runs are walked alongside.
        var run = 0, leftInRun = runs[0].count
        var entity = runs[0].entity, entityNumber = entity.entityNumber, storeIdentity = runs[0].store.identity
        waiting.forEachBorrowed { index, object in
            if leftInRun == 0 {
                run += 1
                leftInRun = runs[run].count
                entity = runs[run].entity
                entityNumber = entity.entityNumber
                storeIdentity = runs[run].store.identity
            }
            leftInRun -= 1
            let id = NSManagedObjectID(entity: entity, key: ObjectKey(entityNumber: entityNumber, primaryKey: keys[index]), store: storeIdentity)
            if object.managedObjectContext === self {
                if receivesChildSaves, let old = object.assignedID, old.isTemporaryID { formerTemporaryIDs[old.identity] = object }
                reregister(object, as: id)
            } else {
                object.assignedID = id
            }
        }
        let store = runs[0].store
        return waiting.count == objects.count && runs.allSatisfy({ $0.store === store }) ? store : nil
    }

    /// Gives one of the context's objects the ID `id` and registers it by it. The table finds objects by the
    /// IDs they have, so the entry under the old ID goes first; an object that was registered by a temporary ID
    /// (a child context's object for its parent's insert) stays findable by it, as a saved object is by the
    /// temporary ID it had (`formerTemporaryIDs`).
    func reregister(_ object: NSManagedObject, as id: NSManagedObjectID) {
        if let old = object.assignedIdentity, registered[old] === object {
            registered.remove(old)
            if old.isTemporary { formerTemporaryIDs[old] = object }
        }
        object.assignedID = id
        registered.insert(object)
    }

    /// The objects among `objects` that have temporary IDs, in order, and the runs of them of one entity going to
    /// one store (`NewObjectRun`), which together count every object listed. When every object has a temporary ID
    /// (a save's inserted objects, the usual case), the list returned is `objects` itself: its buffer is shared, with
    /// no reference per object taken and dropped again; else it is copied from the first object left out on. The
    /// objects are lent by `objects` while they are walked.
    /// - Throws: 134070 when an object's entity is in no store.
    private func runsForNewIDs(_ objects: [NSManagedObject]) throws -> ([NSManagedObject], [NewObjectRun]) {
        var waiting: [NSManagedObject]?  // nil while every object so far waits
        var runs: [NewObjectRun] = []
        var storeByEntity: [ObjectIdentifier: NSPersistentStore] = [:]
        // The entity of the last run when its last object was plain (below): the run's store is then the one every
        // plain object of that entity goes to.
        var plainRunEntity: ObjectIdentifier?
        try objects.forEachBorrowed { index, object in
            guard object.assignedID?.isTemporaryID ?? true else {
                if waiting == nil { waiting = Array(objects[..<index]) }
                return
            }
            waiting?.append(object)
            // A plain object (no store assigned to any object, no ID naming one) goes to the first store holding its
            // entity. Objects mostly come in runs of one entity: a plain object of the last run's entity joins that
            // run without a look-up or a reference to its entity or store.
            let plain = object.assignedStoreIdentity == nil && assignedStores.isEmpty
            let entity = ObjectIdentifier(object.entity)
            if plain, entity == plainRunEntity {
                runs[runs.count - 1].count += 1
                return
            }
            let store: NSPersistentStore
            if plain, let known = storeByEntity[entity] {
                store = known
            } else {
                store = try self.store(forNew: object)
                if plain { storeByEntity[entity] = store }
            }
            if let last = runs.last, last.entity === object.entity, last.store === store {
                runs[runs.count - 1].count += 1
            } else {
                runs.append(NewObjectRun(entity: object.entity, store: store, count: 1))
            }
            plainRunEntity = plain ? entity : nil
        }
        return (waiting ?? objects, runs)
    }

    /// The store a new object goes to: the assigned one, else the first store whose configuration holds its entity.
    func store(forNew object: NSManagedObject) throws -> NSPersistentStore {
        if let id = object.assignedID, let store = id.persistentStore { return store }
        if let assigned = assignedStores[ObjectIdentifier(object)] { return assigned }
        guard let store = persistentStoreCoordinator?.firstStore(holding: object.entity) else {
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "No persistent store of this context's coordinator holds entity \(object.entity.name ?? ""); add a store before saving.",
                                     userInfo: [NSAffectedObjectsErrorKey: [object]])
        }
        return store
    }
}

/// Fetching, counting and executing store requests, with unsaved changes taken into account.
extension NSManagedObjectContext {
    /// The objects (or IDs, dictionaries, or a count) a fetch request selects.
    ///
    /// With `includesPendingChanges` (the default), unsaved inserts that match are included, deleted objects
    /// are left out, and changed objects are matched on their current values; dictionary results show only
    /// saved values, as on Apple's platforms. Pending changes are processed first (`processPendingChanges()`).
    /// - Throws: 134060 for a request without a known entity or with a malformed predicate; a store error.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        checkQueue("fetch(_:) of \(request.entityName ?? "an entity")")
        if !pendingObjects.isEmpty { processPendingChanges() }
        releaseUnreferencedObjects(.fetching)
        // Objects go straight into the typed array, without a detour through an array of `Any`.
        if returnsObjects(request) {
            noteResultClass(of: request)
            let (entity, stores) = try prepare(request)
            return try fetchObjects(request, entity: entity, stores: stores, as: T.self)
        }
        return try typed(try fetchResults(request))
    }

    /// The results as the request's result type, or 134060 naming the mismatch.
    private func typed<T, Results: Collection>(_ results: Results) throws -> [T] {
        var typed: [T] = []
        typed.reserveCapacity(results.count)
        for item in results {
            guard let value = item as? T else { throw wrongResultType(item, T.self) }
            typed.append(value)
        }
        return typed
    }

    private func wrongResultType<T>(_ item: Any, _ type: T.Type) -> NSError {
        CoreDataError.make(NSCoreDataError, "The fetch returned \(Swift.type(of: item)) values, which are not \(T.self); check the request's resultType.")
    }

    /// The number of objects a fetch request would return.
    /// - Throws: as `fetch(_:)`.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        checkQueue("count(for:) of \(request.entityName ?? "an entity")")
        let (entity, stores) = try prepare(request)
        if request.resultType == .dictionaryResultType, Self.needsComputedDictionaries(request) {
            return try fetchComputedDictionaries(request, entity: entity, stores: stores).count
        }
        if usesPendingChanges(request, entity: entity) || inheritsChanges(to: entity) {
            return try fetchObjects(request, entity: entity, stores: stores).count
        }
        let single = stores.count == 1
        let storeRequest = storeFetchRequest(request, entity: entity, result: .count, pushLimits: single)
        var total = try fetchingCoordinator().count(storeRequest, in: stores)
        if !single { total = max(0, total - request.fetchOffset); if request.fetchLimit > 0 { total = min(total, request.fetchLimit) } }
        return total
    }

    /// Runs a store request: a batch delete (returns `NSBatchDeleteResult`), a batch update
    /// (`NSBatchUpdateResult`), a batch insert (`NSBatchInsertResult`), or starts an asynchronous fetch
    /// (returns its `NSAsynchronousFetchResult` at once; the fetch runs later on the context's queue).
    /// - Throws: 134091 for request types not supported yet.
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        checkQueue("execute(_:) of \(type(of: request))")
        if let delete = request as? NSBatchDeleteRequest { return try executeBatchDelete(delete) }
        if let asynchronous = request as? AsynchronousFetchStarting { return asynchronous.start(in: self) }
        if let history = request as? NSPersistentHistoryChangeRequest { return try executeHistoryRequest(history) }
        return try executeBatchRequest(request)
    }

    // MARK: The pieces

    /// Whether the request returns managed objects (every result type but count, dictionaries and IDs).
    private func returnsObjects<T>(_ request: NSFetchRequest<T>) -> Bool {
        switch request.resultType {
        case .countResultType, .dictionaryResultType, .managedObjectIDResultType: return false
        default: return true
        }
    }

    /// The objects a request returns (for the result types of `returnsObjects`).
    private func fetchObjects<T>(_ request: NSFetchRequest<T>) throws -> [NSManagedObject] {
        noteResultClass(of: request)
        let (entity, stores) = try prepare(request)
        return try fetchObjects(request, entity: entity, stores: stores)
    }

    /// Records that a typed request's class represents its entity.
    private func noteResultClass<T>(of request: NSFetchRequest<T>) {
        if let objectClass = T.self as? NSManagedObject.Type, let entity = try? resolveEntity(request) {
            ManagedObjectClassRegistry.shared.register(objectClass, for: entity)
        }
    }

    private func fetchResults<T>(_ request: NSFetchRequest<T>) throws -> [Any] {
        if returnsObjects(request) { return try fetchObjects(request) }
        noteResultClass(of: request)
        let (entity, stores) = try prepare(request)
        switch request.resultType {
        case .countResultType:
            return [NSNumber(value: try count(for: request))]
        case .dictionaryResultType:
            if Self.needsComputedDictionaries(request) { return try fetchComputedDictionaries(request, entity: entity, stores: stores) }
            return try fetchDictionaries(request, entity: entity, stores: stores)
        case .managedObjectIDResultType:
            if usesPendingChanges(request, entity: entity) || inheritsChanges(to: entity) {
                return try fetchObjects(request, entity: entity, stores: stores).map(\.objectID)
            }
            return try fetchIDs(request, entity: entity, stores: stores)
        default:
            return try fetchObjects(request, entity: entity, stores: stores)
        }
    }

    /// The request's entity and the stores that hold it.
    private func prepare<T>(_ request: NSFetchRequest<T>) throws -> (NSEntityDescription, [NSPersistentStore]) {
        let entity = try resolveEntity(request)
        try InMemoryQuery.validate(request.predicate, entity: entity)
        try nameKeyPathSorts(of: request, entity: entity)
        if request.propertiesToGroupBy != nil || request.havingPredicate != nil, request.resultType != .dictionaryResultType {
            throw CoreDataError.make(NSCoreDataError, "propertiesToGroupBy and havingPredicate need resultType .dictionaryResultType.")
        }
        return (entity, try fetchingCoordinator().stores(holding: entity, among: request.affectedStores))
    }

    /// Replaces sort descriptors made from Swift key paths (`NSSortDescriptor(keyPath: \Book.title, …)`) by
    /// descriptors with the property names they read, which stores sort by. Contexts on other queues may do the
    /// same with the same request at once: its `sortDescriptors` is locked, and each writes the same names.
    /// - Throws: 134060 naming the descriptor when its key path reads no property of the entity that a store can
    ///   sort by (a computed property of the class, a to-many relationship).
    private func nameKeyPathSorts<T>(of request: NSFetchRequest<T>, entity: NSEntityDescription) throws {
        guard let sorts = request.sortDescriptors, sorts.contains(where: \.sortsBySwiftKeyPath) else { return }
        request.sortDescriptors = try sorts.map { descriptor in
            guard descriptor.sortsBySwiftKeyPath else { return descriptor }
            guard let key = KeyPathPropertyNames.names(of: descriptor.keyPath, rootEntity: entity) else {
                throw CoreDataError.make(NSCoreDataError, "The sort descriptor's key path \(descriptor.keyPath) reads no "
                    + "attribute or to-one relationship of \(entity.name ?? "the entity"); sort by a property of the model, "
                    + "or with NSSortDescriptor(key:ascending:).")
            }
            return NSSortDescriptor(key: key, ascending: descriptor.ascending)
        }
    }

    /// The coordinator that fetches go through.
    /// - Throws: 134070 when the context has none.
    private func fetchingCoordinator() throws -> NSPersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.operation("The context has no persistent store coordinator to fetch from.")
        }
        return coordinator
    }

    func resolveEntity<T>(_ request: NSFetchRequest<T>) throws -> NSEntityDescription {
        let model = persistentStoreCoordinator?.managedObjectModel
        if let entity = request.entity, let name = entity.name, let inModel = model?.entitiesByName[name] {
            return inModel
        }
        if let name = request.entityName, let entity = model?.entitiesByName[name] { return entity }
        throw CoreDataError.make(NSCoreDataError,
                                 "The fetch request names entity \"\(request.entityName ?? "nil")\", which the context's model does not have.")
    }

    private func usesPendingChanges<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) -> Bool {
        guard request.includesPendingChanges, hasChanges else { return false }
        let related = { (object: NSManagedObject) in object.entity.isKindOf(entity: entity) }
        return insertedSet.values.contains(where: related) || updatedSet.values.contains(where: related) || deletedSet.values.contains(where: related)
    }

    /// Whether an ancestor context holds unsaved changes to objects of `entity` (never for a root context).
    private func inheritsChanges(to entity: NSEntityDescription) -> Bool {
        parent != nil && ancestorsHaveChanges(touching: entity)
    }

    private func storeFetchRequest<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription,
                                      result: StoreFetchRequest.ResultKind, pushLimits: Bool) -> StoreFetchRequest {
        StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                          sortDescriptors: request.sortDescriptors ?? [],
                          fetchLimit: pushLimits ? request.fetchLimit : 0, fetchOffset: pushLimits ? request.fetchOffset : 0,
                          result: result)
    }

    private func fetchObjects<ResultType>(_ request: NSFetchRequest<ResultType>, entity: NSEntityDescription, stores: [NSPersistentStore]) throws -> [NSManagedObject] {
        try fetchObjects(request, entity: entity, stores: stores, as: NSManagedObject.self)
    }

    /// The objects a request returns, as `Element`s (the request's result type): straight into the array the
    /// caller gets when the store's results need no merging, else merged with pending changes, sorted and cut
    /// first.
    /// - Throws: as `fetch(_:)`; 134060 when an object is not an `Element`.
    private func fetchObjects<ResultType, Element>(_ request: NSFetchRequest<ResultType>, entity: NSEntityDescription, stores: [NSPersistentStore],
                                                   as elementType: Element.Type) throws -> [Element] {
        // A child context sees its ancestors' unsaved changes whatever `includesPendingChanges` says: to it,
        // they are the saved state.
        let inherited = parent == nil ? nil : inheritedChanges(touching: entity)
        let inheritedTouch = inherited?.touches(entity) ?? false
        let own = usesPendingChanges(request, entity: entity)
        let pending = own || inheritedTouch
        let pushLimits = stores.count == 1 && !pending
        // With limits pushed to the store the results are final: they go straight into the caller's array.
        var objects: [NSManagedObject] = []
        var results: [Element] = []
        func reserve(_ count: Int) {
            if pushLimits { results.reserveCapacity(results.count + count) } else { objects.reserveCapacity(objects.count + count) }
            registered.reserveCapacity(registered.count + count)
        }
        func collect(_ object: NSManagedObject) throws {
            guard pushLimits else { objects.append(object); return }
            guard let result = object as? Element else { throw wrongResultType(object, Element.self) }
            results.append(result)
        }
        var overlaid = Set<ObjectIdentifier>()
        /// The object for a stored row's ID when an ancestor changed it (nil for one an ancestor deleted).
        func inheritedObject(_ id: NSManagedObjectID?) -> NSManagedObject?? {
            guard inheritedTouch, let id, let state = inherited?.states[id.identity] else { return .none }
            if state.isDeleted { return .some(nil) }
            let object = adoptedObject(state)
            overlaid.insert(ObjectIdentifier(object))
            return .some(object)
        }
        let coordinator = try fetchingCoordinator()
        let fallback = (ResultType.self as? NSManagedObject.Type).flatMap { $0 == NSManagedObject.self ? nil : $0 }
        // Managed-object results come back as faults when the request allows it (Apple's default); a fetch for
        // IDs or a count fills what it reads, as it always did.
        let returnsFaults = request.resultType == .managedObjectResultType && request.returnsObjectsAsFaults
        let batchSize = request.resultType == .managedObjectResultType ? max(0, request.fetchBatchSize) : 0
        if request.includesPropertyValues && batchSize == 0 {
            let storeRequest = storeFetchRequest(request, entity: entity, result: .rows, pushLimits: pushLimits)
            for (store, rows) in try coordinator.fetchRowSnapshots(storeRequest, from: stores) {
                reserve(rows.count)
                var memo = MaterializationMemo(store: store, fallback: fallback)
                for row in rows {
                    if inheritedTouch, case .some(let object) = inheritedObject(store.objectID(for: row.key)) {
                        if let object { try collect(object) }
                    } else if let object = materialize(row: row, refresh: request.shouldRefreshRefetchedObjects, asFault: returnsFaults, memo: &memo) {
                        try collect(object)
                    }
                }
            }
        } else {
            // Keys only: faults that read their store (`includesPropertyValues = false`), or with a batch size
            // faults that fill a batch at a time.
            let storeRequest = storeFetchRequest(request, entity: entity, result: .keys, pushLimits: pushLimits)
            // The store's keys are packed in chunks (8 bytes a key instead of 16) before the first fault is made,
            // and each chunk goes once its faults are made, so the keys and the faults never take memory at the
            // same time. A chunk holds whole batches; each batch packs its own keys, which go with it once it is
            // filled.
            let chunkSize = batchSize > 0 ? max(1, PackedObjectKeys.chunkSize / batchSize) * batchSize : PackedObjectKeys.chunkSize
            var keyLists = try coordinator.fetchKeys(storeRequest, from: stores).map { (store: $0.store, chunks: PackedObjectKeys.chunks(of: $0.keys, size: chunkSize)) }
            for list in keyLists.indices {
                let store = keyLists[list].store
                reserve(keyLists[list].chunks.reduce(0) { $0 + $1.count })
                var memo = MaterializationMemo(store: store, fallback: fallback)
                for chunk in keyLists[list].chunks.indices {
                    let keys = keyLists[list].chunks[chunk]
                    keyLists[list].chunks[chunk] = PackedObjectKeys()  // freed with `keys`, once its faults are made
                    var batchKeys = keys.makeIterator()
                    var batch: FaultBatch?
                    for (index, key) in keys.enumerated() {
                        if batchSize > 0, index % batchSize == 0 {
                            batch = FaultBatch(store: store, keys: PackedObjectKeys(batchSize, from: &batchKeys))
                        }
                        if inheritedTouch, case .some(let object) = inheritedObject(store.objectID(for: key)) {
                            if let object { try collect(object) }
                        } else if let object = fault(for: key, batch: batch, memo: &memo) {
                            try collect(object)
                        }
                    }
                }
            }
        }
        if pushLimits { return results }
        if pending {
            let matches = { (object: NSManagedObject) throws -> Bool in
                guard object.entity === entity || (request.includesSubentities && object.entity.isKindOf(entity: entity)) else { return false }
                return try InMemoryQuery.matches(request.predicate, object)
            }
            let includeOwn = request.includesPendingChanges
            var seen = Set<ObjectIdentifier>()
            var merged: [NSManagedObject] = []
            for object in objects where !object.deleted {
                let changed = (includeOwn && updatedSet[ObjectIdentifier(object)] != nil) || overlaid.contains(ObjectIdentifier(object))
                if changed, try !matches(object) { continue }
                if seen.insert(ObjectIdentifier(object)).inserted { merged.append(object) }
            }
            if includeOwn {
                for object in updatedSet.values where !object.deleted && !seen.contains(ObjectIdentifier(object)) {
                    if try matches(object) { seen.insert(ObjectIdentifier(object)); merged.append(object) }
                }
            }
            if inheritedTouch, let inherited {
                for state in inherited.ordered where !state.isDeleted && state.entity.isKindOf(entity: entity) {
                    let object = adoptedObject(state)
                    guard !object.deleted, !object.inserted, !seen.contains(ObjectIdentifier(object)) else { continue }
                    if try matches(object) { seen.insert(ObjectIdentifier(object)); merged.append(object) }
                }
            }
            if includeOwn {
                for object in insertionOrder where object.inserted {
                    if try matches(object) { merged.append(object) }
                }
            }
            objects = merged
        }
        if let sorts = request.sortDescriptors, !sorts.isEmpty {
            try InMemoryQuery.sort(&objects, by: sorts)
        }
        var slice = ArraySlice(objects)
        if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
        return try typed(slice)
    }

    private func fetchIDs<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, stores: [NSPersistentStore]) throws -> [NSManagedObjectID] {
        guard stores.count == 1, let store = stores.first else {
            return try fetchObjects(request, entity: entity, stores: stores).map(\.objectID)
        }
        let storeRequest = storeFetchRequest(request, entity: entity, result: .keys, pushLimits: true)
        let keys = try fetchingCoordinator().fetchKeys(storeRequest, from: [store]).first?.keys ?? []
        return keys.compactMap { store.objectID(for: $0) }
    }

    private func fetchDictionaries<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, stores: [NSPersistentStore]) throws -> [NSDictionary] {
        let layout = entity.layout
        var properties: [NSPropertyDescription] = []
        for item in request.propertiesToFetch ?? layout.allProperties.filter({ !$0.isTransient && !(($0 as? NSRelationshipDescription)?.isToMany ?? false) }) {
            let name = (item as? NSPropertyDescription)?.name ?? (item as? String)
            guard let name, let property = layout.propertiesByName[name], !property.isTransient,
                  !((property as? NSRelationshipDescription)?.isToMany ?? false) else {
                throw CoreDataError.make(NSCoreDataError, "propertiesToFetch names \"\(item)\", which is not an attribute or to-one relationship of \(entity.name ?? "").")
            }
            properties.append(property)
        }
        let single = stores.count == 1
        var result: [NSDictionary] = []
        let storeRequest = storeFetchRequest(request, entity: entity, result: .dictionaries(properties: properties, distinct: request.returnsDistinctResults),
                                             pushLimits: single)
        for (store, rows) in try fetchingCoordinator().fetchDictionaries(storeRequest, from: stores) {
            for row in rows {
                var dictionary: [String: Any] = [:]
                for property in properties {
                    guard let value = row[property.name] else { continue }
                    if let key = value as? ObjectKey {
                        dictionary[property.name] = store.objectID(for: key)
                    } else if let attribute = property as? NSAttributeDescription {
                        var stored = value
                        if attribute.attributeType == .transformableAttributeType, let data = value as? Data {
                            stored = TransformableStorage.value(from: data, attribute: attribute)
                        }
                        dictionary[property.name] = NSManagedObject.publicForm(stored, attribute.attributeType)
                    }
                }
                result.append(NSDictionary(dictionary: dictionary))
            }
        }
        if single { return result }
        // Several stores: sort, drop duplicates, offset and limit the combined rows.
        if let sorts = request.sortDescriptors, !sorts.isEmpty { try InMemoryQuery.sort(&result, by: sorts) }
        return distinctAndLimited(result, request)
    }

    /// Dictionary results without repeats (with `returnsDistinctResults`), after the offset, up to the limit.
    func distinctAndLimited<T>(_ dictionaries: [NSDictionary], _ request: NSFetchRequest<T>) -> [NSDictionary] {
        var results = dictionaries
        if request.returnsDistinctResults {
            var seen = Set<NSDictionary>()
            results = results.filter { seen.insert($0).inserted }
        }
        var slice = ArraySlice(results)
        if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
        return Array(slice)
    }

    private func executeBatchDelete(_ request: NSBatchDeleteRequest) throws -> NSBatchDeleteResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.operation("The context has no persistent store coordinator.")
        }
        let work = try batchDeleteParts(request, coordinator: coordinator)
        // Only the object-ID result needs the deleted keys; the others let the store skip collecting them.
        switch request.resultType {
        case .resultTypeObjectIDs:
            return NSBatchDeleteResult(result: try coordinator.batchDelete(work), resultType: .resultTypeObjectIDs)
        case .resultTypeCount:
            return NSBatchDeleteResult(result: NSNumber(value: try coordinator.batchDeleteCount(work)), resultType: .resultTypeCount)
        case .resultTypeStatusOnly:
            _ = try coordinator.batchDeleteCount(work)
            return NSBatchDeleteResult(result: NSNumber(value: true), resultType: .resultTypeStatusOnly)
        }
    }

    /// What to delete in each store, worked out before anything is deleted: the request's IDs by store, the
    /// fetch's matches in each store holding its entity, or (a limit across several stores) the IDs the fetch
    /// finds first.
    private func batchDeleteParts(_ request: NSBatchDeleteRequest,
                                  coordinator: NSPersistentStoreCoordinator) throws -> [(store: NSPersistentStore, request: StoreBatchDeleteRequest)] {
        if let ids = request.objectIDs {
            return coordinator.keysByStore(ids).map { ($0.store, .keys($0.keys)) }
        }
        let fetch = request.fetchRequest
        let (entity, stores) = try prepare(fetch)
        guard stores.count > 1, fetch.fetchLimit > 0 || fetch.fetchOffset > 0 else {
            return stores.map { ($0, .matching(storeFetchRequest(fetch, entity: entity, result: .keys, pushLimits: stores.count == 1))) }
        }
        let idRequest = NSFetchRequest<NSManagedObjectID>()
        idRequest.copyFields(from: fetch)
        idRequest.resultType = .managedObjectIDResultType
        idRequest.includesPendingChanges = false
        let ids = try fetchIDs(idRequest, entity: entity, stores: stores)
        return coordinator.keysByStore(ids).map { ($0.store, .keys($0.keys)) }
    }
}

extension NSEntityDescription {
    /// The entity named `entityName` in the model of `context`'s coordinator.
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }

    /// Makes an object of the named entity and inserts it into `context`. An entity the model lacks is a
    /// programming error, as on Apple's platforms.
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            preconditionFailure("The context's model has no entity named \"\(entityName)\".")
        }
        let objectClass = ManagedObjectClassRegistry.shared.objectClass(for: entity)
        return objectClass.init(instantiating: entity, insertInto: context)
    }
}

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
            return try prefetchingRelationships(of: fetchObjects(request, entity: entity, stores: stores, as: T.self), for: request, entity: entity)
        }
        return try typed(try fetchResults(request))
    }

    /// The results as the request's result type, or 134060 naming the mismatch.
    func typed<T, Results: Collection>(_ results: Results) throws -> [T] {
        var typed: [T] = []
        typed.reserveCapacity(results.count)
        for item in results {
            guard let value = item as? T else { throw Self.wrongResultType(item, T.self) }
            typed.append(value)
        }
        return typed
    }

    /// 134060: the fetch's results are not of the request's result type.
    static func wrongResultType<T>(_ item: Any, _ type: T.Type) -> NSError {
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
        var total = try fetchingCoordinator().count(storeRequest, in: stores, at: try readingGeneration())
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

    /// Records that a typed request's class represents its entity, when the class is the one the entity names
    /// (`ManagedObjectClassRegistry.learnFromTypedFetch(of:for:)`).
    private func noteResultClass<T>(of request: NSFetchRequest<T>) {
        if let objectClass = T.self as? NSManagedObject.Type, let entity = try? resolveEntity(request) {
            ManagedObjectClassRegistry.shared.learnFromTypedFetch(of: objectClass, for: entity)
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
        try validateSortKeys(of: request, entity: entity)
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

    /// Checks that every sort key names a property of the entity (or of a subentity), crossing to-one
    /// relationships only, as Apple's fetch does before reading a row (it raises `NSInvalidArgumentException`
    /// "keypath … not found in entity"). A dictionary fetch may also sort by the name of one of its expression
    /// descriptions. Descriptors without a key (a comparator alone) are not checked.
    /// - Throws: 2048 naming the key path and the entity, with the key path under `PredicateFormatError.keyKey`,
    ///   as for an unknown key in the predicate.
    private func validateSortKeys<T>(of request: NSFetchRequest<T>, entity: NSEntityDescription) throws {
        guard let sorts = request.sortDescriptors, !sorts.isEmpty else { return }
        let expressionNames = request.resultType == .dictionaryResultType
            ? Set((request.propertiesToFetch ?? []).compactMap { ($0 as? NSExpressionDescription)?.name }) : []
        for descriptor in sorts {
            guard let key = descriptor.key, !expressionNames.contains(key) else { continue }
            try descriptor.validateKey(against: entity)
        }
    }

    /// The coordinator that fetches go through.
    /// - Throws: 134070 when the context has none.
    func fetchingCoordinator() throws -> NSPersistentStoreCoordinator {
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

    /// Whether the request takes the context's unsaved changes to objects of `entity` into account.
    func usesPendingChanges<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) -> Bool {
        guard request.includesPendingChanges, hasChanges else { return false }
        let related = { (object: NSManagedObject) in object.entity.isKindOf(entity: entity) }
        return insertionOrder.contains(where: { $0.inserted && related($0) }) || updatedSet.values.contains(where: related) || deletedSet.values.contains(where: related)
    }

    /// Whether an ancestor context holds unsaved changes to objects of `entity` (never for a root context).
    private func inheritsChanges(to entity: NSEntityDescription) -> Bool {
        parent != nil && ancestorsHaveChanges(touching: entity)
    }

    /// The store's form of a request; with `pushLimits` the store applies the offset and limit.
    func storeFetchRequest<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription,
                                      result: StoreFetchRequest.ResultKind, pushLimits: Bool) -> StoreFetchRequest {
        StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                          sortDescriptors: request.sortDescriptors ?? [],
                          fetchLimit: pushLimits ? request.fetchLimit : 0, fetchOffset: pushLimits ? request.fetchOffset : 0,
                          result: result)
    }

    private func fetchObjects<ResultType>(_ request: NSFetchRequest<ResultType>, entity: NSEntityDescription, stores: [NSPersistentStore]) throws -> [NSManagedObject] {
        try fetchObjects(request, entity: entity, stores: stores, as: NSManagedObject.self)
    }

    private func fetchIDs<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, stores: [NSPersistentStore]) throws -> [NSManagedObjectID] {
        guard stores.count == 1, let store = stores.first else {
            return try fetchObjects(request, entity: entity, stores: stores).map(\.objectID)
        }
        let storeRequest = storeFetchRequest(request, entity: entity, result: .keys, pushLimits: true)
        let keys = try fetchingCoordinator().fetchKeys(storeRequest, from: [store], at: try readingGeneration()).first?.keys ?? []
        return keys.compactMap { store.objectID(for: $0) }
    }

    /// Dictionary results of attributes and to-one relationships (`propertiesToFetch`, or every such property),
    /// each built straight from the store's values into the `NSDictionary` the caller gets
    /// (`DictionaryResultBuilder`). Without `returnsDistinctResults` the stores give rows, whose values are read
    /// by slot (no dictionary in between); with it, their dictionaries, from which they dropped the repeats.
    /// - Throws: 134060 naming an entry of `propertiesToFetch` that is not such a property; a store's error.
    private func fetchDictionaries<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, stores: [NSPersistentStore]) throws -> [NSDictionary] {
        let properties = try dictionaryProperties(of: request, entity: entity)
        let coordinator = try fetchingCoordinator()
        let generation = try readingGeneration()
        let single = stores.count == 1
        var builder = DictionaryResultBuilder(keys: properties.map(\.name))
        let forms = properties.map(DictionaryValueForm.init)
        var result: [NSDictionary] = []
        // A store would apply an offset and limit to rows before dropping repeats: with `returnsDistinctResults`
        // they are applied here, to the distinct dictionaries.
        let pushLimits = single && !request.returnsDistinctResults
        if request.returnsDistinctResults {
            let storeRequest = storeFetchRequest(request, entity: entity, result: .dictionaries(properties: properties, distinct: true), pushLimits: pushLimits)
            for (store, dictionaries) in try coordinator.fetchDictionaries(storeRequest, from: stores, at: generation) {
                result.reserveCapacity(result.count + dictionaries.count)
                for values in dictionaries {
                    result.append(builder.dictionary { index in
                        values[properties[index].name].flatMap { forms[index].publicValue($0, in: store) }
                    })
                }
            }
        } else {
            let storeRequest = storeFetchRequest(request, entity: entity, result: .rows, pushLimits: pushLimits)
            var projection = StoreDictionaryProjection(properties: properties)
            for (store, rows) in try coordinator.fetchRowsForDictionaries(storeRequest, from: stores, at: generation) {
                result.reserveCapacity(result.count + rows.count)
                for row in rows {
                    guard let slots = projection.slots(ofEntityNumber: row.key.entityNumber, in: coordinator.managedObjectModel) else { continue }
                    result.append(builder.dictionary { index in
                        guard let slot = slots[index], row.values.indices.contains(slot), let value = row.values[slot] else { return nil }
                        return forms[index].publicValue(value, in: store)
                    })
                }
            }
        }
        if pushLimits { return result }
        // Several stores: sort the combined rows; then drop repeats, offset and limit.
        if !single, let sorts = request.sortDescriptors, !sorts.isEmpty { try InMemoryQuery.sort(&result, by: sorts) }
        return distinctAndLimited(result, request)
    }

    /// The properties a plain dictionary fetch returns: those `propertiesToFetch` names (by description or by
    /// name), or every attribute and to-one relationship of the entity that is not transient.
    /// - Throws: 134060 naming an entry that is not an attribute or to-one relationship of the entity.
    private func dictionaryProperties<T>(of request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [NSPropertyDescription] {
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
        return properties
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
            let roots = Set(ids.compactMap { $0.entity.rootEntity.name })
            guard roots.count <= 1 else {
                throw CoreDataError.make(NSCoreDataError, "A batch delete by object IDs takes objects of one entity; these are of \(roots.sorted().joined(separator: ", ")).")
            }
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

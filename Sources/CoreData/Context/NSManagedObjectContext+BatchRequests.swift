/// Running batch updates and batch inserts: the request goes straight to the stores that hold its entity.
///
/// As with batch deletes, objects registered in contexts are not refreshed: merge the returned IDs with
/// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)` under `NSUpdatedObjectsKey` or
/// `NSInsertedObjectsKey`, or refetch.
extension NSManagedObjectContext {
    /// Runs a batch update or batch insert request.
    /// - Throws: 134091 for other request types and for stores without the capability; what the request
    ///   and stores throw otherwise.
    func executeBatchRequest(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        switch request {
        case let update as NSBatchUpdateRequest: return try executeBatchUpdate(update)
        case let insert as NSBatchInsertRequest: return try executeBatchInsert(insert)
        default: throw CoreDataError.unsupported("executing \(type(of: request)) requests")
        }
    }

    // MARK: Update

    /// `propertiesToUpdate` with constant expressions (`NSExpression(forConstantValue:)`) replaced by their
    /// values (nil as `NSNull`).
    /// - Throws: 134091 for an expression that is not a constant (key paths, functions): batch updates set
    ///   constant values only.
    private func constantValues(_ properties: [AnyHashable: Any]) throws -> [AnyHashable: Any] {
        try properties.mapValues { value in
            guard let expression = value as? NSExpression else { return value }
            guard expression.expressionType == .constantValue, expression.parseError == nil else {
                throw CoreDataError.unsupported("a batch update value that is not a constant expression (\(expression)); compute the values and save the objects instead")
            }
            return expression.constantValue ?? NSNull()
        }
    }

    private func executeBatchUpdate(_ request: NSBatchUpdateRequest) throws -> NSBatchUpdateResult {
        let coordinator = try batchCoordinator()
        let entity = try batchEntity(request.entity, named: request.entityName, in: coordinator)
        try InMemoryQuery.validate(request.predicate, entity: entity)
        let fetch = StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities,
                                      predicate: request.predicate, result: .keys)
        let storeRequest = try StoreBatchUpdateRequest(fetch: fetch, propertiesToUpdate: try constantValues(request.propertiesToUpdate ?? [:]))
        let stores = try coordinator.batchStores(holding: entity, among: request.affectedStores,
                                                 supports: coordinator.runsBatchUpdates, what: "batch updates")
        switch request.resultType {
        case .statusOnlyResultType:
            // Keys (and IDs) are collected only when asked for: a count or a status over many rows needs none.
            _ = try coordinator.batchUpdateCount(storeRequest, in: stores)
            return NSBatchUpdateResult(result: NSNumber(value: true), resultType: .statusOnlyResultType)
        case .updatedObjectsCountResultType:
            let count = try coordinator.batchUpdateCount(storeRequest, in: stores)
            return NSBatchUpdateResult(result: NSNumber(value: count), resultType: .updatedObjectsCountResultType)
        case .updatedObjectIDsResultType:
            var updated: [NSManagedObjectID] = []
            for (store, keys) in try coordinator.batchUpdate(storeRequest, in: stores) {
                updated += objectIDs(for: keys, in: store, model: coordinator.managedObjectModel)
            }
            return NSBatchUpdateResult(result: updated, resultType: .updatedObjectIDsResultType)
        }
    }

    // MARK: Insert

    private func executeBatchInsert(_ request: NSBatchInsertRequest) throws -> NSBatchInsertResult {
        let coordinator = try batchCoordinator()
        let entity = try batchEntity(request.entity, named: request.entityName, in: coordinator)
        // Apple inserts into the first store that holds the entity, as a context's insert does.
        guard let store = try coordinator.batchStores(holding: entity, among: request.affectedStores,
                                                      supports: coordinator.runsBatchInserts, what: "batch inserts").first else {
            throw CoreDataError.operation("No persistent store holds entity \(entity.name ?? "") for the batch insert.")
        }
        var storeRequest = try StoreBatchInsertRequest(entity: entity, objects: try batchObjects(of: request, entity: entity))
        storeRequest.conflictResolution = batchInsertConflictResolution
        // A row that updated a row another row inserted or updated returns its key again: each object counts once.
        var seen = Set<ObjectKey>()
        let keys = try coordinator.batchInsert(storeRequest, into: store).filter { seen.insert($0).inserted }
        switch request.resultType {
        case .statusOnly: return NSBatchInsertResult(result: NSNumber(value: true), resultType: .statusOnly)
        case .count: return NSBatchInsertResult(result: NSNumber(value: keys.count), resultType: .count)
        case .objectIDs:
            return NSBatchInsertResult(result: objectIDs(for: keys, in: store, model: coordinator.managedObjectModel), resultType: .objectIDs)
        }
    }

    /// How a batch insert resolves a row whose values for a uniqueness constraint a stored object has, by the
    /// context's merge policy (its `mergeType` for a subclass): Apple's batch insert updates the stored object
    /// when the incoming values win (`NSMergeByPropertyObjectTrumpMergePolicy`, `NSOverwriteMergePolicy`), and
    /// fails under `NSErrorMergePolicy`. Where the stored values win (`NSMergeByPropertyStoreTrumpMergePolicy`,
    /// `NSRollbackMergePolicy`) the row is dropped. The policy's `resolve(constraintConflicts:)` is not called:
    /// no managed objects are made (Decisions, "Batch insert resolves uniqueness conflicts by the merge policy").
    private var batchInsertConflictResolution: StoreBatchInsertRequest.ConflictResolution {
        switch NSMergePolicy.resolve(mergePolicy).mergeType {
        case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType: return .updateExisting
        case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType: return .keepExisting
        case .errorMergePolicyType: return .fail
        }
    }

    /// The objects to insert as dictionaries: the given list, or what the handler fills in.
    private func batchObjects(of request: NSBatchInsertRequest, entity: NSEntityDescription) throws -> [[String: Any]] {
        if let objects = request.objectsToInsert { return objects }
        var objects: [[String: Any]] = []
        if let handler = request.dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if handler(dictionary) { break }
                var object: [String: Any] = [:]
                for (key, value) in dictionary {
                    guard let name = key as? String else {
                        throw CoreDataError.make(NSManagedObjectValidationError,
                                                 "A batch insert dictionary has the key \(key) of type \(type(of: key)); keys must be attribute names.")
                    }
                    object[name] = value
                }
                objects.append(object)
            }
            return objects
        }
        if let handler = request._managedObjectHandler {
            let objectClass = ManagedObjectClassRegistry.shared.objectClass(for: entity)
            while true {
                let object = objectClass.init(instantiating: entity, insertInto: nil)
                if handler(object) { break }
                var values: [String: Any] = [:]
                for (slot, property) in object.layout.allProperties.enumerated() {
                    guard let value = object.slots[slot] else { continue }
                    if property is NSRelationshipDescription {
                        if let toMany = value as? ToManyStorage, toMany.count == 0 { continue }
                        throw CoreDataError.unsupported("relationships in batch inserts (\(property.name) of \(entity.name ?? ""))")
                    }
                    if property.isTransient { continue }
                    values[property.name] = value
                }
                objects.append(values)
            }
            return objects
        }
        throw CoreDataError.unsupported("batch inserts without objects or a handler")
    }

    // MARK: The pieces

    private func batchCoordinator() throws -> NSPersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.operation("The context has no persistent store coordinator.")
        }
        return coordinator
    }

    /// The request's entity as the coordinator's model has it.
    private func batchEntity(_ entity: NSEntityDescription?, named name: String, in coordinator: NSPersistentStoreCoordinator) throws -> NSEntityDescription {
        let model = coordinator.managedObjectModel
        if let found = model.entitiesByName[entity?.name ?? name] { return found }
        throw CoreDataError.make(NSCoreDataError, "The batch request names entity \"\(entity?.name ?? name)\", which the context's model does not have.")
    }

    private func objectIDs(for keys: [ObjectKey], in store: NSPersistentStore, model: NSManagedObjectModel) -> [NSManagedObjectID] {
        keys.compactMap { key in model.entity(withNumber: key.entityNumber).map { store.objectID(for: key, entity: $0) } }
    }
}

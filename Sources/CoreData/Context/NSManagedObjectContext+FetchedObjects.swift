/// The objects a fetch returns, in phases: the stores' rows (or keys) turned into registered objects, merged
/// with the context's and its ancestors' unsaved changes, then sorted, offset, limited and typed.
extension NSManagedObjectContext {
    /// The objects a request returns, as `Element`s (the request's result type): straight into the array the
    /// caller gets when the store's results need no merging (one store, no pending changes: the store applied
    /// the limits), else merged with pending changes, sorted and cut first.
    /// - Throws: as `fetch(_:)`; 134060 when an object is not an `Element`.
    func fetchObjects<ResultType, Element>(_ request: NSFetchRequest<ResultType>, entity: NSEntityDescription, stores: [NSPersistentStore],
                                           as elementType: Element.Type) throws -> [Element] {
        // A child context sees its ancestors' unsaved changes whatever `includesPendingChanges` says: to it,
        // they are the saved state.
        var overlay = AncestorOverlay(changes: parent == nil ? nil : inheritedChanges(touching: entity), entity: entity)
        let pending = usesPendingChanges(request, entity: entity) || overlay.touchesEntity
        var collected = FetchedObjects<Element>(isFinal: stores.count == 1 && !pending)
        try collectStoredObjects(request, entity: entity, stores: stores, overlay: &overlay, into: &collected)
        let fetched: [Element]
        if collected.isFinal {
            fetched = collected.results
        } else {
            var objects = collected.objects
            if pending { objects = try mergingPendingChanges(into: objects, request: request, entity: entity, overlay: &overlay) }
            var final = FetchedObjects<Element>(isFinal: true)
            try final.collect(contentsOf: Array(try sortedAndCut(objects, request)))
            fetched = final.results
        }
        return fetched
    }

    // MARK: Store rows → objects

    /// Asks the stores for the request's rows (or, without property values or with a batch size, its keys)
    /// and collects the registered object of each.
    private func collectStoredObjects<ResultType, Element>(_ request: NSFetchRequest<ResultType>, entity: NSEntityDescription,
                                                           stores: [NSPersistentStore], overlay: inout AncestorOverlay,
                                                           into collected: inout FetchedObjects<Element>) throws {
        let batchSize = request.resultType == .managedObjectResultType ? max(0, request.fetchBatchSize) : 0
        if request.includesPropertyValues && batchSize == 0 {
            try collectRows(request, entity: entity, stores: stores, overlay: &overlay, into: &collected)
        } else {
            try collectKeys(request, entity: entity, stores: stores, batchSize: batchSize, overlay: &overlay, into: &collected)
        }
    }

    /// Fetches whole rows and collects an object for each: filled, or a fault when the request asks for faults
    /// (`returnsObjectsAsFaults`, Apple's default, for managed-object results; a fetch for IDs or a count fills
    /// what it reads).
    private func collectRows<ResultType, Element>(_ request: NSFetchRequest<ResultType>, entity: NSEntityDescription,
                                                  stores: [NSPersistentStore], overlay: inout AncestorOverlay,
                                                  into collected: inout FetchedObjects<Element>) throws {
        let storeRequest = storeFetchRequest(request, entity: entity, result: .rows, pushLimits: collected.isFinal)
        let returnsFaults = request.resultType == .managedObjectResultType && request.returnsObjectsAsFaults
        let fallback = Self.fallbackClass(of: request)
        let refreshes = request.shouldRefreshRefetchedObjects  // read once: each read of the request's property is checked for exclusivity
        for (store, rows) in try fetchingCoordinator().fetchRowSnapshots(storeRequest, from: stores, at: try readingGeneration()) {
            reserveFetched(rows.count, in: &collected)
            var memo = MaterializationMemo(store: store, fallback: fallback)
            // The store's objects are gathered in an array of a concrete type and handed over at once: adding each
            // one to `collected`, of a generic type, looked its type's metadata up in the runtime per object.
            var objects: [NSManagedObject] = []
            objects.reserveCapacity(rows.count)
            for row in rows {
                if let object = fetchedObject(for: row, store: store, refresh: refreshes,
                                              asFault: returnsFaults, overlay: &overlay, memo: &memo) {
                    objects.append(object)
                }
            }
            try collected.collect(contentsOf: objects)
        }
    }

    /// The registered object a fetch returns for one stored row (the row cache's snapshot): an ancestor's version when an ancestor
    /// changed the object (nil when an ancestor deleted it), else the context's object for the row, registered,
    /// and filled with the row's values (or left a fault when `asFault`). The one place a fetched row becomes
    /// an object.
    private func fetchedObject(for row: RowSnapshot, store: NSPersistentStore, refresh: Bool, asFault: Bool,
                               overlay: inout AncestorOverlay, memo: inout MaterializationMemo) -> NSManagedObject? {
        if overlay.touchesEntity, case .some(let object) = overlay.object(for: store.objectID(for: row.key), in: self) { return object }
        return materialize(row: row, refresh: refresh, asFault: asFault, memo: &memo)
    }

    /// Fetches keys only and collects a fault for each: faults that read their store
    /// (`includesPropertyValues = false`), or with a batch size faults that fill a batch at a time.
    ///
    /// The store's keys are packed in chunks (8 bytes a key instead of 16) before the first fault is made, and
    /// each chunk goes once its faults are made, so the keys and the faults never take memory at the same time.
    /// A chunk holds whole batches; each batch packs its own keys, which go with it once it is filled.
    private func collectKeys<ResultType, Element>(_ request: NSFetchRequest<ResultType>, entity: NSEntityDescription,
                                                  stores: [NSPersistentStore], batchSize: Int, overlay: inout AncestorOverlay,
                                                  into collected: inout FetchedObjects<Element>) throws {
        let storeRequest = storeFetchRequest(request, entity: entity, result: .keys, pushLimits: collected.isFinal)
        let fallback = Self.fallbackClass(of: request)
        let chunkSize = batchSize > 0 ? max(1, PackedObjectKeys.chunkSize / batchSize) * batchSize : PackedObjectKeys.chunkSize
        var keyLists = try fetchingCoordinator().fetchKeys(storeRequest, from: stores, at: try readingGeneration())
            .map { (store: $0.store, chunks: PackedObjectKeys.chunks(of: $0.keys, size: chunkSize)) }
        for list in keyLists.indices {
            let store = keyLists[list].store
            reserveFetched(keyLists[list].chunks.reduce(0) { $0 + $1.count }, in: &collected)
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
                    if let object = fetchedFault(for: key, store: store, batch: batch, overlay: &overlay, memo: &memo) {
                        try collected.collect(object)
                    }
                }
            }
        }
    }

    /// The registered object a fetch returns for one stored key: an ancestor's version when an ancestor changed
    /// the object (nil when an ancestor deleted it), else the context's object for the key, a fault (filled
    /// with its batch when `batch` is given).
    private func fetchedFault(for key: ObjectKey, store: NSPersistentStore, batch: FaultBatch?,
                              overlay: inout AncestorOverlay, memo: inout MaterializationMemo) -> NSManagedObject? {
        if overlay.touchesEntity, case .some(let object) = overlay.object(for: store.objectID(for: key), in: self) { return object }
        return fault(for: key, batch: batch, memo: &memo)
    }

    /// Makes room for `count` more fetched objects, in the collected objects and, when they outnumber the objects
    /// registered (a large fetch into a small context), in the registration table. Fewer may mostly be objects
    /// registered already (a fetch repeated, or a subset of an earlier one's): reserving room for all of them would
    /// rehash the whole table for objects that are not new, so the table grows by itself as new ones come.
    private func reserveFetched<Element>(_ count: Int, in collected: inout FetchedObjects<Element>) {
        collected.reserve(count)
        if count > registered.count { registered.reserveCapacity(registered.count + count) }
    }

    /// The class of the request's result type when it is a subclass of `NSManagedObject`: the class objects
    /// get when the model names no class for their entity.
    private static func fallbackClass<ResultType>(of request: NSFetchRequest<ResultType>) -> NSManagedObject.Type? {
        (ResultType.self as? NSManagedObject.Type).flatMap { $0 == NSManagedObject.self ? nil : $0 }
    }

    // MARK: Pending changes

    /// The stored objects merged with the unsaved changes: deleted objects left out, changed ones (the
    /// context's own with `includesPendingChanges`, an ancestor's always) kept only when they still match,
    /// then changed objects the stores did not return that now match, then the ancestors' matching objects,
    /// then the context's matching inserted objects (in insertion order), each object once.
    private func mergingPendingChanges<ResultType>(into objects: [NSManagedObject], request: NSFetchRequest<ResultType>,
                                                   entity: NSEntityDescription, overlay: inout AncestorOverlay) throws -> [NSManagedObject] {
        let matches = { (object: NSManagedObject) throws -> Bool in
            guard object.entity === entity || (request.includesSubentities && object.entity.isKindOf(entity: entity)) else { return false }
            return try InMemoryQuery.matches(request.predicate, object)
        }
        let includeOwn = request.includesPendingChanges
        var seen = Set<ObjectIdentifier>()
        var merged: [NSManagedObject] = []
        for object in objects where !object.deleted {
            let changed = (includeOwn && updatedSet.contains(object)) || overlay.overlaid.contains(ObjectIdentifier(object))
            if changed, try !matches(object) { continue }
            if seen.insert(ObjectIdentifier(object)).inserted { merged.append(object) }
        }
        if includeOwn {
            for object in updatedSet.values where !object.deleted && !seen.contains(ObjectIdentifier(object)) {
                if try matches(object) { seen.insert(ObjectIdentifier(object)); merged.append(object) }
            }
        }
        if overlay.touchesEntity, let inherited = overlay.changes {
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
        return merged
    }

    // MARK: Order and limits

    /// The objects sorted by the request's sort descriptors (kept in order without any), after the offset, up
    /// to the limit.
    private func sortedAndCut<ResultType>(_ objects: [NSManagedObject], _ request: NSFetchRequest<ResultType>) throws -> ArraySlice<NSManagedObject> {
        var objects = objects
        if let sorts = request.sortDescriptors, !sorts.isEmpty {
            try InMemoryQuery.sort(&objects, by: sorts)
        }
        var slice = ArraySlice(objects)
        if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
        return slice
    }
}

/// The objects a fetch has collected from its stores: when they are final (one store, no pending changes, the
/// limits applied by the store), straight in the caller's element type; else as objects, to be merged, sorted
/// and cut.
///
/// When the element type is a class (`NSManagedObject` or a subclass), its values are single references, laid out
/// as `NSManagedObject`'s: a store's array of objects becomes the results as it is, after each object is checked to
/// be an `Element` (one dynamic cast per class met, not per object). Any other element type (an existential such as
/// `NSFetchRequestResult`, which is a reference and a witness table) gets each object cast into its own value.
struct FetchedObjects<Element> {
    /// Whether the collected objects are the fetch's results as they are.
    let isFinal: Bool
    /// Whether an `Element` is a reference to an `NSManagedObject` and nothing else: `Element` is `NSManagedObject`
    /// or a subclass, so an `[NSManagedObject]` whose objects are all `Element`s is an `[Element]`.
    private let elementsAreObjects: Bool
    /// The collected objects, when not final.
    private(set) var objects: [NSManagedObject] = []
    /// The collected objects as `Element`s, when final.
    private(set) var results: [Element] = []

    init(isFinal: Bool) {
        self.isFinal = isFinal
        elementsAreObjects = Element.self is NSManagedObject.Type
            && MemoryLayout<Element>.size == MemoryLayout<NSManagedObject>.size
            && MemoryLayout<Element>.alignment == MemoryLayout<NSManagedObject>.alignment
    }

    mutating func reserve(_ count: Int) {
        if isFinal { results.reserveCapacity(results.count + count) } else { objects.reserveCapacity(objects.count + count) }
    }

    /// Adds objects, in order.
    /// - Throws: 134060 when the results are final and an object is not an `Element` (nothing is added then).
    mutating func collect(contentsOf added: [NSManagedObject]) throws {
        guard isFinal else {
            if objects.isEmpty { objects = added } else { objects.append(contentsOf: added) }
            return
        }
        if elementsAreObjects {
            let typed = try Self.asElements(added)
            if results.isEmpty { results = typed } else { results.append(contentsOf: typed) }
            return
        }
        for object in added {
            guard let result = object as? Element else { throw NSManagedObjectContext.wrongResultType(object, Element.self) }
            results.append(result)
        }
    }

    /// Adds one object.
    /// - Throws: 134060 when the results are final and the object is not an `Element`.
    mutating func collect(_ object: NSManagedObject) throws {
        guard isFinal else { objects.append(object); return }
        guard let result = object as? Element else { throw NSManagedObjectContext.wrongResultType(object, Element.self) }
        results.append(result)
    }

    /// `objects` as an `[Element]`, sharing its storage, when `elementsAreObjects`: each object is checked to be an
    /// instance of `Element` (a dynamic cast for the first object of each class, a comparison of classes for the
    /// rest; none when `Element` is `NSManagedObject` itself), then the array is reinterpreted: an array of class
    /// references has one layout whatever the class.
    /// - Throws: 134060 naming the first object that is not an `Element`.
    private static func asElements(_ objects: [NSManagedObject]) throws -> [Element] {
        if Element.self != NSManagedObject.self {
            var checked: ObjectIdentifier?
            for object in objects {
                let objectClass = ObjectIdentifier(type(of: object))
                if objectClass == checked { continue }
                guard object is Element else { throw NSManagedObjectContext.wrongResultType(object, Element.self) }
                checked = objectClass
            }
        }
        return unsafeBitCast(objects, to: [Element].self)
    }
}

/// A child context's view of its ancestors' unsaved changes during one fetch: the objects they changed take
/// the place of the stores' rows, and the objects they deleted are left out.
struct AncestorOverlay {
    /// The ancestors' changes to the fetched entity's objects; nil for a root context.
    let changes: InheritedChanges?
    /// Whether any of them concerns the fetched entity (or its subentities).
    let touchesEntity: Bool
    /// The objects that took an ancestor's values in this fetch: they must still match the predicate.
    private(set) var overlaid = Set<ObjectIdentifier>()

    init(changes: InheritedChanges?, entity: NSEntityDescription) {
        self.changes = changes
        touchesEntity = changes?.touches(entity) ?? false
    }

    /// The object for a stored row's ID when an ancestor changed it (`.some(nil)` for one an ancestor deleted);
    /// `.none` when no ancestor touched it.
    mutating func object(for id: NSManagedObjectID?, in context: NSManagedObjectContext) -> NSManagedObject?? {
        guard touchesEntity, let id, let state = changes?.states[id.identity] else { return .none }
        if state.isDeleted { return .some(nil) }
        let object = context.adoptedObject(state)
        overlaid.insert(ObjectIdentifier(object))
        return .some(object)
    }
}

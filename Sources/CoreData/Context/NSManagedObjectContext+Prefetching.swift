/// Prefetching relationships (`NSFetchRequest.relationshipKeyPathsForPrefetching`): after a fetch of managed
/// objects, each key path step reads its relationship for all the objects the step before reached with one store
/// request (`NSPersistentStoreCoordinator.relatedRows(of:through:in:)`, one per store and relationship).
///
/// Guarantees:
/// - The destinations become registered objects holding their rows, made as the fetch makes its results
///   (`materialize(row:refresh:asFault:memo:)`): faults holding their rows with `returnsObjectsAsFaults`, else
///   filled objects; reading them calls no store.
/// - A to-one's destination is the object the source's row names. A to-many's destinations become the source's
///   relationship, so reading it calls no store; a source that is a fault holding its row is filled from that row
///   first (no store call either), since a fault keeps no relationship. A to-one only registers its destinations,
///   so the fetched objects themselves stay faults.
/// - Nothing the context holds is overwritten: objects with unsaved changes keep their values, and a
///   relationship the context already holds (a to-many read or changed before, a destination already filled)
///   is kept as it is; the next step goes on from it. Destinations of such a to-many that are faults without
///   their rows get them from the row cache or with one more store request (`rowSnapshots(for:in:stalenessInterval:)`) for the step.
/// - Objects fetched without their rows are prefetched from once their rows are read: the objects of a batch
///   (`fetchBatchSize`) when their batch fills (a store error then leaves their relationships to fault in one by
///   one, since a property access cannot throw); objects of a fetch with `includesPropertyValues = false` never.
/// - A child context checks the key paths but does not prefetch: its objects read through its parent, whose
///   unsaved changes the store does not have (see Decisions.md).
extension NSManagedObjectContext {
    /// `objects`, the results of `request` (of `entity`), after prefetching the relationships the request names.
    /// - Throws: 2048 naming a key path that names no relationship (`RelationshipPrefetchPlan`); a store's error.
    func prefetchingRelationships<ResultType, Element>(of objects: [Element], for request: NSFetchRequest<ResultType>,
                                                       entity: NSEntityDescription) throws -> [Element] {
        guard request.resultType == .managedObjectResultType, let keyPaths = request.relationshipKeyPathsForPrefetching,
              !keyPaths.isEmpty else { return objects }
        let plan = try RelationshipPrefetchPlan(keyPaths: keyPaths, entity: entity, asFaults: request.returnsObjectsAsFaults,
                                                refreshes: request.shouldRefreshRefetchedObjects)
        guard parent == nil else { return objects }
        var sources: [NSManagedObject] = []
        sources.reserveCapacity(objects.count)
        for case let object as NSManagedObject in objects {
            if case .batch(let batch) = object.faultState {
                batch.prefetching = plan  // prefetched from when the batch fills
            } else {
                sources.append(object)
            }
        }
        try prefetch(plan.steps, from: sources, plan: plan)
        return objects
    }

    /// Prefetches `plan` from the objects of a batch its fetch prefetches for, just filled. A store error leaves
    /// their relationships to fault in one by one, which report it as any fault does.
    func prefetchRelationships(ofFilledBatch objects: [NSManagedObject], plan: RelationshipPrefetchPlan) {
        try? prefetch(plan.steps, from: objects, plan: plan)
    }

    /// Prefetches each step from `sources`, then the steps after it from the objects it reached.
    private func prefetch(_ steps: [RelationshipPrefetchPlan.Step], from sources: [NSManagedObject], plan: RelationshipPrefetchPlan) throws {
        for step in steps {
            let reached = try prefetch(step.name, from: sources, plan: plan)
            if !step.next.isEmpty, !reached.isEmpty { try prefetch(step.next, from: reached, plan: plan) }
        }
    }

    /// Prefetches the relationship named `name` of `sources`, with one store request per store and relationship
    /// for the sources whose destinations the context does not hold; returns the objects the relationship
    /// reaches from `sources` in the context, each once.
    private func prefetch(_ name: String, from sources: [NSManagedObject], plan: RelationshipPrefetchPlan) throws -> [NSManagedObject] {
        var reached = ReachedObjects()
        var requests = PrefetchRequests()
        for source in sources where !source.deleted {
            guard let slot = source.layout.slotByName[name],
                  let relationship = source.layout.allProperties[slot] as? NSRelationshipDescription, !relationship.isTransient else { continue }
            switch heldDestinations(of: source, slot: slot, relationship: relationship) {
            case .held(let destinations):
                reached.add(relationship.isToMany ? destinations : linkToOne(of: source, slot: slot, relationship: relationship))
            case .inStore(let store, let key):
                requests.add(PrefetchRequests.Source(object: source, key: key, slot: slot), store: store, relationship: relationship)
            case .unread:
                break
            }
        }
        guard let coordinator = persistentStoreCoordinator else { return reached.objects }
        let generation = try readingGeneration()
        for request in requests.all {
            let answer = try coordinator.relatedRows(of: request.sources.map(\.key), through: request.relationship, in: request.store,
                                                     at: generation)
            var memo = MaterializationMemo(store: request.store, fallback: nil)
            for row in answer.rows {
                _ = materialize(row: row, refresh: plan.refreshes, asFault: plan.asFaults, memo: &memo)
            }
            for source in request.sources {
                if request.relationship.isToMany {
                    let destinations = (answer.destinations[source.key] ?? []).compactMap {
                        registered[NSManagedObjectID.Identity(store: request.store.identity, key: $0)]
                    }
                    reached.add(install(destinations, in: source.object, slot: source.slot))
                } else {
                    reached.add(linkToOne(of: source.object, slot: source.slot, relationship: request.relationship))
                }
            }
        }
        try readRows(of: reached.objects, plan: plan)
        return reached.objects
    }

    /// Reads, from the row cache or with one `rows(for:)` per store, the rows of the reached objects that have none in hand (the
    /// destinations of a to-many the context read before, which it made as faults), so that they too hold their
    /// values and the next step can go on from them.
    private func readRows(of reached: [NSManagedObject], plan: RelationshipPrefetchPlan) throws {
        var unread: [(store: NSPersistentStore, keys: [ObjectKey])] = []
        for object in reached where !object.holdsItsRow && !object.deleted {
            guard let id = object.assignedID, !id.isTemporaryID, let key = id.key,
                  let store = persistentStoreCoordinator?.store(for: id) else { continue }
            if let index = unread.firstIndex(where: { $0.store === store }) { unread[index].keys.append(key) } else { unread.append((store, [key])) }
        }
        guard let coordinator = persistentStoreCoordinator else { return }
        let generation = try readingGeneration()
        for (store, keys) in unread {
            var memo = MaterializationMemo(store: store, fallback: nil)
            for row in try coordinator.rowSnapshots(for: keys, in: store, stalenessInterval: stalenessInterval, at: generation) {
                _ = materialize(row: row, refresh: plan.refreshes, asFault: plan.asFaults, memo: &memo)
            }
        }
    }

    /// What the context holds of a source's relationship, before any store request.
    private enum HeldDestinations {
        /// The context holds the destinations (filled objects, or none).
        case held([NSManagedObject])
        /// The store has to be asked, for the source with this key in this store.
        case inStore(NSPersistentStore, ObjectKey)
        /// The source has no row in hand (a fault of a fetch without rows, or of a batch not filled): nothing is
        /// prefetched from it.
        case unread
    }

    /// Whether the context holds `relationship` (in `slot`) of `source`, and its destinations if so. A to-many is
    /// held once read into a filled object (or set on it); a to-one when its destination holds its row (filled,
    /// or a fault holding the row a fetch read), or when the source names none. A source with unsaved changes reads through its own values.
    private func heldDestinations(of source: NSManagedObject, slot: Int, relationship: NSRelationshipDescription) -> HeldDestinations {
        let value: Any?
        switch source.faultState {
        case .filled, .filledFromRow: value = slot < source.slots.count ? source.slots[slot] : nil
        case .snapshot: value = relationship.isToMany ? nil : source.committed.flatMap { slot < $0.count ? $0[slot] : nil }
        case .store, .batch: return .unread
        }
        if let storage = value as? ToManyStorage { return .held(storage.objects) }
        if !relationship.isToMany {
            switch value {
            case nil: return .held([])
            case let object as NSManagedObject where object.holdsItsRow: return .held([object])
            case let key as ObjectKey:
                if let store = source.assignedStoreIdentity?.handle as? NSPersistentStore,
                   let object = registered[NSManagedObjectID.Identity(store: store.identity, key: key)], object.holdsItsRow {
                    return .held([object])
                }
            default: break
            }
        }
        guard let id = source.assignedID, !id.isTemporaryID, let key = id.key,
              let store = persistentStoreCoordinator?.store(for: id) else { return .held([]) }
        return .inStore(store, key)
    }

    /// Makes a filled source's to-one in `slot` hold its destination object (no longer only its key), as reading
    /// it would, once the destination is registered; returns the destination the context holds (none for a
    /// source naming none).
    private func linkToOne(of source: NSManagedObject, slot: Int, relationship: NSRelationshipDescription) -> [NSManagedObject] {
        if !source.faulted, slot < source.slots.count, source.slots[slot] is ObjectKey { _ = source.toOneObject(slot: slot) }
        guard case .held(let destinations) = heldDestinations(of: source, slot: slot, relationship: relationship) else { return [] }
        return destinations
    }

    /// Makes `destinations` the to-many relationship in `slot` of `source`, as read from its store, unless the
    /// context holds it already; returns what the relationship holds afterwards. A source that is a fault holding
    /// its row is filled from it first (without a store call, unless `stalenessInterval` is 0).
    private func install(_ destinations: [NSManagedObject], in source: NSManagedObject, slot: Int) -> [NSManagedObject] {
        if case .snapshot = source.faultState { try? fulfillFaultThrowing(source) }
        guard !source.faulted, slot < source.slots.count else { return destinations }
        if let storage = source.slots[slot] as? ToManyStorage { return storage.objects }
        source.slots[slot] = ToManyStorage(destinations)
        return destinations
    }
}

/// The store requests one prefetch step makes: the sources to ask about, by store and relationship, in the
/// order each pair first appears.
private struct PrefetchRequests {
    /// One source: the object, its key in its store, and the relationship's slot in its layout.
    struct Source {
        let object: NSManagedObject
        let key: ObjectKey
        let slot: Int
    }

    /// The sources of one store request.
    struct Request {
        let store: NSPersistentStore
        let relationship: NSRelationshipDescription
        var sources: [Source] = []
    }

    private(set) var all: [Request] = []
    private var indexByPair: [PairKey: Int] = [:]

    private struct PairKey: Hashable {
        let store: ObjectIdentifier
        let relationship: ObjectIdentifier
    }

    mutating func add(_ source: Source, store: NSPersistentStore, relationship: NSRelationshipDescription) {
        let pair = PairKey(store: ObjectIdentifier(store), relationship: ObjectIdentifier(relationship))
        if let index = indexByPair[pair] {
            all[index].sources.append(source)
        } else {
            indexByPair[pair] = all.count
            all.append(Request(store: store, relationship: relationship, sources: [source]))
        }
    }
}

/// The objects a prefetch step reached, each once, in the order first reached.
private struct ReachedObjects {
    private(set) var objects: [NSManagedObject] = []
    private var seen = Set<ObjectIdentifier>()

    mutating func add(_ reached: [NSManagedObject]) {
        for object in reached where seen.insert(ObjectIdentifier(object)).inserted { objects.append(object) }
    }
}

extension NSManagedObject {
    /// Whether the object's row is in hand: it is filled, or a fault holding the row its fetch read.
    fileprivate var holdsItsRow: Bool {
        switch faultState {
        case .filled, .filledFromRow, .snapshot: return true
        case .store, .batch: return false
        }
    }
}

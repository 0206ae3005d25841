/// Fetching from an atomic store: records selected, filtered, sorted and cut in memory.
extension AtomicStore {
    /// The records a fetch selects, filtered, sorted (by key without sort descriptors, and records the sort
    /// descriptors find equal by key), offset and limited.
    /// - Throws: 134060 for a predicate or sort the evaluator cannot apply.
    func select(_ request: StoreFetchRequest) throws -> [AtomicRecord] {
        // By key: the order without sort descriptors, and, the sort below being stable, the order of records
        // its descriptors find equal (as a SQLite table scan usually gives them, by row id). Records made one
        // after another also lie side by side in memory, so testing them in key order reads memory in sequence.
        let candidates = recordsInKeyOrder(of: request.entity, includingSubentities: request.includesSubentities)
        var selected = try matching(candidates, request.predicate)
        if !request.sortDescriptors.isEmpty {
            var views = selected.map { AtomicRowView(record: $0, store: self) }
            try InMemoryQuery.sort(&views, by: request.sortDescriptors)
            selected = views.map(\.record)
        }
        var slice = ArraySlice(selected)
        if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
        return Array(slice)
    }

    /// The candidates `predicate` matches (all for nil), in their order, as `InMemoryQuery.filter` matches
    /// their row views. The predicate is prepared once for each entity met, so that it reads attributes by
    /// their slot in that entity's layout (a fetch of a super-entity meets its sub-entities, whose layouts may
    /// have more slots), and one view is pointed at each record in turn, so testing makes no object per
    /// record; a predicate that hands objects to a block gets a view of its own for each record.
    /// - Throws: the predicate's parse error (2048).
    private func matching(_ candidates: [AtomicRecord], _ predicate: NSPredicate?) throws -> [AtomicRecord] {
        guard let predicate, let first = candidates.first else { return candidates }
        let node = try predicate.validatedExpression()
        if PreparedPredicate.callsBlocks(node) {
            let prepared = PreparedPredicate(node)
            return candidates.filter { prepared.evaluate(reader: AtomicRowView(record: $0, store: self)) }
        }
        var preparedForEntity = PredicatePreparedPerEntity(node)
        let view = AtomicRowView(record: first, store: self)
        var entity = first.entity
        var prepared = preparedForEntity.predicate(for: entity)
        var matched: [AtomicRecord] = []
        for record in candidates {
            if record.entity !== entity {
                entity = record.entity
                prepared = preparedForEntity.predicate(for: entity)
            }
            if let outcome = prepared.evaluate(slots: record.values) {
                if outcome { matched.append(record) }
                continue
            }
            view.record = record
            if prepared.evaluate(reader: view, slots: record.values) { matched.append(record) }
        }
        return matched
    }

    /// The records' values of `properties` by name (nil values absent), without repeats when `distinct`.
    func dictionaries(of selected: [AtomicRecord], properties: [NSPropertyDescription], distinct: Bool) -> [[String: Any]] {
        var seen = Set<NSDictionary>()
        var result: [[String: Any]] = []
        result.reserveCapacity(selected.count)
        var projection = StoreDictionaryProjection(properties: properties)
        for record in selected {
            guard let dictionary = projection.dictionary(of: record.values, entityNumber: record.key.entityNumber, in: openRequest.model) else { continue }
            if distinct {
                guard seen.insert(NSDictionary(dictionary: dictionary)).inserted else { continue }
            }
            result.append(dictionary)
        }
        return result
    }
}

/// A predicate prepared for each entity's slot layout (`AtomicRowView.attributeSlot(in:)`), made when a record
/// of the entity is first met.
private struct PredicatePreparedPerEntity {
    private let node: PredicateNode
    private var byEntity: [ObjectIdentifier: PreparedPredicate] = [:]

    init(_ node: PredicateNode) {
        self.node = node
    }

    /// The predicate prepared for the layout of `entity`'s records.
    mutating func predicate(for entity: NSEntityDescription) -> PreparedPredicate {
        if let prepared = byEntity[ObjectIdentifier(entity)] { return prepared }
        let prepared = PreparedPredicate(node, slotOfKey: AtomicRowView.attributeSlot(in: entity.layout))
        byEntity[ObjectIdentifier(entity)] = prepared
        return prepared
    }
}

/// Fetching from an atomic store: records selected, filtered, sorted and cut in memory.
extension AtomicStore {
    /// The records a fetch selects, filtered, sorted (by key without sort descriptors), offset and limited.
    /// - Throws: 134060 for a predicate or sort the evaluator cannot apply.
    func select(_ request: StoreFetchRequest) throws -> [AtomicRecord] {
        var selected = try matching(records(of: request.entity, includingSubentities: request.includesSubentities),
                                    request.predicate)
        if request.sortDescriptors.isEmpty {
            selected.sort { $0.key.primaryKey < $1.key.primaryKey }
        } else {
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
    /// their row views. One view is pointed at each record in turn, so testing makes no object per record;
    /// a predicate that hands objects to a block gets a view of its own for each record.
    /// - Throws: the predicate's parse error (2048).
    private func matching(_ candidates: [AtomicRecord], _ predicate: NSPredicate?) throws -> [AtomicRecord] {
        guard let predicate, let first = candidates.first else { return candidates }
        let prepared = PreparedPredicate(try predicate.validatedExpression())
        if prepared.callsBlocks {
            return candidates.filter { prepared.evaluate(reader: AtomicRowView(record: $0, store: self)) }
        }
        let view = AtomicRowView(record: first, store: self)
        return candidates.filter { record in
            view.record = record
            return prepared.evaluate(reader: view)
        }
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

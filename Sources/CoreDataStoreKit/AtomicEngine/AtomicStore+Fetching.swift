/// Fetching from an atomic store: records selected, filtered, sorted and cut in memory.
extension AtomicStore {
    /// The records a fetch selects, filtered, sorted (by key without sort descriptors), offset and limited.
    /// - Throws: 134060 for a predicate or sort the evaluator cannot apply.
    func select(_ request: StoreFetchRequest) throws -> [AtomicRecord] {
        let candidates = records(of: request.entity, includingSubentities: request.includesSubentities)
        var views = try InMemoryQuery.filter(candidates.map { AtomicRowView(record: $0, store: self) }, by: request.predicate)
        if request.sortDescriptors.isEmpty {
            views.sort { $0.record.key.primaryKey < $1.record.key.primaryKey }
        } else {
            try InMemoryQuery.sort(&views, by: request.sortDescriptors)
        }
        var slice = ArraySlice(views)
        if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
        return slice.map(\.record)
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

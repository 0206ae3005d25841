/// The `NSSortDescriptor` that `NSSortDescriptor(key:ascending:)` makes: it remembers its key path and its
/// comparison, so a store can translate the sort to SQL.
///
/// Internal: users see an `NSSortDescriptor`. It is built on Foundation's key-path initializer with the
/// identity key path of `Any`, and a comparator that reads the key path (through to-one relationships) from
/// each object, so Foundation's own `compare(_:to:)` sorts by key, flipping for descending order.
final class KeyedSortDescriptor: NSSortDescriptor {
    let sortKey: String?
    let namedComparison: SortComparison
    let customComparator: Comparator?

    init(key: String?, ascending: Bool, comparison: SortComparison, comparator: Comparator?) {
        self.sortKey = key
        self.namedComparison = comparison
        self.customComparator = comparator
        let path = key.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) } ?? []
        super.init(keyPath: \Any.self as KeyPath<Any, Any>, ascending: ascending, comparator: { a, b in
            let x: Any? = path.isEmpty ? a : PredicateEvaluator.read(path[...], from: a)
            let y: Any? = path.isEmpty ? b : PredicateEvaluator.read(path[...], from: b)
            if let custom = comparator {
                guard let x = PredicateValues.unwrap(x), let y = PredicateValues.unwrap(y) else {
                    return comparison.compareValues(x, y)
                }
                return custom(x, y)
            }
            return comparison.compareValues(x, y)
        })
    }

    override var reversedSortDescriptor: Any {
        KeyedSortDescriptor(key: sortKey, ascending: !ascending, comparison: namedComparison, comparator: customComparator)
    }

    override var description: String {
        "(\(sortKey ?? "SELF"), \(ascending ? "ascending" : "descending"), \(namedComparison.rawValue))"
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? KeyedSortDescriptor else { return false }
        return other === self || (other.sortKey == sortKey && other.ascending == ascending
            && other.namedComparison == namedComparison && other.customComparator == nil && customComparator == nil)
    }

    override var hash: Int {
        var hasher = Hasher()
        hasher.combine(sortKey)
        hasher.combine(ascending)
        hasher.combine(namedComparison)
        return hasher.finalize()
    }
}

/// Lets `NSSortDescriptor(key:ascending:)` be declared available on Linux, where Foundation declares it
/// unavailable. Not for direct use (see ``_PredicateFormatInitializing`` for the technique).
public protocol _SortDescriptorKeyInitializing {}

extension NSSortDescriptor: _SortDescriptorKeyInitializing {}

extension _SortDescriptorKeyInitializing where Self == NSSortDescriptor {
    /// Sorts by a key path (`"name"`, `"author.name"`), comparing with `compare:`. A nil key sorts the
    /// objects themselves. Nil values come first in ascending order.
    public init(key: String?, ascending: Bool) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, comparison: .compare, comparator: nil)
    }

    /// Sorts by a key path with a named comparison: Apple's `init(key:ascending:selector:)`, with the selector
    /// written as its name, `selector: "localizedStandardCompare:"` (`#selector` does not exist on Linux).
    public init(key: String?, ascending: Bool, selector: SortComparison?) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, comparison: selector ?? .compare, comparator: nil)
    }

    /// Sorts by a key path with a named comparison. An addition to Apple's API; the same as
    /// `init(key:ascending:selector:)`.
    public init(key: String?, ascending: Bool, comparison: SortComparison) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, comparison: comparison, comparator: nil)
    }

    /// Sorts by a Swift key path of property names, as Apple's `init(keyPath:ascending:)` does for any value
    /// type (Foundation on Linux declares it only for `Comparable` values): `\Book.title` sorts by `"title"`, nil
    /// values first in ascending order. A key path that is not made of property names sorts by applying it.
    public init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        if let key = SwiftKeyPathNames.propertyNames(of: keyPath) {
            self = KeyedSortDescriptor(key: key, ascending: ascending, comparison: .compare, comparator: nil)
        } else {
            self = NSSortDescriptor(keyPath: keyPath, ascending: ascending) { a, b in SortComparison.compare.compareValues(a, b) }
        }
    }

    /// Sorts by a key path with a comparator called on the two non-nil values (nil values come first).
    /// Stores cannot translate a comparator; they sort such requests in memory.
    public init(key: String?, ascending: Bool, comparator cmptr: @escaping Comparator) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, comparison: .compare, comparator: cmptr)
    }
}

extension NSSortDescriptor {
    /// The key path the descriptor sorts by, for descriptors made with a key; nil for key-path (Swift
    /// `KeyPath`) descriptors and for a nil key.
    public var key: String? { (self as? KeyedSortDescriptor)?.sortKey }

    /// The named comparison (`compare:` unless another was given). An addition to Apple's API, standing
    /// for `selector`.
    public var comparison: SortComparison { (self as? KeyedSortDescriptor)?.namedComparison ?? .compare }

    /// Whether the descriptor was made from a Swift key path (`init(keyPath:ascending:)`) whose property names
    /// are not known yet. An addition to Apple's API.
    public var sortsBySwiftKeyPath: Bool { !(self is KeyedSortDescriptor) }

    /// Whether the descriptor compares with a custom comparator closure that a store cannot translate.
    /// An addition to Apple's API.
    public var usesCustomComparator: Bool {
        guard let keyed = self as? KeyedSortDescriptor else { return true }
        return keyed.customComparator != nil
    }
}

extension Array where Element == NSSortDescriptor {
    /// Compares two objects by each descriptor in turn, the first one that orders them deciding. An
    /// addition to Apple's API.
    public func compare(_ a: Any, _ b: Any) -> ComparisonResult {
        for descriptor in self {
            let order = descriptor.compare(a, to: b)
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }

    /// The elements sorted by these descriptors, keeping the original order of equal elements (stable).
    /// An addition to Apple's API (Apple's is `NSArray.sortedArray(using:)`).
    public func sorting<T>(_ items: [T]) -> [T] {
        let indexed = items.enumerated().map { ($0.offset, $0.element) }
        return indexed.sorted { l, r in
            switch compare(l.1, r.1) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return l.0 < r.0
            }
        }.map { $0.1 }
    }
}

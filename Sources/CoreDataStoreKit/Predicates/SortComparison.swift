/// The comparison a sort descriptor uses between two values of its key: Apple's selector names.
///
/// An addition to Apple's API, standing for the `Selector` Apple passes (`#selector` does not exist on
/// Linux). Written as a string literal with Apple's selector name, or as a static member:
///
///     NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:")
///     NSSortDescriptor(key: "name", ascending: true, comparison: .localizedStandardCompare)
///
/// An unknown name is kept (``isKnown`` is false) and compares as `compare:`; stores that translate sorts
/// should refuse it.
public struct SortComparison: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The selector name, such as `"caseInsensitiveCompare:"`.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `compare:`: numbers by value, strings by Unicode scalar order, dates in time order.
    public static let compare = SortComparison(rawValue: "compare:")
    /// `caseInsensitiveCompare:`
    public static let caseInsensitiveCompare = SortComparison(rawValue: "caseInsensitiveCompare:")
    /// `localizedCompare:` (current locale).
    public static let localizedCompare = SortComparison(rawValue: "localizedCompare:")
    /// `localizedCaseInsensitiveCompare:` (current locale).
    public static let localizedCaseInsensitiveCompare = SortComparison(rawValue: "localizedCaseInsensitiveCompare:")
    /// `localizedStandardCompare:`: Finder-like order, digits compared numerically.
    public static let localizedStandardCompare = SortComparison(rawValue: "localizedStandardCompare:")

    /// The five comparisons above.
    public static let known: [SortComparison] = [
        .compare, .caseInsensitiveCompare, .localizedCompare, .localizedCaseInsensitiveCompare,
        .localizedStandardCompare,
    ]

    /// Whether this is one of the five comparisons we implement.
    public var isKnown: Bool { Self.known.contains(self) }

    public var description: String { rawValue }

    /// Compares two values, ascending: nil before everything (as Apple sorts nil first), then by value.
    /// Strings use this comparison; other values use `compare:`. Values of kinds that do not compare
    /// (a number and a string) order by kind, so sorting is always consistent. Never traps.
    public func compareValues(_ a: Any?, _ b: Any?) -> ComparisonResult {
        let a = PredicateValues.unwrap(a)
        let b = PredicateValues.unwrap(b)
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        default: break
        }
        if let x = PredicateValues.string(a), let y = PredicateValues.string(b) {
            switch self {
            case .caseInsensitiveCompare: return PredicateStrings.compare(x, y, [.caseInsensitive])
            case .localizedCompare: return x.localizedCompare(y)
            case .localizedCaseInsensitiveCompare: return x.localizedCaseInsensitiveCompare(y)
            case .localizedStandardCompare: return x.localizedStandardCompare(y)
            default: return PredicateStrings.compare(x, y, [])
            }
        }
        if let order = PredicateValues.compare(a, b) { return order }
        let ra = Self.kindRank(a)
        let rb = Self.kindRank(b)
        if ra != rb { return ra < rb ? .orderedAscending : .orderedDescending }
        // Same kind but unordered (NaN, objects): keep them together without claiming an order.
        return .orderedSame
    }

    private static func kindRank(_ v: Any?) -> Int {
        guard let v = v else { return 0 }
        if PredicateNumber(v) != nil { return 1 }
        if PredicateValues.string(v) != nil { return 2 }
        if PredicateValues.date(v) != nil { return 3 }
        if v is Data { return 4 }
        if v is UUID { return 5 }
        if v is URL { return 6 }
        return 7
    }
}

/// A comparison of two expressions built in code (Apple's `NSComparisonPredicate`), as query builders make
/// predicates: `NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "title"), rightExpression:
/// NSExpression(forConstantValue: "Dune"), modifier: .direct, type: .equalTo, options: [.caseInsensitive])` is
/// the predicate `title ==[c] "Dune"`, and fetches, `evaluate(with:)` and `NSCompoundPredicate` take it as they
/// take that format.
///
/// Foundation on Linux declares an `NSComparisonPredicate` that cannot be created, so this one is declared in
/// `CoreData`, as ``NSExpression`` is: a file that imports only `CoreData` sees this class; a file that imports both
/// `Foundation` and `CoreData` can create comparisons, but spelling the type or its nested types in a declaration
/// there needs `CoreData.NSComparisonPredicate`.
///
/// Guarantees: evaluating never traps. A comparison that cannot be evaluated (an expression that did not parse,
/// the `customSelector` operator, which needs Objective-C) evaluates to false, and a fetch using it throws.
///
/// `@unchecked Sendable`: immutable once made.
open class NSComparisonPredicate: NSPredicate, PredicateTreeCarrying, @unchecked Sendable {
    /// How the comparison applies to a collection on the left, with Apple's raw values.
    public enum Modifier: UInt, Sendable {
        /// Compare the left value itself.
        case direct = 0
        /// `ALL`: the comparison holds for every element.
        case all = 1
        /// `ANY`: the comparison holds for some element.
        case any = 2
    }

    /// The comparison operators, with Apple's raw values.
    public enum Operator: UInt, Sendable {
        /// `<`
        case lessThan = 0
        /// `<=`
        case lessThanOrEqualTo = 1
        /// `>`
        case greaterThan = 2
        /// `>=`
        case greaterThanOrEqualTo = 3
        /// `==`
        case equalTo = 4
        /// `!=`
        case notEqualTo = 5
        /// The whole left string matches the right regular expression.
        case matches = 6
        /// The whole left string matches the right pattern (`*` any run, `?` one character).
        case like = 7
        /// `BEGINSWITH`: the left string starts with the right one.
        case beginsWith = 8
        /// `ENDSWITH`: the left string ends with the right one.
        case endsWith = 9
        /// The left value is an element of the right collection, or a substring of the right string.
        case `in` = 10
        /// A comparison by an Objective-C selector; not supported here (see the type's guarantees).
        case customSelector = 11
        /// The left collection has the right value as an element, or the left string contains the right one.
        case contains = 99
        /// `low <= left <= high` for the right pair.
        case between = 100
    }

    /// String comparison options, with Apple's raw values.
    public struct Options: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: case-insensitive.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the operands are already normalized.
        public static let normalized = Options(rawValue: 4)
    }

    /// The left expression.
    public let leftExpression: NSExpression
    /// The right expression.
    public let rightExpression: NSExpression
    /// `direct`, `all` or `any`.
    public let comparisonPredicateModifier: Modifier
    /// The operator.
    public let predicateOperatorType: Operator
    /// The string comparison options.
    public let options: Options
    /// The comparison as a syntax tree, or why there is none.
    private let tree: Result<PredicateNode, NSError>

    /// A comparison of `lhs` and `rhs` by `type`, applied to a collection on the left as `modifier` says.
    public init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, modifier: Modifier, type: Operator,
                options: Options = []) {
        leftExpression = lhs
        rightExpression = rhs
        comparisonPredicateModifier = modifier
        predicateOperatorType = type
        self.options = options
        let tree = Self.tree(lhs, rhs, modifier: modifier, type: type, options: options)
        self.tree = tree
        super.init(block: { object, bindings in
            guard case .success(let node) = tree else { return false }
            return node.evaluate(with: object, variables: bindings ?? [:])
        })
    }

    package func predicateTree() throws -> PredicateNode { try tree.get() }

    /// The comparison in Apple's format language (`title BEGINSWITH[c] "Du"`).
    open override var predicateFormat: String {
        switch tree {
        case .success(let node): return node.format
        case .failure(let error): return "<unusable comparison: \(error.localizedDescription)>"
        }
    }

    open override var description: String { predicateFormat }

    /// Equal to a comparison of the same tree, whether made from expressions or parsed from a format.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        if other === self { return true }
        guard case .success(let node) = tree, let otherNode = other.parsedExpression else { return false }
        return node == otherNode
    }

    open override var hash: Int {
        guard case .success(let node) = tree else { return ObjectIdentifier(self).hashValue }
        return node.hashValue
    }

    open override func copy(with zone: NSZone? = nil) -> Any { self }

    /// The tree of a comparison, or the error a fetch throws for it.
    private static func tree(_ lhs: NSExpression, _ rhs: NSExpression, modifier: Modifier, type: Operator,
                             options: Options) -> Result<PredicateNode, NSError> {
        if let error = lhs.parseError ?? rhs.parseError { return .failure(error) }
        guard let left = lhs.predicateFormatOperand, let right = rhs.predicateFormatOperand else {
            return .failure(CoreDataError.unsupported("an NSComparisonPredicate of an expression that cannot be compared"))
        }
        guard let comparisonOperator = comparisonOperator(type) else {
            return .failure(CoreDataError.unsupported("NSComparisonPredicate's customSelector operator (Objective-C selectors)"))
        }
        var comparisonOptions: PredicateComparison.Options = []
        if options.contains(.caseInsensitive) { comparisonOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { comparisonOptions.insert(.diacriticInsensitive) }
        if options.contains(.normalized) { comparisonOptions.insert(.normalized) }
        let comparisonModifier: PredicateComparison.Modifier = switch modifier {
        case .direct: .direct
        case .all: .all
        case .any: .any
        }
        return .success(.comparison(PredicateComparison(left, comparisonOperator, right, modifier: comparisonModifier, options: comparisonOptions)))
    }

    /// The format language's operator for Apple's, or nil for `customSelector`.
    private static func comparisonOperator(_ type: Operator) -> PredicateComparison.Operator? {
        switch type {
        case .lessThan: return .lessThan
        case .lessThanOrEqualTo: return .lessThanOrEqualTo
        case .greaterThan: return .greaterThan
        case .greaterThanOrEqualTo: return .greaterThanOrEqualTo
        case .equalTo: return .equalTo
        case .notEqualTo: return .notEqualTo
        case .matches: return .matches
        case .like: return .like
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .in: return .in
        case .contains: return .contains
        case .between: return .between
        case .customSelector: return nil
        }
    }
}

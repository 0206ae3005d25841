/// One comparison: `[modifier] lhs operator[options] rhs`.
///
/// An addition to Apple's API, standing for Apple's `NSComparisonPredicate`.
///
/// The modifier applies to the left operand, which should then be a collection (a to-many key path, an array):
/// `ANY` is true when the comparison holds for some element, `ALL` when it holds for every element (true for an
/// empty collection), `NONE` when it holds for no element.
public struct PredicateComparison: Hashable, @unchecked Sendable {
    /// The left operand.
    public var lhs: PredicateOperand
    /// The operator.
    public var `operator`: Operator
    /// The right operand. For `BETWEEN` it is a two-element array (or an expression giving one).
    public var rhs: PredicateOperand
    /// `ANY`, `ALL`, `NONE`, or `direct` (no modifier).
    public var modifier: Modifier
    /// `[c]`, `[d]`, `[n]`, `[l]` options for string operators.
    public var options: Options

    /// The comparison `lhs op rhs`, by default without a modifier (`ANY`, `ALL`) or string options.
    public init(
        _ lhs: PredicateOperand, _ op: Operator, _ rhs: PredicateOperand,
        modifier: Modifier = .direct, options: Options = []
    ) {
        self.lhs = lhs
        self.operator = op
        self.rhs = rhs
        self.modifier = modifier
        self.options = options
    }

    /// The comparison operators of the format language.
    public enum Operator: String, Hashable, Sendable, CaseIterable {
        /// `<`
        case lessThan = "<"
        /// `<=`, `=<`
        case lessThanOrEqualTo = "<="
        /// `>`
        case greaterThan = ">"
        /// `>=`, `=>`
        case greaterThanOrEqualTo = ">="
        /// `==`, `=`
        case equalTo = "=="
        /// `!=`, `<>`
        case notEqualTo = "!="
        /// `MATCHES`: the whole left string matches the right regular expression (ICU syntax).
        case matches = "MATCHES"
        /// `LIKE`: the whole left string matches the right pattern, where `*` is any run and `?` one character.
        case like = "LIKE"
        /// `BEGINSWITH`
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`
        case endsWith = "ENDSWITH"
        /// `IN`: the left value is an element of the right collection, or a substring of the right string.
        case `in` = "IN"
        /// `CONTAINS`: the left collection has the right value as an element, or the left string contains the right.
        case contains = "CONTAINS"
        /// `BETWEEN`: `low <= left <= high` for the right pair `{low, high}`.
        case between = "BETWEEN"
    }

    /// How the comparison applies to a collection on the left.
    public enum Modifier: String, Hashable, Sendable, CaseIterable {
        /// No modifier: compare the left value itself.
        case direct = ""
        /// `ANY` (also spelled `SOME`).
        case any = "ANY"
        /// `ALL`.
        case all = "ALL"
        /// `NONE`: the same as `NOT ANY`.
        case none = "NONE"
    }

    /// String comparison options, written after the operator in brackets: `[cd]`.
    public struct Options: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: case-insensitive (Unicode case folding).
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive (accents stripped by Unicode decomposition).
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the operands are already normalized; accepted and kept, no effect on results.
        public static let normalized = Options(rawValue: 4)
        /// `[l]`: locale-sensitive; accepted and kept, compared as without it.
        public static let localeSensitive = Options(rawValue: 8)

        /// The bracketed spelling, such as `"[cd]"`, or `""` when empty.
        public var formatSuffix: String {
            if isEmpty { return "" }
            var letters = ""
            if contains(.caseInsensitive) { letters += "c" }
            if contains(.diacriticInsensitive) { letters += "d" }
            if contains(.normalized) { letters += "n" }
            if contains(.localeSensitive) { letters += "l" }
            return "[\(letters)]"
        }
    }
}

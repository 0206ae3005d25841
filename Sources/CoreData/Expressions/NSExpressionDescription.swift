/// A computed column of a dictionary fetch: an expression, the key it is returned under (`name`), and the
/// type of its result (Apple's `NSExpressionDescription`).
///
/// Put it in a fetch request's `propertiesToFetch` with `resultType = .dictionaryResultType`. Aggregate
/// functions (`sum:`, `count:`, `min:`, `max:`, `average:`, …) reduce all matching rows, or each group of
/// `propertiesToGroupBy`; other expressions are evaluated on each row (or on a group's first row).
///
/// `@unchecked Sendable`: configured before the fetch request that holds it is shared, then only read, as requests
/// are.
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    /// The expression computed for each result.
    open var expression: NSExpression?
    /// The attribute type the result is converted to (`.undefinedAttributeType` keeps the computed value).
    open var expressionResultType: NSAttributeType = .undefinedAttributeType

    public override init() {
        super.init()
        isTransient = true
    }

    required public init(copying other: NSPropertyDescription) {
        if let other = other as? NSExpressionDescription {
            expression = other.expression
            expressionResultType = other.expressionResultType
        }
        super.init(copying: other)
    }
}

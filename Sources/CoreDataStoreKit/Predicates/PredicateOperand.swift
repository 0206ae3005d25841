/// A value expression inside a predicate: what a comparison compares.
///
/// An addition to Apple's API, standing for Apple's `NSExpression`. Key paths are split on dots; collection
/// operators (`@count`, `@sum`, …) become ``aggregate(_:_:)`` nodes wrapping the collection they apply to, so
/// `items.@sum.price` is `.aggregate(.sum, .keyPath(["items", "price"]))` and `SUBQUERY(…).@count` is
/// `.aggregate(.count, .subquery(…))`.
public indirect enum PredicateOperand: Hashable, Sendable {
    /// A literal or an argument (`%@`, `%d`, …): a string, number, date, array given as one value, …
    case constant(PredicateConstant)
    /// The object being evaluated: `SELF`.
    case evaluatedObject
    /// A key path read from the evaluated object: `name`, `author.name`. Never empty. Crossing a nil to-one
    /// gives nil; crossing a to-many gives the collection of values.
    case keyPath([String])
    /// A key path read from another operand: `$x.name` inside a subquery, `SUBQUERY(…).name`.
    case member(PredicateOperand, [String])
    /// A substitution or subquery variable: `$name`.
    case variable(String)
    /// A collection operator applied to a collection operand.
    case aggregate(Aggregate, PredicateOperand)
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of the collection for which the predicate
    /// holds, with `$variable` bound to each element.
    case subquery(collection: PredicateOperand, variable: String, predicate: PredicateNode)
    /// An array literal: `{1, 2, 3}`.
    case array([PredicateOperand])
    /// Arithmetic: `a + b`, `a - b`, `a * b`, `a / b`, `a ** b`.
    case arithmetic(ArithmeticOperator, PredicateOperand, PredicateOperand)
    /// Unary minus of a non-constant operand: `-price` (a minus before a number literal folds into it).
    case negate(PredicateOperand)
    /// `CAST(value, "Type")`, with Apple's type names (`NSDate`, `NSNumber`, `NSString`, `NSDecimalNumber`)
    /// and ours (`NSUUID`, `NSData` from Base64, `NSURL`). Casts of literals fold into constants at parse time.
    case cast(PredicateOperand, type: String)
    /// An index into a collection: `items[FIRST]`, `items[LAST]`, `items[SIZE]` or `items[2]`.
    case index(PredicateOperand, CollectionIndex)
    /// `FUNCTION(target, "selector:", arguments…)`: a method called on the target's value. Evaluated by a
    /// target that adopts ``PredicateFunctionTarget`` (the migration manager, a migration policy); any other
    /// target gives nil.
    case function(target: PredicateOperand, selector: String, arguments: [PredicateOperand])
    /// `FETCH(request, context, countOnly)`: the objects (or their count) a fetch request gives in a
    /// context, evaluated by a context that adopts ``PredicateFetchContext``; nil otherwise.
    case fetch(request: PredicateOperand, context: PredicateOperand, countOnly: Bool)
    /// One of Apple's built-in functions called by name, as Apple prints them: `count:(items)`,
    /// `modulus:by:(a, b)`, `now()` (Apple's `NSExpression(forFunction:arguments:)`). Evaluated by
    /// ``ExpressionFunction``; a name it does not know gives nil.
    case builtInFunction(name: String, arguments: [PredicateOperand])
    /// `TERNARY(predicate, whenTrue, whenFalse)`: `whenTrue` when the predicate holds for the evaluated
    /// object, else `whenFalse` (Apple's `NSExpression(forConditional:trueExpression:falseExpression:)`).
    case ternary(PredicateNode, PredicateOperand, PredicateOperand)
    /// `ANYKEY`: any key of the object (Apple's `NSExpression.expressionForAnyKey()`), meaningful only in
    /// Spotlight queries; it evaluates to nil here, as no key is chosen.
    case anyKey
    /// `a UNION b`, `a INTERSECT b`, `a MINUS b`: set operations on two collections (Apple's
    /// `NSExpression(forUnionSet:with:)` and its siblings). The result is the distinct elements, in the order
    /// first met; nil when the left side is not a collection.
    case setOperation(SetOperator, PredicateOperand, PredicateOperand)

    /// The set operations of ``setOperation(_:_:_:)``, spelled as the format language writes them.
    public enum SetOperator: String, Hashable, Sendable, CaseIterable {
        /// `UNION`: the elements of either side.
        case union = "UNION"
        /// `INTERSECT`: the elements of the left side that the right side has.
        case intersect = "INTERSECT"
        /// `MINUS`: the elements of the left side that the right side lacks.
        case minus = "MINUS"
    }

    /// Collection operators.
    public enum Aggregate: String, Hashable, Sendable, CaseIterable {
        /// `@count`: the number of elements (0 for nil).
        case count = "@count"
        /// `@sum`: the sum of the numeric elements (0 when none).
        case sum = "@sum"
        /// `@avg`: the average of the numeric elements (nil when none).
        case average = "@avg"
        /// `@min`: the smallest element (nil when none).
        case min = "@min"
        /// `@max`: the largest element (nil when none).
        case max = "@max"
    }

    /// Arithmetic operators.
    public enum ArithmeticOperator: String, Hashable, Sendable, CaseIterable {
        /// `a + b`: the sum (Apple's `add:to:`).
        case add = "+"
        /// `a - b`: the difference (Apple's `from:subtract:`).
        case subtract = "-"
        /// `a * b`: the product (Apple's `multiply:by:`).
        case multiply = "*"
        /// `a / b`: the quotient (Apple's `divide:by:`).
        case divide = "/"
        /// `a ** b`: `a` raised to the power `b` (Apple's `raise:toPower:`).
        case power = "**"
    }

    /// The forms of `[…]` after a collection.
    public enum CollectionIndex: Hashable, Sendable {
        /// `[FIRST]`: the first element, or nil.
        case first
        /// `[LAST]`: the last element, or nil.
        case last
        /// `[SIZE]`: the element count.
        case size
        /// `[n]`: the element at a zero-based position, or nil when out of range.
        case position(Int)
    }
}

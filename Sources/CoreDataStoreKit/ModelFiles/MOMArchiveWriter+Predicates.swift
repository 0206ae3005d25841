/// Predicates in Apple's compiled form: the archived `NSPredicate` and `NSExpression` objects, with the classes
/// and keys of the fixtures' archives (SampleModel2's `Z_MODELCACHE` holds comparisons, compounds, key paths on
/// `SELF` and on variables, constants and a function expression), which `ArchivedPredicateText` renders back to
/// format text that parses to the same tree.
///
/// Written: every operator, the `ANY`/`ALL` modifiers and `NONE` (as `NOT (ANY …)`, the form Apple's parser
/// builds, since `NSComparisonPredicate` has no `NONE` modifier), the options `[c]` 1, `[d]` 2, `[n]` 4 and
/// `[l]` 8 (Apple's option bits), `AND`/`OR`/`NOT` nested to any depth, `TRUEPREDICATE`/`FALSEPREDICATE`;
/// `SELF`, `$variables`, key paths (on `SELF` or on another expression; collection operators such as `@count`
/// and `@sum` inside the path, as Apple's parser keeps them), `{…}` collections, arithmetic (Apple's functions
/// `add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:`, `raise:toPower:`; unary minus as `from:subtract:`
/// of 0), `FUNCTION(target, "selector:", …)`, `FETCH(…)`, and constants of every kind that has a literal form.
///
/// Refused with 3328 (no fixture shows Apple's archive of them, and the reader does not read them): `SUBQUERY`,
/// `CAST` of a non-constant, `[FIRST]`/`[LAST]`/`[SIZE]`/`[n]`, block predicates, and object or opaque constants
/// (which only arguments, never model text, produce).
extension MOMArchiveWriter.Builder {
    /// Apple's expression types (`NSExpression.ExpressionType`), as archived under `NSExpressionType`.
    enum ExpressionType: Int64 {
        case constantValue = 0, evaluatedObject = 1, variable = 2, keyPath = 3, function = 4, keyPathSpecifier = 10
        case aggregate = 14, fetchRequest = 50
    }

    /// The archived predicate for `format`; `fail` makes the error for what is not written.
    /// - Throws: `fail(reason)` for text that does not parse or holds parts not written (see above).
    mutating func predicate(format: String, fail: (String) -> NSError) throws -> Value {
        let node: PredicateNode
        do { node = try PredicateFormatParser.parse(format, arguments: []) } catch {
            throw fail("its predicate \"\(format)\" does not parse")
        }
        return try predicate(node, refuse: { fail("its predicate \"\(format)\" \($0)") })
    }

    /// The archived predicate for a parsed tree; `refuse` makes the error for a part not written.
    mutating func predicate(_ node: PredicateNode, refuse: (String) -> NSError) throws -> Value {
        switch node {
        case .constant(let flag):
            return object(flag ? "NSTruePredicate" : "NSFalsePredicate", superclasses: ["NSPredicate"], [])
        case .and(let parts):
            return try compound(type: 1, parts, refuse: refuse)
        case .or(let parts):
            return try compound(type: 2, parts, refuse: refuse)
        case .not(let inner):
            return try compound(type: 0, [inner], refuse: refuse)
        case .comparison(let comparison) where comparison.modifier == .none:
            var any = comparison
            any.modifier = .any
            return try compound(type: 0, [.comparison(any)], refuse: refuse)
        case .comparison(let comparison):
            return try self.comparison(comparison, refuse: refuse)
        case .block:
            throw refuse("is a block, which cannot be archived")
        }
    }

    private mutating func compound(type: Int64, _ parts: [PredicateNode], refuse: (String) -> NSError) throws -> Value {
        let items = try parts.map { try predicate($0, refuse: refuse) }
        return object("NSCompoundPredicate", superclasses: ["NSPredicate"],
                      [("NSCompoundPredicateType", .integer(type)), ("NSSubpredicates", array(items))])
    }

    /// Apple's operator class and `NSOperatorType` for each operator of the format language.
    static func operatorClass(_ op: PredicateComparison.Operator) -> (className: String, type: Int64) {
        switch op {
        case .lessThan: ("NSComparisonPredicateOperator", 0)
        case .lessThanOrEqualTo: ("NSComparisonPredicateOperator", 1)
        case .greaterThan: ("NSComparisonPredicateOperator", 2)
        case .greaterThanOrEqualTo: ("NSComparisonPredicateOperator", 3)
        case .equalTo: ("NSEqualityPredicateOperator", 4)
        case .notEqualTo: ("NSEqualityPredicateOperator", 5)
        case .matches: ("NSMatchingPredicateOperator", 6)
        case .like: ("NSLikePredicateOperator", 7)
        case .beginsWith: ("NSBeginsWithPredicateOperator", 8)
        case .endsWith: ("NSEndsWithPredicateOperator", 9)
        case .in: ("NSInPredicateOperator", 10)
        case .contains: ("NSInPredicateOperator", 99)
        case .between: ("NSBetweenPredicateOperator", 100)
        }
    }

    private mutating func comparison(_ comparison: PredicateComparison, refuse: (String) -> NSError) throws -> Value {
        let (className, type) = Self.operatorClass(comparison.operator)
        let modifier: Int64 = switch comparison.modifier {
        case .direct, .none: 0
        case .all: 1
        case .any: 2
        }
        var fields: [(String, Value)] = [("NSOperatorType", .integer(type)), ("NSModifier", .integer(modifier))]
        let options = Value.integer(Int64(comparison.options.rawValue))
        switch className {
        case "NSInPredicateOperator": fields.append(("NSFlags", options))
        case "NSComparisonPredicateOperator": fields += [("NSVariant", .integer(type)), ("NSOptions", options)]
        case "NSEqualityPredicateOperator": fields += [("NSNegate", .bool(comparison.operator == .notEqualTo)), ("NSOptions", options)]
        default: fields.append(("NSOptions", options))
        }
        let op = object(className, superclasses: ["NSPredicateOperator"], fields)
        let left = try expression(comparison.lhs, refuse: refuse)
        let right = try expression(comparison.rhs, refuse: refuse)
        return object("NSComparisonPredicate", superclasses: ["NSPredicate"],
                      [("NSPredicateOperator", op), ("NSLeftExpression", left), ("NSRightExpression", right)])
    }

    /// The archived expression for an operand of a predicate or a derivation.
    mutating func expression(_ operand: PredicateOperand, refuse: (String) -> NSError) throws -> Value {
        switch operand {
        case .evaluatedObject:
            return selfExpression()
        case .variable(let name):
            return object("NSVariableExpression", superclasses: ["NSExpression"],
                          [("NSExpressionType", .integer(ExpressionType.variable.rawValue)), ("NSVariable", string(name))])
        case .keyPath, .member, .aggregate:
            guard let (base, path) = Self.keyPath(of: operand) else { throw refuse("has a key path the .mom writer does not write") }
            let baseValue = try base.map { try expression($0, refuse: refuse) }
            return keyPath(path, on: baseValue)
        case .constant(.collection(let items)):
            // A literal `{1, 'x', nil}` (which the parser folds into one constant) is, as Apple's parser builds
            // it, an aggregate of constant expressions; `nil` elements stay in it.
            return try expression(.array(items.map(PredicateOperand.constant)), refuse: refuse)
        case .constant(let constant):
            return try constantExpression(constant, refuse: refuse)
        case .array(let items):
            let values = try items.map { try expression($0, refuse: refuse) }
            return object("NSAggregateExpression", superclasses: ["NSExpression"],
                          [("NSExpressionType", .integer(ExpressionType.aggregate.rawValue)), ("NSCollection", array(values))])
        case .arithmetic(let op, let a, let b):
            return try builtInFunction(Self.arithmeticSelector(op), [a, b], refuse: refuse)
        case .negate(let inner):
            return try builtInFunction("from:subtract:", [.constant(.integer(0)), inner], refuse: refuse)
        case .function(let target, let selector, let arguments):
            let targetValue = try expression(target, refuse: refuse)
            let values = try arguments.map { try expression($0, refuse: refuse) }
            return functionExpression(selector, operand: targetValue, arguments: values, argumentsClassName: functionArgumentsClassName)
        case .fetch(let request, let context, let countOnly):
            return object("NSFetchRequestExpression", superclasses: ["NSExpression"], [
                ("NSExpressionType", .integer(ExpressionType.fetchRequest.rawValue)),
                ("NSFRExpression", try expression(request, refuse: refuse)),
                ("NSMOCExpression", try expression(context, refuse: refuse)), ("NSCountOnlyFlag", .bool(countOnly)),
            ])
        case .subquery:
            throw refuse("has a SUBQUERY, which the .mom writer does not write (its archived form is not known)")
        case .cast:
            throw refuse("has a CAST of a non-constant, which the .mom writer does not write (its archived form is not known)")
        case .index:
            throw refuse("has a collection index ([FIRST], [LAST], [SIZE], [n]), which the .mom writer does not write")
        }
    }

    /// Apple's function name for an arithmetic operator.
    static func arithmeticSelector(_ op: PredicateOperand.ArithmeticOperator) -> String {
        switch op {
        case .add: "add:to:"
        case .subtract: "from:subtract:"
        case .multiply: "multiply:by:"
        case .divide: "divide:by:"
        case .power: "raise:toPower:"
        }
    }

    /// A key path operand as Apple's parser keeps it: the expression it starts from (nil for `SELF`) and one
    /// dotted path, collection operators included (`items.@sum.price`, `pages.@count`). Nil for an operand that
    /// is not a key path.
    static func keyPath(of operand: PredicateOperand) -> (base: PredicateOperand?, path: String)? {
        switch operand {
        case .keyPath(let path):
            return (nil, path.joined(separator: "."))
        case .member(let base, let path):
            if case .evaluatedObject = base { return (nil, path.joined(separator: ".")) }
            return (base, path.joined(separator: "."))
        case .aggregate(let op, let inner):
            guard let (base, path) = keyPath(of: inner) else {
                if case .evaluatedObject = inner { return (nil, op.rawValue) }
                return (inner, op.rawValue)
            }
            let keys = path.split(separator: ".").map(String.init)
            // Apple's spelling puts the operator after the collection: items.@sum.price (and pages.@count).
            if op != .count, keys.count > 1 { return (base, ([keys[0], op.rawValue] + keys.dropFirst()).joined(separator: ".")) }
            return (base, path + "." + op.rawValue)
        default:
            return nil
        }
    }

    /// `SELF`.
    private mutating func selfExpression() -> Value {
        object("NSSelfExpression", superclasses: ["NSExpression"], [("NSExpressionType", .integer(ExpressionType.evaluatedObject.rawValue))])
    }

    /// `base.path` as Apple archives a key path: an `NSKeyPathExpression` applying `valueForKey:` (one key on
    /// `SELF`, expression type 3) or `valueForKeyPath:` (a dotted path, type 3 on `SELF`; on another
    /// expression, type 4) with one `NSKeyPathSpecifierExpression`, as in the fixtures.
    mutating func keyPath(_ path: String, on base: Value?) -> Value {
        let specifier = object("NSKeyPathSpecifierExpression", superclasses: ["NSExpression"],
                               [("NSExpressionType", .integer(ExpressionType.keyPathSpecifier.rawValue)), ("NSKeyPath", string(path))])
        let onSelf = base == nil
        let selector = onSelf && !path.contains(".") ? "valueForKey:" : "valueForKeyPath:"
        let operand = base ?? selfExpression()
        return object("NSKeyPathExpression", superclasses: ["NSFunctionExpression", "NSExpression"], [
            ("NSExpressionType", .integer(onSelf ? ExpressionType.keyPath.rawValue : ExpressionType.function.rawValue)),
            ("NSOperand", operand), ("NSSelectorName", string(selector)), ("NSArguments", array([specifier], className: "NSMutableArray")),
        ])
    }

    /// One of Apple's built-in functions (`count:`, `add:to:`, `now`, …): an `NSFunctionExpression` whose operand
    /// is a constant expression naming the class `_NSPredicateUtilities`, as in the fixtures' derivation.
    mutating func builtInFunction(_ selector: String, _ arguments: [PredicateOperand], refuse: (String) -> NSError) throws -> Value {
        let values = try arguments.map { try expression($0, refuse: refuse) }
        let utilities = object("NSConstantValueExpression", superclasses: ["NSExpression"], [
            ("NSExpressionType", .integer(ExpressionType.constantValue.rawValue)), ("NSConstantValueClassName", string("_NSPredicateUtilities")),
        ])
        return functionExpression(selector, operand: utilities, arguments: values)
    }

    private mutating func functionExpression(_ selector: String, operand: Value, arguments: [Value],
                                             argumentsClassName: String = "NSArray") -> Value {
        object("NSFunctionExpression", superclasses: ["NSExpression"], [
            ("NSExpressionType", .integer(ExpressionType.function.rawValue)), ("NSOperand", operand),
            ("NSSelectorName", string(selector)), ("NSArguments", array(arguments, className: argumentsClassName)),
        ])
    }

    private mutating func constantExpression(_ constant: PredicateConstant, refuse: (String) -> NSError) throws -> Value {
        var fields: [(String, Value)] = [("NSExpressionType", .integer(ExpressionType.constantValue.rawValue))]
        if let value = try constantValue(constant, refuse: refuse) { fields.append(("NSConstantValue", value)) }
        return object("NSConstantValueExpression", superclasses: ["NSExpression"], fields)
    }

    /// A constant as the archiver stores the value: nil (the key is left out) for `nil`.
    private mutating func constantValue(_ constant: PredicateConstant, refuse: (String) -> NSError) throws -> Value? {
        switch constant {
        case .null: return nil
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .double(let number): return .real(number)
        case .decimal(let decimal): return decimalNumber(decimal)
        case .string(let text): return string(text)
        case .date(let date): return self.date(date)
        case .data(let data): return bytes(data)
        case .uuid(let uuid): return self.uuid(uuid)
        case .url(let url): return self.url(url)
        case .collection(let items):
            return array(try items.map { item in try constantValue(item, refuse: refuse) ?? object("NSNull", []) })
        case .object, .opaque:
            throw refuse("has an object constant, which cannot be archived")
        }
    }
}

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
/// Also written, with the classes and keys of Foundation's `encodeWithCoder:` (Docs/ModelFiles.md lists them):
/// `SUBQUERY` (`NSSubqueryExpression`), `TERNARY` (`NSTernaryExpression`), `ANYKEY` (`NSAnyKeyExpression`),
/// `UNION`/`INTERSECT`/`MINUS` (`NSSetExpression`), indexes `[n]`/`[FIRST]`/`[LAST]`/`[SIZE]` (the function
/// `objectFrom:withIndex:`, the symbolic ones as `NSSymbolicExpression`), `CAST` of a non-constant
/// (`castObject:toType:`) and built-in functions by name (`count:(items)`, `now()`).
///
/// Refused with 3328: block predicates (which Apple cannot archive either), and object or opaque constants
/// (which only arguments, never model text, produce).
extension MOMArchiveWriter.Builder {
    /// Apple's expression types (`NSExpression.ExpressionType`), as archived under `NSExpressionType`.
    enum ExpressionType: Int64 {
        case constantValue = 0, evaluatedObject = 1, variable = 2, keyPath = 3, function = 4
        case unionSet = 5, intersectSet = 6, minusSet = 7, keyPathSpecifier = 10, symbolic = 11
        case subquery = 13, aggregate = 14, anyKey = 15, conditional = 20, fetchRequest = 50
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

    /// The archived predicate for a predicate made in code: its tree when it has one (a block predicate is
    /// refused as one), else its format text.
    mutating func predicate(_ predicate: NSPredicate, fail: (String) -> NSError) throws -> Value {
        guard let node = predicate.parsedExpression else { return try self.predicate(format: predicate.predicateFormat, fail: fail) }
        return try self.predicate(node, refuse: { fail("its predicate \"\(predicate.predicateFormat)\" \($0)") })
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

    /// Apple's operator class, its superclasses and `NSOperatorType` for each operator of the format language
    /// (`+[NSPredicateOperator _newOperatorWithType:modifier:options:]` in Foundation).
    static func operatorClass(_ op: PredicateComparison.Operator) -> (className: String, superclasses: [String], type: Int64) {
        let string = ["NSStringPredicateOperator", "NSPredicateOperator"]
        return switch op {
        case .lessThan: ("NSComparisonPredicateOperator", ["NSPredicateOperator"], 0)
        case .lessThanOrEqualTo: ("NSComparisonPredicateOperator", ["NSPredicateOperator"], 1)
        case .greaterThan: ("NSComparisonPredicateOperator", ["NSPredicateOperator"], 2)
        case .greaterThanOrEqualTo: ("NSComparisonPredicateOperator", ["NSPredicateOperator"], 3)
        case .equalTo: ("NSEqualityPredicateOperator", ["NSPredicateOperator"], 4)
        case .notEqualTo: ("NSEqualityPredicateOperator", ["NSPredicateOperator"], 5)
        case .matches: ("NSMatchingPredicateOperator", string, 6)
        case .like: ("NSLikePredicateOperator", ["NSMatchingPredicateOperator"] + string, 7)
        case .beginsWith: ("NSSubstringPredicateOperator", string, 8)
        case .endsWith: ("NSSubstringPredicateOperator", string, 9)
        case .in: ("NSInPredicateOperator", ["NSPredicateOperator"], 10)
        case .contains: ("NSInPredicateOperator", ["NSPredicateOperator"], 99)
        case .between: ("NSBetweenPredicateOperator", ["NSPredicateOperator"], 100)
        }
    }

    /// A comparison: `NSComparisonPredicate` (`NSPredicateOperator`, `NSLeftExpression`, `NSRightExpression`)
    /// whose operator has Apple's keys for its class: `NSOperatorType` and `NSModifier` for all; options under
    /// `NSOptions` (with `NSVariant` = the type for `NSComparisonPredicateOperator`, `NSNegate` for
    /// `NSEqualityPredicateOperator`) or under `NSFlags` (the string operators and `NSInPredicateOperator`);
    /// `NSPosition` 0 (`BEGINSWITH`) or 1 (`ENDSWITH`) for `NSSubstringPredicateOperator`; none for `BETWEEN`.
    private mutating func comparison(_ comparison: PredicateComparison, refuse: (String) -> NSError) throws -> Value {
        let (className, superclasses, type) = Self.operatorClass(comparison.operator)
        let modifier: Int64 = switch comparison.modifier {
        case .direct, .none: 0
        case .all: 1
        case .any: 2
        }
        var fields: [(String, Value)] = [("NSOperatorType", .integer(type)), ("NSModifier", .integer(modifier))]
        let options = Value.integer(Int64(comparison.options.rawValue))
        switch className {
        case "NSComparisonPredicateOperator": fields += [("NSVariant", .integer(type)), ("NSOptions", options)]
        case "NSEqualityPredicateOperator": fields += [("NSNegate", .bool(comparison.operator == .notEqualTo)), ("NSOptions", options)]
        case "NSSubstringPredicateOperator": fields += [("NSFlags", options), ("NSPosition", .integer(type == 8 ? 0 : 1))]
        case "NSBetweenPredicateOperator": break
        default: fields.append(("NSFlags", options))
        }
        let op = object(className, superclasses: superclasses, fields)
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
        case .subquery(let collection, let variable, let predicate):
            return object("NSSubqueryExpression", superclasses: ["NSExpression"], [
                ("NSExpressionType", .integer(ExpressionType.subquery.rawValue)),
                ("NSExpression", try expression(collection, refuse: refuse)), ("NSVariable", string(variable)),
                ("NSSubpredicate", try self.predicate(predicate, refuse: refuse)),
            ])
        case .cast(let value, let type):
            return try builtInFunction("castObject:toType:", [value, .constant(.string(type))], refuse: refuse)
        case .index(let base, let index):
            let indexValue: Value
            switch index {
            case .position(let position): indexValue = try constantExpression(.integer(Int64(position)), refuse: refuse)
            case .first: indexValue = symbolicExpression("FIRST")
            case .last: indexValue = symbolicExpression("LAST")
            case .size: indexValue = symbolicExpression("SIZE")
            }
            return builtInFunction("objectFrom:withIndex:", values: [try expression(base, refuse: refuse), indexValue])
        case .builtInFunction(let name, let arguments):
            return try builtInFunction(name, arguments, refuse: refuse)
        case .ternary(let condition, let whenTrue, let whenFalse):
            return object("NSTernaryExpression", superclasses: ["NSExpression"], [
                ("NSExpressionType", .integer(ExpressionType.conditional.rawValue)),
                ("NSPredicate", try predicate(condition, refuse: refuse)),
                ("NSTrueExpression", try expression(whenTrue, refuse: refuse)),
                ("NSFalseExpression", try expression(whenFalse, refuse: refuse)),
            ])
        case .anyKey:
            return object("NSAnyKeyExpression", superclasses: ["NSExpression"], [("NSExpressionType", .integer(ExpressionType.anyKey.rawValue))])
        case .setOperation(let op, let left, let right):
            let type: ExpressionType = switch op {
            case .union: .unionSet
            case .intersect: .intersectSet
            case .minus: .minusSet
            }
            return object("NSSetExpression", superclasses: ["NSExpression"], [
                ("NSExpressionType", .integer(type.rawValue)),
                ("NSLeftExpression", try expression(left, refuse: refuse)), ("NSRightExpression", try expression(right, refuse: refuse)),
            ])
        }
    }

    /// Apple's `NSSymbolicExpression` (key `NSToken`): `FIRST`, `LAST` or `SIZE` as an index.
    private mutating func symbolicExpression(_ token: String) -> Value {
        object("NSSymbolicExpression", superclasses: ["NSExpression"],
               [("NSExpressionType", .integer(ExpressionType.symbolic.rawValue)), ("NSToken", string(token))])
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
        return builtInFunction(selector, values: values)
    }

    /// A built-in function applied to archived arguments.
    private mutating func builtInFunction(_ selector: String, values: [Value]) -> Value {
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

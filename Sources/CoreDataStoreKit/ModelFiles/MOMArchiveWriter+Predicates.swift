/// Predicates in Apple's compiled form: the archived `NSPredicate` and `NSExpression` objects that
/// `ArchivedPredicateText` renders back to the same format text (comparisons with every operator but NONE,
/// compound, true and false predicates; self, key path, variable, constant and collection expressions).
extension MOMArchiveWriter.Builder {
    /// The archived predicate for `format`; `fail` makes the error for what is not written.
    /// - Throws: `fail(reason)` for text that does not parse or holds parts not written (aggregates, subqueries,
    ///   arithmetic, casts, functions, `NONE`, locale-sensitive comparisons, block predicates).
    mutating func predicate(format: String, fail: (String) -> NSError) throws -> Value {
        let node: PredicateNode
        do { node = try PredicateFormatParser.parse(format, arguments: []) } catch {
            throw fail("its predicate \"\(format)\" does not parse")
        }
        return try predicate(node, format: format, fail: fail)
    }

    private mutating func predicate(_ node: PredicateNode, format: String, fail: (String) -> NSError) throws -> Value {
        switch node {
        case .constant(let flag):
            return object(flag ? "NSTruePredicate" : "NSFalsePredicate", superclasses: ["NSPredicate"], [])
        case .and(let parts), .or(let parts):
            let type: Int64 = if case .and = node { 1 } else { 2 }
            let items = try parts.map { try predicate($0, format: format, fail: fail) }
            return object("NSCompoundPredicate", superclasses: ["NSPredicate"],
                          [("NSCompoundPredicateType", .integer(type)), ("NSSubpredicates", array(items))])
        case .not(let inner):
            let item = try predicate(inner, format: format, fail: fail)
            return object("NSCompoundPredicate", superclasses: ["NSPredicate"],
                          [("NSCompoundPredicateType", .integer(0)), ("NSSubpredicates", array([item]))])
        case .comparison(let comparison):
            return try self.comparison(comparison, format: format, fail: fail)
        case .block:
            throw fail("its predicate is a block, which cannot be archived")
        }
    }

    private mutating func comparison(_ comparison: PredicateComparison, format: String, fail: (String) -> NSError) throws -> Value {
        let (type, className): (Int64, String)
        switch comparison.operator {
        case .lessThan: (type, className) = (0, "NSComparisonPredicateOperator")
        case .lessThanOrEqualTo: (type, className) = (1, "NSComparisonPredicateOperator")
        case .greaterThan: (type, className) = (2, "NSComparisonPredicateOperator")
        case .greaterThanOrEqualTo: (type, className) = (3, "NSComparisonPredicateOperator")
        case .equalTo: (type, className) = (4, "NSEqualityPredicateOperator")
        case .notEqualTo: (type, className) = (5, "NSEqualityPredicateOperator")
        case .matches: (type, className) = (6, "NSMatchingPredicateOperator")
        case .like: (type, className) = (7, "NSLikePredicateOperator")
        case .beginsWith: (type, className) = (8, "NSBeginsWithPredicateOperator")
        case .endsWith: (type, className) = (9, "NSEndsWithPredicateOperator")
        case .in: (type, className) = (10, "NSInPredicateOperator")
        case .contains: (type, className) = (99, "NSInPredicateOperator")
        case .between: (type, className) = (100, "NSBetweenPredicateOperator")
        }
        let modifier: Int64
        switch comparison.modifier {
        case .direct: modifier = 0
        case .all: modifier = 1
        case .any: modifier = 2
        case .none: throw fail("its predicate \"\(format)\" uses NONE, which the .mom writer does not write yet")
        }
        let written: PredicateComparison.Options = [.caseInsensitive, .diacriticInsensitive, .normalized]
        guard comparison.options.subtracting(written).isEmpty else {
            throw fail("its predicate \"\(format)\" has a comparison option the .mom writer does not write")
        }
        let optionsKey = className == "NSInPredicateOperator" ? "NSFlags" : "NSOptions"
        let op = object(className, superclasses: ["NSPredicateOperator"], [
            ("NSOperatorType", .integer(type)), ("NSModifier", .integer(modifier)), (optionsKey, .integer(Int64(comparison.options.rawValue))),
        ])
        let left = try expression(comparison.lhs, format: format, fail: fail)
        let right = try expression(comparison.rhs, format: format, fail: fail)
        return object("NSComparisonPredicate", superclasses: ["NSPredicate"],
                      [("NSPredicateOperator", op), ("NSLeftExpression", left), ("NSRightExpression", right)])
    }

    private mutating func expression(_ operand: PredicateOperand, format: String, fail: (String) -> NSError) throws -> Value {
        switch operand {
        case .evaluatedObject:
            return object("NSSelfExpression", superclasses: ["NSExpression"], [("NSExpressionType", .integer(1))])
        case .variable(let name):
            return object("NSVariableExpression", superclasses: ["NSExpression"], [("NSExpressionType", .integer(2)), ("NSVariable", string(name))])
        case .keyPath(let path):
            let base = object("NSSelfExpression", superclasses: ["NSExpression"], [("NSExpressionType", .integer(1))])
            return keyPath(path, on: base)
        case .member(let base, let path):
            return keyPath(path, on: try expression(base, format: format, fail: fail))
        case .constant(let constant):
            return try self.constant(constant, format: format, fail: fail)
        case .array(let items):
            let values = try items.map { try expression($0, format: format, fail: fail) }
            return object("NSAggregateExpression", superclasses: ["NSExpression"], [("NSExpressionType", .integer(14)), ("NSCollection", array(values))])
        default:
            throw fail("its predicate \"\(format)\" has an expression the .mom writer does not write yet")
        }
    }

    /// `base.path` as Apple archives a key path: `valueForKeyPath:` applied to `base`.
    private mutating func keyPath(_ path: [String], on base: Value) -> Value {
        let specifier = object("NSKeyPathSpecifierExpression", superclasses: ["NSExpression"],
                               [("NSExpressionType", .integer(10)), ("NSKeyPath", string(path.joined(separator: ".")))])
        return object("NSKeyPathExpression", superclasses: ["NSFunctionExpression", "NSExpression"], [
            ("NSExpressionType", .integer(3)), ("NSOperand", base), ("NSSelectorName", string("valueForKeyPath:")),
            ("NSArguments", array([specifier])),
        ])
    }

    private mutating func constant(_ constant: PredicateConstant, format: String, fail: (String) -> NSError) throws -> Value {
        let value: Value
        switch constant {
        case .null: value = .uid(0)
        case .bool(let flag): value = .bool(flag)
        case .integer(let number): value = .integer(number)
        case .double(let number): value = .real(number)
        case .string(let text): value = string(text)
        case .date(let date): value = object("NSDate", [("NS.time", .real(date.timeIntervalSinceReferenceDate))])
        case .data(let data): value = bytes(data)
        default: throw fail("its predicate \"\(format)\" has a constant the .mom writer does not write yet")
        }
        return object("NSConstantValueExpression", superclasses: ["NSExpression"], [("NSExpressionType", .integer(0)), ("NSConstantValue", value)])
    }
}

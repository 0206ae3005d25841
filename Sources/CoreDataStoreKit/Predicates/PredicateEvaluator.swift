/// Evaluates predicate trees in memory, with Apple's semantics.
///
/// Objects are read through ``PredicateKeyValueReading``, `[String: Any]`, `NSDictionary`, or reflection of
/// stored properties (see ``PredicateValues/value(forKey:of:)``). Guarantees: never traps, whatever the values
/// (nil, `NSNull`, mixed types, overflowing arithmetic); a comparison between values of kinds that do not
/// compare is false.
struct PredicateEvaluator {
    /// `$variable` bindings, including subquery variables while a subquery runs.
    var variables: [String: Any]

    func evaluate(_ node: PredicateNode, on object: Any?) -> Bool {
        switch node {
        case .constant(let b):
            return b
        case .comparison(let c):
            return evaluate(c, on: object)
        case .and(let items):
            for item in items where !evaluate(item, on: object) { return false }
            return true
        case .or(let items):
            for item in items where evaluate(item, on: object) { return true }
            return false
        case .not(let inner):
            return !evaluate(inner, on: object)
        case .block(let reference):
            return reference.predicate.evaluate(with: object, substitutionVariables: variables)
        }
    }

    func evaluate(_ c: PredicateComparison, on object: Any?) -> Bool {
        let lhs = value(c.lhs, on: object)
        let rhs = value(c.rhs, on: object)
        switch c.modifier {
        case .direct:
            return Self.test(lhs, c.operator, rhs, c.options)
        case .any:
            return Self.modifierElements(lhs).contains { Self.test($0, c.operator, rhs, c.options) }
        case .all:
            return Self.modifierElements(lhs).allSatisfy { Self.test($0, c.operator, rhs, c.options) }
        case .none:
            return !Self.modifierElements(lhs).contains { Self.test($0, c.operator, rhs, c.options) }
        }
    }

    /// The elements an `ANY`/`ALL`/`NONE` ranges over: a collection's elements, nothing for nil, and a single
    /// value as a one-element collection.
    private static func modifierElements(_ value: Any?) -> [Any?] {
        guard let value = PredicateValues.unwrap(value) else { return [] }
        return PredicateValues.elements(of: value) ?? [value]
    }

    /// One comparison between two values.
    static func test(
        _ lhs: Any?, _ op: PredicateComparison.Operator, _ rhs: Any?, _ options: PredicateComparison.Options
    ) -> Bool {
        switch op {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return outcome(op, equal: PredicateValues.equal(lhs, rhs, options: options),
                           order: PredicateValues.compare(lhs, rhs, options: options))
        case .matches, .like, .beginsWith, .endsWith:
            guard let s = PredicateValues.string(PredicateValues.unwrap(lhs)),
                  let p = PredicateValues.string(PredicateValues.unwrap(rhs)) else { return false }
            switch op {
            case .matches: return PredicateStrings.matches(s, p, options)
            case .like: return PredicateStrings.like(s, p, options)
            case .beginsWith: return PredicateStrings.beginsWith(s, p, options)
            default: return PredicateStrings.endsWith(s, p, options)
            }
        case .in:
            return contains(collection: rhs, element: lhs, options)
        case .contains:
            return contains(collection: lhs, element: rhs, options)
        case .between:
            guard let bounds = PredicateValues.unwrap(rhs).flatMap(PredicateValues.elements(of:)),
                  bounds.count == 2,
                  let low = PredicateValues.compare(lhs, bounds[0], options: options),
                  let high = PredicateValues.compare(lhs, bounds[1], options: options) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        }
    }

    /// The outcome of an equality or ordering operator (`==`, `!=`, `<`, `<=`, `>`, `>=`): `equal` decides
    /// `==` and `!=`, `order` the others (nil, unordered, makes every ordering false); each is computed only
    /// for the operators that need it. False for any other operator. The one place these outcomes are
    /// decided, for the evaluator and for prepared predicates (`PreparedPredicate`) alike.
    static func outcome(
        _ op: PredicateComparison.Operator, equal: @autoclosure () -> Bool, order: @autoclosure () -> ComparisonResult?
    ) -> Bool {
        switch op {
        case .equalTo: return equal()
        case .notEqualTo: return !equal()
        case .lessThan: return order() == .orderedAscending
        case .lessThanOrEqualTo:
            guard let order = order() else { return false }
            return order != .orderedDescending
        case .greaterThan: return order() == .orderedDescending
        case .greaterThanOrEqualTo:
            guard let order = order() else { return false }
            return order != .orderedAscending
        default: return false
        }
    }

    /// `CONTAINS` and `IN`: membership in a collection, or substring of a string.
    private static func contains(collection: Any?, element: Any?, _ options: PredicateComparison.Options) -> Bool {
        guard let collection = PredicateValues.unwrap(collection) else { return false }
        if let items = PredicateValues.elements(of: collection) {
            return items.contains { PredicateValues.equal($0, element, options: options) }
        }
        if let s = PredicateValues.string(collection),
           let part = PredicateValues.string(PredicateValues.unwrap(element)) {
            return PredicateStrings.contains(s, part, options)
        }
        return false
    }

    // MARK: Operands

    func value(_ operand: PredicateOperand, on object: Any?) -> Any? {
        switch operand {
        case .constant(let c):
            return c.value
        case .evaluatedObject:
            return PredicateValues.unwrap(object)
        case .keyPath(let path):
            return Self.read(path[...], from: object)
        case .member(let base, let path):
            return Self.read(path[...], from: value(base, on: object))
        case .variable(let name):
            return PredicateValues.unwrap(variables[name])
        case .aggregate(let op, let inner):
            return Self.aggregate(op, value(inner, on: object))
        case .subquery(let collection, let variable, let predicate):
            guard let source = PredicateValues.unwrap(value(collection, on: object)) else { return [Any?]() }
            let items = PredicateValues.elements(of: source) ?? [source]
            var inner = self
            var result: [Any?] = []
            for item in items {
                inner.variables[variable] = item as Any
                if inner.evaluate(predicate, on: item) { result.append(item) }
            }
            return result
        case .array(let items):
            return items.map { value($0, on: object) }
        case .arithmetic(let op, let a, let b):
            return Self.arithmetic(op, value(a, on: object), value(b, on: object))
        case .negate(let inner):
            return PredicateValues.unwrap(value(inner, on: object)).flatMap(PredicateNumber.init)?.negated.anyValue
        case .cast(let inner, let type):
            return PredicateCast.cast(value(inner, on: object), to: type)
        case .index(let base, let index):
            guard let source = PredicateValues.unwrap(value(base, on: object)),
                  let items = PredicateValues.elements(of: source) else { return nil }
            switch index {
            case .first: return items.first ?? nil
            case .last: return items.last ?? nil
            case .size: return Int64(items.count)
            case .position(let i): return i >= 0 && i < items.count ? items[i] : nil
            }
        case .function(let target, let selector, let arguments):
            guard let receiver = PredicateValues.unwrap(value(target, on: object)) as? PredicateFunctionTarget else { return nil }
            return receiver.value(ofFunction: selector, arguments: arguments.map { value($0, on: object) })
        case .fetch(let request, let context, let countOnly):
            guard let receiver = PredicateValues.unwrap(value(context, on: object)) as? PredicateFetchContext else { return nil }
            return receiver.value(ofFetch: value(request, on: object), countOnly: countOnly)
        case .builtInFunction(let name, let arguments):
            return ExpressionFunction.apply(name, arguments.map { value($0, on: object) })
        case .ternary(let predicate, let whenTrue, let whenFalse):
            return value(evaluate(predicate, on: object) ? whenTrue : whenFalse, on: object)
        case .anyKey:
            return nil
        case .setOperation(let op, let left, let right):
            return Self.setOperation(op, value(left, on: object), value(right, on: object))
        }
    }

    /// A set operation, as Apple's: the left side must be a collection (else nil); a nil right side leaves
    /// the left one's elements; a right side that is not a collection gives nil. The result holds each
    /// element once, in the order first met.
    static func setOperation(_ op: PredicateOperand.SetOperator, _ left: Any?, _ right: Any?) -> Any? {
        guard let leftValue = PredicateValues.unwrap(left), let leftItems = PredicateValues.elements(of: leftValue) else { return nil }
        var rightItems: [Any?] = []
        if let rightValue = PredicateValues.unwrap(right) {
            guard let items = PredicateValues.elements(of: rightValue) else { return nil }
            rightItems = items
        }
        func distinct(_ items: [Any?]) -> [Any?] {
            var out: [Any?] = []
            for item in items where !out.contains(where: { PredicateValues.equal($0, item) }) { out.append(item) }
            return out
        }
        func inRight(_ item: Any?) -> Bool { rightItems.contains { PredicateValues.equal($0, item) } }
        switch op {
        case .union: return distinct(leftItems + rightItems)
        case .intersect: return distinct(leftItems.filter(inRight))
        case .minus: return distinct(leftItems.filter { !inRight($0) })
        }
    }

    /// Reads a key path. A nil anywhere gives nil; a collection met on the way gives the collection of the
    /// rest of the path read from each element, flattened one level per to-many crossed.
    static func read(_ path: ArraySlice<String>, from start: Any?) -> Any? {
        var current = PredicateValues.unwrap(start)
        var index = path.startIndex
        while index < path.endIndex {
            guard let object = current else { return nil }
            if let items = PredicateValues.elements(of: object) {
                let rest = path[index...]
                var result: [Any?] = []
                for item in items {
                    let v = read(rest, from: item)
                    if let unwrapped = PredicateValues.unwrap(v), let inner = PredicateValues.elements(of: unwrapped) {
                        result.append(contentsOf: inner)
                    } else {
                        result.append(v)
                    }
                }
                return result
            }
            current = PredicateValues.value(forKey: path[index], of: object)
            index += 1
        }
        return current
    }

    static func aggregate(_ op: PredicateOperand.Aggregate, _ input: Any?) -> Any? {
        guard let input = PredicateValues.unwrap(input) else {
            return op == .count || op == .sum ? Int64(0) : nil
        }
        let items = PredicateValues.elements(of: input) ?? [input]
        switch op {
        case .count:
            return Int64(items.count)
        case .sum, .average:
            var total = PredicateNumber.integer(0)
            var count = 0
            for item in items {
                guard let n = PredicateValues.unwrap(item).flatMap(PredicateNumber.init) else { continue }
                total = PredicateNumber.apply(.add, total, n) ?? .double(.nan)
                count += 1
            }
            if op == .sum { return total.anyValue }
            if count == 0 { return nil }
            return PredicateNumber.apply(.divide, total, .integer(Int64(count))).map { n -> Any in
                if case .integer(let i) = n { return Double(i) }
                return n.anyValue
            }
        case .min, .max:
            var best: Any?
            for item in items {
                guard let v = PredicateValues.unwrap(item) else { continue }
                guard let current = best else {
                    best = v
                    continue
                }
                guard let order = PredicateValues.compare(v, current) else { continue }
                if (op == .min && order == .orderedAscending) || (op == .max && order == .orderedDescending) {
                    best = v
                }
            }
            return best
        }
    }

    static func arithmetic(_ op: PredicateOperand.ArithmeticOperator, _ a: Any?, _ b: Any?) -> Any? {
        let a = PredicateValues.unwrap(a)
        let b = PredicateValues.unwrap(b)
        if let x = a.flatMap(PredicateNumber.init), let y = b.flatMap(PredicateNumber.init) {
            return PredicateNumber.apply(op, x, y)?.anyValue
        }
        // Dates move by seconds: date + n, date - n, and date - date gives seconds.
        if let d = PredicateValues.date(a) {
            if let y = b.flatMap(PredicateNumber.init) {
                if op == .add { return d.addingTimeInterval(y.doubleValue) }
                if op == .subtract { return d.addingTimeInterval(-y.doubleValue) }
            }
            if op == .subtract, let e = PredicateValues.date(b) {
                return d.timeIntervalSince(e)
            }
        }
        return nil
    }
}

extension PredicateNode {
    /// Evaluates the predicate against one object (a managed object, a row, a dictionary, any value for
    /// `SELF`), with `$variable` bindings. Never traps.
    public func evaluate(with object: Any?, variables: [String: Any] = [:]) -> Bool {
        PredicateEvaluator(variables: variables).evaluate(self, on: object)
    }
}

extension PredicateOperand {
    /// Parses a format that is one expression (`amount * 2`, `items.@sum.price`, `%K`), as Apple's
    /// `NSExpression(format:)` does.
    /// - Throws: `NSError` 2048 naming the offset of a malformed format.
    public init(format: String, arguments: [Any?]) throws {
        self = try PredicateFormatParser.parseOperand(format, arguments: arguments)
    }

    /// The operand's value for one object: a plain Swift value (`Int64`, `Double`, `Decimal`, `String`,
    /// `Date`, …), an `[Any?]` for collections, or nil. Never traps.
    public func value(for object: Any?, variables: [String: Any] = [:]) -> Any? {
        PredicateEvaluator(variables: variables).value(self, on: object)
    }
}

/// A predicate made ready to test many objects, as a store's in-memory fetch does (`InMemoryQuery.filter`).
///
/// Preparing does once what `PredicateNode.evaluate(with:)` does for every object: a comparison of one key
/// with a constant (`amount > 500`, `name BEGINSWITH[c] "ga"`, `category IN {1, 2}`, `date < %@`) converts
/// its constant to a number, a folded string or a date when it is prepared, and an object that reads its own
/// keys (`PredicateKeyValueReading`) is recognised once per object, not once per key.
///
/// Guarantees: for every object, the answer is `PredicateNode.evaluate(with:)`'s (without variables). The fast
/// paths apply only where the value read is of a plain type whose outcome they compute with the same
/// functions as the evaluator (`PredicateNumber.compare`, `PredicateStrings.fold`, `Date` ordering); any other
/// value, and every other shape of predicate, goes through the evaluator. Never traps.
struct PreparedPredicate {
    private let test: (PredicateSubject) -> Bool
    /// Whether the predicate hands objects to a block (`NSPredicate(block:)`), which may keep them: then
    /// each object tested must be one of its own.
    let callsBlocks: Bool

    init(_ node: PredicateNode) {
        test = Self.prepare(node)
        callsBlocks = Self.callsBlocks(node)
    }

    private static func callsBlocks(_ node: PredicateNode) -> Bool {
        switch node {
        case .block: return true
        case .and(let items), .or(let items): return items.contains(where: callsBlocks)
        case .not(let inner): return callsBlocks(inner)
        case .constant, .comparison: return false
        }
    }

    /// Whether `object` matches.
    func evaluate(with object: Any?) -> Bool {
        test(PredicateSubject(object))
    }

    /// Whether `reader` matches; `reader` must be of a type `PredicateSubject.readsDirectly(_:)` accepts.
    func evaluate(reader: PredicateKeyValueReading) -> Bool {
        test(PredicateSubject(reader: reader))
    }

    private static func prepare(_ node: PredicateNode) -> (PredicateSubject) -> Bool {
        switch node {
        case .constant(let value):
            return { _ in value }
        case .and(let items):
            let tests = items.map(prepare)
            return { subject in
                for test in tests where !test(subject) { return false }
                return true
            }
        case .or(let items):
            let tests = items.map(prepare)
            return { subject in
                for test in tests where test(subject) { return true }
                return false
            }
        case .not(let inner):
            let test = prepare(inner)
            return { !test($0) }
        case .comparison(let comparison):
            if let prepared = PreparedComparison(comparison) { return prepared.test }
            return { subject in node.evaluate(with: subject.object) }
        case .block:
            return { subject in node.evaluate(with: subject.object) }
        }
    }
}

/// The object a prepared predicate tests, with the key-value reader it is, found once.
struct PredicateSubject {
    /// The object as handed in.
    let object: Any?
    /// The object as a reader of its own keys, when the evaluator would read its keys that way and nothing
    /// else (not an optional, `NSNull` or a collection, whose keys the evaluator reads otherwise).
    let reader: PredicateKeyValueReading?

    init(_ object: Any?) {
        self.object = object
        guard let object, !PredicateValues.isPlainValueType(type(of: object)), Self.readsDirectly(type(of: object)) else {
            reader = nil
            return
        }
        reader = object as? PredicateKeyValueReading
    }

    init(reader: PredicateKeyValueReading) {
        self.object = reader
        self.reader = reader
    }

    /// Whether the evaluator reads the keys of a value of `type` by asking it (`PredicateKeyValueReading`)
    /// and nothing else. Types that are optionals or collections are read otherwise.
    static func readsDirectly(_ type: Any.Type) -> Bool {
        let traits = PredicateTypeTraits.of(type)
        return traits.isKeyValueReading && !traits.isOptional && !traits.isCollection && type != NSNull.self
    }

    /// The value of a key path, as `PredicateEvaluator.read` gives it.
    func read(_ path: [String]) -> Any? {
        if path.count == 1, let reader { return PredicateValues.unwrap(reader.predicateValue(forKey: path[0])) }
        return PredicateEvaluator.read(path[...], from: object)
    }
}

/// `keyPath operator constant` (no modifier), with the constant converted once.
private struct PreparedComparison {
    let path: [String]
    let op: PredicateComparison.Operator
    let options: PredicateComparison.Options
    /// The constant as the evaluator sees it.
    let constant: Any?
    let kind: ConstantKind

    /// What the constant is, in the form the fast paths compare with.
    enum ConstantKind {
        /// A number, for the ordering and equality operators.
        case number(PredicateNumber)
        /// A string, folded with the comparison's options, for ordering, equality, `BEGINSWITH`, `ENDSWITH`
        /// and `CONTAINS`.
        case string(folded: String)
        /// A date, for the ordering and equality operators.
        case date(Date)
        /// The collection of `IN`: its numbers, and its strings folded with the options.
        case members(numbers: [PredicateNumber], folded: Set<String>)
    }

    init?(_ c: PredicateComparison) {
        guard c.modifier == .direct, case .keyPath(let path) = c.lhs, !path.isEmpty, case .constant(let k) = c.rhs else { return nil }
        let constant = PredicateValues.unwrap(k.value)
        guard let constant, let kind = Self.kind(of: constant, for: c.operator, options: c.options) else { return nil }
        self.path = path
        self.op = c.operator
        self.options = c.options
        self.constant = constant
        self.kind = kind
    }

    private static func kind(of constant: Any, for op: PredicateComparison.Operator,
                             options: PredicateComparison.Options) -> ConstantKind? {
        let ordering = op == .lessThan || op == .lessThanOrEqualTo || op == .greaterThan || op == .greaterThanOrEqualTo
            || op == .equalTo || op == .notEqualTo
        if ordering, let number = PredicateNumber(constant) { return .number(number) }
        if ordering || op == .beginsWith || op == .endsWith || op == .contains, let string = PredicateValues.string(constant) {
            return .string(folded: PredicateStrings.fold(string, options))
        }
        if ordering, let date = PredicateValues.date(constant) { return .date(date) }
        if op == .in, let items = PredicateValues.elements(of: constant) {
            var numbers: [PredicateNumber] = []
            var folded: Set<String> = []
            for item in items {
                guard let item = PredicateValues.unwrap(item) else { continue }
                if let number = PredicateNumber(item) {
                    numbers.append(number)
                } else if let string = PredicateValues.string(item) {
                    folded.insert(PredicateStrings.fold(string, options))
                }
            }
            return .members(numbers: numbers, folded: folded)
        }
        return nil
    }

    func test(_ subject: PredicateSubject) -> Bool {
        let value = subject.read(path)
        if let value, let outcome = fastOutcome(value) { return outcome }
        return PredicateEvaluator.test(value, op, constant, options)
    }

    /// The outcome for a value of a plain type the constant's kind compares directly; nil to leave the
    /// value to the evaluator.
    private func fastOutcome(_ value: Any) -> Bool? {
        let type = Swift.type(of: value)
        switch kind {
        case .number(let number):
            guard Self.isPlainNumberType(type), let x = PredicateNumber(value) else { return nil }
            return Self.outcome(PredicateNumber.compare(x, number), op)
        case .string(let folded):
            guard type == String.self, let string = value as? String else { return nil }
            let x = PredicateStrings.fold(string, options)
            switch op {
            case .beginsWith: return !folded.isEmpty && x.hasPrefix(folded)
            case .endsWith: return !folded.isEmpty && x.hasSuffix(folded)
            case .contains: return !folded.isEmpty && x.contains(folded)
            default: return Self.outcome(PredicateStrings.compareFolded(x, folded), op)
            }
        case .date(let date):
            guard type == Date.self, let x = value as? Date else { return nil }
            if op == .equalTo { return x == date }
            if op == .notEqualTo { return x != date }
            return Self.outcome(x < date ? .orderedAscending : (x > date ? .orderedDescending : .orderedSame), op)
        case .members(let numbers, let folded):
            // A plain number equals only the collection's numbers, a string only its strings
            // (`PredicateValues.equal`): the other members cannot match.
            if Self.isPlainNumberType(type), let x = PredicateNumber(value) {
                return numbers.contains { PredicateNumber.compare($0, x) == .orderedSame }
            }
            if type == String.self, let string = value as? String {
                return folded.contains(PredicateStrings.fold(string, options))
            }
            return nil
        }
    }

    /// Swift's number types (not `NSNumber`, not `Decimal`, whose equality the evaluator decides elsewhere).
    private static func isPlainNumberType(_ type: Any.Type) -> Bool {
        type == Int64.self || type == Int.self || type == Double.self || type == Int32.self || type == Int16.self
            || type == Bool.self || type == Float.self
    }

    /// The outcome of an ordering or equality operator for an order (nil: unordered), as
    /// `PredicateEvaluator.test` decides it.
    private static func outcome(_ order: ComparisonResult?, _ op: PredicateComparison.Operator) -> Bool {
        switch op {
        case .equalTo: return order == .orderedSame
        case .notEqualTo: return order != .orderedSame
        case .lessThan: return order == .orderedAscending
        case .lessThanOrEqualTo: return order != nil && order != .orderedDescending
        case .greaterThan: return order == .orderedDescending
        case .greaterThanOrEqualTo: return order != nil && order != .orderedAscending
        default: return false
        }
    }
}

/// A predicate made ready to test many objects, as a store's in-memory fetch does (`InMemoryQuery.filter`,
/// `AtomicStore.select`).
///
/// Preparing does once what `PredicateNode.evaluate(with:)` does for every object: a comparison of one key
/// with a constant (`amount > 500`, `name BEGINSWITH[c] "ga"`, `category IN {1, 2}`, `date < %@`) converts
/// its constant to a number, a folded string or a date when it is prepared, and an object that reads its own
/// keys (`PredicateKeyValueReading`) is recognised once per object, not once per key. Prepared for a slot
/// layout (`init(_:slotOfKey:)`), such a comparison on a key the layout keeps in a slot reads that slot by
/// its index (`evaluate(reader:slots:)`) instead of asking the object for the key by name.
///
/// Guarantees: for every object, the answer is `PredicateNode.evaluate(with:)`'s (without variables). The fast
/// paths apply only where the value read is of a plain type whose outcome they compute with the same
/// functions as the evaluator (`PredicateNumber.compare`, `PredicateStrings.fold`, `Date` ordering,
/// `PredicateEvaluator.outcome`); any other value, and every other shape of predicate, goes through the
/// evaluator. Never traps.
struct PreparedPredicate {
    private let test: (PredicateSubject) -> Bool
    /// The same test on an object's slots alone, when the predicate reads nothing else: constants and
    /// comparisons of keys `slotOfKey` finds in slots, under AND, OR and NOT. Nil otherwise.
    private let slotsTest: (([Any?]) -> Bool)?
    /// Whether the predicate hands objects to a block (`NSPredicate(block:)`), which may keep them: then
    /// each object tested must be one of its own.
    let callsBlocks: Bool

    /// Prepares `node`.
    /// - Parameter slotOfKey: for objects whose values sit in slots (`evaluate(reader:slots:)`), the slot of
    ///   each key whose value the object's `predicateValue(forKey:)` gives exactly as that slot holds it (nil
    ///   from a slot past the end), nil for every other key. Resolved once here, for one-component key paths.
    init(_ node: PredicateNode, slotOfKey: ((String) -> Int?)? = nil) {
        test = Self.prepare(node, slotOfKey: slotOfKey)
        slotsTest = slotOfKey.flatMap { Self.prepareSlotsOnly(node, slotOfKey: $0) }
        callsBlocks = Self.callsBlocks(node)
    }

    /// Whether `node` hands objects to a block (`NSPredicate(block:)`).
    static func callsBlocks(_ node: PredicateNode) -> Bool {
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

    /// Whether `reader` matches, reading the keys the predicate was prepared to find in slots (`slotOfKey`)
    /// from `slots`, which must hold `reader`'s values in the layout `slotOfKey` describes; `reader` must be of
    /// a type `PredicateSubject.readsDirectly(_:)` accepts.
    func evaluate(reader: PredicateKeyValueReading, slots: [Any?]) -> Bool {
        test(PredicateSubject(reader: reader, slots: slots))
    }

    /// Whether an object whose values `slots` holds, in the layout `slotOfKey` describes, matches; nil when
    /// the predicate reads more than slots (then `evaluate(reader:slots:)` tests it). Makes no subject, so it
    /// retains nothing per object.
    func evaluate(slots: [Any?]) -> Bool? {
        slotsTest?(slots)
    }

    /// `node`'s test on slots alone, or nil when some part of it reads more than a slot.
    private static func prepareSlotsOnly(_ node: PredicateNode, slotOfKey: (String) -> Int?) -> (([Any?]) -> Bool)? {
        switch node {
        case .constant(let value):
            return { _ in value }
        case .and(let items):
            var tests: [([Any?]) -> Bool] = []
            for item in items {
                guard let test = prepareSlotsOnly(item, slotOfKey: slotOfKey) else { return nil }
                tests.append(test)
            }
            return { slots in
                for test in tests where !test(slots) { return false }
                return true
            }
        case .or(let items):
            var tests: [([Any?]) -> Bool] = []
            for item in items {
                guard let test = prepareSlotsOnly(item, slotOfKey: slotOfKey) else { return nil }
                tests.append(test)
            }
            return { slots in
                for test in tests where test(slots) { return true }
                return false
            }
        case .not(let inner):
            guard let test = prepareSlotsOnly(inner, slotOfKey: slotOfKey) else { return nil }
            return { !test($0) }
        case .comparison(let comparison):
            guard let prepared = PreparedComparison(comparison), prepared.path.count == 1,
                  let slot = slotOfKey(prepared.path[0]) else { return nil }
            return prepared.slotsTest(slot)
        case .block:
            return nil
        }
    }

    private static func prepare(_ node: PredicateNode, slotOfKey: ((String) -> Int?)?) -> (PredicateSubject) -> Bool {
        switch node {
        case .constant(let value):
            return { _ in value }
        case .and(let items):
            let tests = items.map { prepare($0, slotOfKey: slotOfKey) }
            return { subject in
                for test in tests where !test(subject) { return false }
                return true
            }
        case .or(let items):
            let tests = items.map { prepare($0, slotOfKey: slotOfKey) }
            return { subject in
                for test in tests where test(subject) { return true }
                return false
            }
        case .not(let inner):
            let test = prepare(inner, slotOfKey: slotOfKey)
            return { !test($0) }
        case .comparison(let comparison):
            guard let prepared = PreparedComparison(comparison) else {
                return { subject in node.evaluate(with: subject.object) }
            }
            if prepared.path.count == 1, let slot = slotOfKey?(prepared.path[0]) {
                return prepared.slotTest(slot)
            }
            return { subject in prepared.outcome(for: subject.read(prepared.path)) }
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
    /// The reader's values by slot, when handed in (`PreparedPredicate.evaluate(reader:slots:)`).
    let slots: [Any?]?

    init(_ object: Any?) {
        self.object = object
        slots = nil
        guard let object, !PredicateValues.isPlainValueType(type(of: object)), Self.readsDirectly(type(of: object)) else {
            reader = nil
            return
        }
        reader = object as? PredicateKeyValueReading
    }

    init(reader: PredicateKeyValueReading, slots: [Any?]? = nil) {
        self.object = reader
        self.reader = reader
        self.slots = slots
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
    /// The constant in the form the fast paths compare with; nil when no fast path applies.
    let kind: ConstantKind?
    /// The outcome for a nil value (or one that unwraps to nil, such as `NSNull`), decided once.
    let nilOutcome: Bool

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
        self.path = path
        self.op = c.operator
        self.options = c.options
        self.constant = constant
        self.kind = constant.flatMap { Self.kind(of: $0, for: c.operator, options: c.options) }
        self.nilOutcome = PredicateEvaluator.test(nil, c.operator, constant, c.options)
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

    /// The test of a one-key path whose value a subject's slots keep in `slot`, with the outcome of
    /// `outcome(for:)` for what the slot holds as it holds it (nil past the end of the slots), or for the key read by
    /// name (`PredicateSubject.read(_:)`) when the subject has no slots. Against an integer constant, a slot holding
    /// exactly an `Int64` is compared where it lies (`ExistentialPayload`), without copying the `Any?` or the
    /// runtime's dynamic cast (a third of testing an atomic store's record in a profile); anything else, and a
    /// subject without slots, is read and tested as before.
    func slotTest(_ slot: Int) -> (PredicateSubject) -> Bool {
        let test = slotsTest(slot)
        return { subject in
            guard let slots = subject.slots else { return outcome(for: subject.read(path)) }
            return test(slots)
        }
    }

    /// `slotTest(_:)` on the slots alone: the outcome for what `slots` holds in `slot` (nil past the end).
    func slotsTest(_ slot: Int) -> ([Any?]) -> Bool {
        guard ExistentialPayload.layoutIsAsExpected, case .number(.integer(let constant))? = kind else {
            return { slots in outcome(for: slot >= 0 && slot < slots.count ? slots[slot] : nil) }
        }
        return { slots in
            guard slot >= 0, slot < slots.count else { return outcome(for: nil) }
            if let x = slots.withUnsafeBufferPointer({ buffer in
                buffer.baseAddress.flatMap { ExistentialPayload.value(at: UnsafeRawPointer($0 + slot), ofExactType: Int64.self) }
            }) {
                return holds(x < constant ? .orderedAscending : (x > constant ? .orderedDescending : .orderedSame))
            }
            return outcome(for: slots[slot])
        }
    }

    /// The outcome for the value read for the key path, unwrapped or not (an optional, `NSNull`).
    func outcome(for value: Any?) -> Bool {
        guard let value else { return nilOutcome }
        // The fast paths take only plain values, which unwrapping leaves as they are.
        if let kind, let outcome = fastOutcome(value, kind) { return outcome }
        return PredicateEvaluator.test(PredicateValues.unwrap(value), op, constant, options)
    }

    /// The outcome for a value of a plain type the constant's kind compares directly; nil to leave the
    /// value to the evaluator.
    private func fastOutcome(_ value: Any, _ kind: ConstantKind) -> Bool? {
        let type = Swift.type(of: value)
        switch kind {
        case .number(let number):
            if type == Int64.self, case .integer(let constant) = number {
                // The commonest case (an Integer 64 attribute against an integer), without the enum.
                let x = value as! Int64
                return holds(x < constant ? .orderedAscending : (x > constant ? .orderedDescending : .orderedSame))
            }
            guard Self.isPlainNumberType(type), let x = PredicateNumber(value) else { return nil }
            return holds(PredicateNumber.compare(x, number))
        case .string(let folded):
            guard type == String.self else { return nil }
            let x = PredicateStrings.fold(value as! String, options)
            switch op {
            case .beginsWith: return !folded.isEmpty && x.hasPrefix(folded)
            case .endsWith: return !folded.isEmpty && x.hasSuffix(folded)
            case .contains: return !folded.isEmpty && x.contains(folded)
            default: return holds(PredicateStrings.compareFolded(x, folded))
            }
        case .date(let date):
            guard type == Date.self else { return nil }
            let x = value as! Date
            return PredicateEvaluator.outcome(op, equal: x == date,
                                              order: x < date ? .orderedAscending : (x > date ? .orderedDescending : .orderedSame))
        case .members(let numbers, let folded):
            // A plain number equals only the collection's numbers, a string only its strings
            // (`PredicateValues.equal`): the other members cannot match.
            if Self.isPlainNumberType(type), let x = PredicateNumber(value) {
                return numbers.contains { PredicateNumber.compare($0, x) == .orderedSame }
            }
            if type == String.self {
                return folded.contains(PredicateStrings.fold(value as! String, options))
            }
            return nil
        }
    }

    /// Swift's number types (not `NSNumber`, not `Decimal`, whose equality the evaluator decides elsewhere).
    private static func isPlainNumberType(_ type: Any.Type) -> Bool {
        type == Int64.self || type == Int.self || type == Double.self || type == Int32.self || type == Int16.self
            || type == Bool.self || type == Float.self
    }

    /// The outcome of the operator for two values whose order is `order` (nil: unordered) and which are equal
    /// exactly when their order is the same, as for numbers and folded strings.
    private func holds(_ order: ComparisonResult?) -> Bool {
        PredicateEvaluator.outcome(op, equal: order == .orderedSame, order: order)
    }
}

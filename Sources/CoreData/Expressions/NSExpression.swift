/// An expression: a constant, a key path, the evaluated object, a variable or a function of expressions
/// (Apple's `NSExpression`), used by `NSExpressionDescription` in dictionary fetches and evaluated in memory.
///
/// Foundation on Linux declares an `NSExpression` that cannot be created (all its initializers are
/// unavailable), so this one is declared in `CoreData`. A file that imports only `CoreData` sees this class;
/// a file that imports both `Foundation` and `CoreData` can still create expressions
/// (`NSExpression(forKeyPath: "amount")` resolves to this class), but spelling the type in a declaration there
/// (`let e: NSExpression`) needs `CoreData.NSExpression`.
///
/// Guarantees: evaluating never traps; an unknown function evaluates to nil, and a fetch using one throws.
///
/// `@unchecked Sendable`: immutable once made: `form` is a `let` and `parseError` is set only by the initializer.
open class NSExpression: NSObject, @unchecked Sendable {
    /// The kinds of expression, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable {
        /// A constant (`NSExpression(forConstantValue:)`); here also a collection literal such as `{1, 2}`, which
        /// Apple reports as `aggregate`.
        case constantValue = 0
        /// The object the expression is evaluated with (`SELF`).
        case evaluatedObject = 1
        /// A variable (`$name`), replaced by its binding when evaluated.
        case variable = 2
        /// A key path (`author.name`) read on the evaluated object.
        case keyPath = 3
        /// A function of other expressions (`sum:`, `count:`, arithmetic, `FUNCTION(…)`); here also aggregate key
        /// paths (`@sum.pages`), index and cast expressions.
        case function = 4
        /// The union of two collections (Apple's; no expression of this package has this type).
        case unionSet = 5
        /// The intersection of two collections (Apple's; no expression of this package has this type).
        case intersectSet = 6
        /// One collection minus another (Apple's; no expression of this package has this type).
        case minusSet = 7
        /// A `SUBQUERY(collection, $variable, predicate)`.
        case subquery = 13
        /// A collection of expressions (Apple's; this package reports collection literals as `constantValue`).
        case aggregate = 14
        /// `ANYKEY` (Apple's; the predicate parser refuses it).
        case anyKey = 15
        /// An expression computed by a block (Apple's; no expression of this package has this type).
        case block = 19
        /// `TERNARY(predicate, a, b)` (Apple's; no expression of this package has this type).
        case conditional = 20
    }

    /// What the expression is: a predicate operand (constants, key paths, arithmetic, …) or a named function.
    enum Form {
        case operand(PredicateOperand)
        case function(String, [NSExpression])
    }

    let form: Form

    init(form: Form) {
        self.form = form
        super.init()
    }

    /// An expression for a constant value.
    public convenience init(forConstantValue obj: Any?) {
        self.init(form: .operand(.constant(PredicateConstant(argument: obj))))
    }

    /// An expression for a key path (dots separate the keys: `owner.name`).
    public convenience init(forKeyPath keyPath: String) {
        self.init(form: .operand(.keyPath(keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init))))
    }

    /// An expression for a Swift key path of properties, as Apple's `init(forKeyPath:)` taking a `KeyPath`:
    /// `\Book.author?.name` is the key path `author.name`. The managed properties of an entity class are named
    /// through its entity (`KeyPathPropertyNames`), so its model must be loaded (a coordinator made with it) first.
    /// A key path that names no property (a computed property of the class, a subscript) is a programming error,
    /// as on Apple's platforms, where it has no key-value coding string.
    public convenience init<Root, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        let entity = (Root.self as? NSManagedObject.Type).flatMap { ManagedObjectClassRegistry.shared.entity(for: $0) }
        guard let names = SwiftKeyPathNames.propertyNames(of: keyPath) ?? entity.flatMap({ KeyPathPropertyNames.names(of: keyPath, rootEntity: $0) }) else {
            preconditionFailure("NSExpression(forKeyPath:) needs a key path of properties of a loaded model's entity class; \(keyPath) is not one.")
        }
        self.init(forKeyPath: names)
    }

    /// An expression for a `$variable`, bound by `expressionValue(with:context:)`'s context.
    public convenience init(forVariable string: String) {
        self.init(form: .operand(.variable(string)))
    }

    /// An expression for one of Apple's functions by name (`sum:`, `count:`, `max:`, `average:`,
    /// `add:to:`, …); arguments are expressions (other values are taken as constants).
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(form: .function(name, parameters.map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }))
    }

    /// An expression for a collection of expressions (`{a, b}`).
    public convenience init(forAggregate subexpressions: [Any]) {
        let operands = subexpressions.compactMap { ($0 as? NSExpression)?.operand ?? .constant(PredicateConstant(argument: $0)) }
        self.init(form: .operand(.array(operands)))
    }

    /// The expression for the evaluated object itself (`SELF`); in a fetch, its object ID.
    open class func expressionForEvaluatedObject() -> NSExpression {
        NSExpression(form: .operand(.evaluatedObject))
    }

    /// Parses one expression in Apple's format (`amount * 2`, `items.@sum.price`, `%K`). A malformed format
    /// gives an expression that evaluates to nil, whose ``parseError`` says why (a fetch using it throws it).
    public convenience init(format expressionFormat: String, _ args: CVarArg...) {
        self.init(format: expressionFormat, argumentArray: args.map { $0 as Any })
    }

    /// Parses one expression in Apple's format with an array of arguments.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        do {
            self.init(form: .operand(try PredicateOperand(format: expressionFormat, arguments: arguments.map { $0 as Any? })))
        } catch {
            self.init(form: .function("<malformed>", []))
            parseError = error as NSError
        }
    }

    /// Why `init(format:)` could not parse its format (an addition to Apple's API); nil otherwise.
    public private(set) var parseError: NSError?

    // MARK: What the expression is

    /// The expression's kind.
    open var expressionType: ExpressionType {
        switch form {
        case .function: return .function
        case .operand(let operand):
            switch operand {
            case .constant, .array: return .constantValue
            case .evaluatedObject: return .evaluatedObject
            case .keyPath: return .keyPath
            case .variable: return .variable
            case .subquery: return .subquery
            case .member, .aggregate, .arithmetic, .negate, .cast, .index, .function, .fetch, .builtInFunction: return .function
            case .ternary: return .conditional
            case .anyKey: return .anyKey
            case .setOperation(.union, _, _): return .unionSet
            case .setOperation(.intersect, _, _): return .intersectSet
            case .setOperation(.minus, _, _): return .minusSet
            }
        }
    }

    /// The constant of a constant-value expression, else nil.
    open var constantValue: Any? {
        guard case .operand(.constant(let constant)) = form else { return nil }
        return constant.value
    }

    /// The key path of a key-path expression, else "".
    open var keyPath: String {
        guard case .operand(.keyPath(let path)) = form else { return "" }
        return path.joined(separator: ".")
    }

    /// The variable name of a variable expression, else "".
    open var variable: String {
        guard case .operand(.variable(let name)) = form else { return "" }
        return name
    }

    /// The function name of a function expression, else "".
    open var function: String {
        if case .operand(.function(_, let selector, _)) = form { return selector }
        if case .operand(.builtInFunction(let name, _)) = form { return name }
        guard case .function(let name, _) = form else { return "" }
        return name
    }

    /// The arguments of a function expression, else nil.
    open var arguments: [NSExpression]? {
        if case .operand(.function(_, _, let arguments)) = form { return arguments.map { NSExpression(form: .operand($0)) } }
        if case .operand(.builtInFunction(_, let arguments)) = form { return arguments.map { NSExpression(form: .operand($0)) } }
        guard case .function(_, let arguments) = form else { return nil }
        return arguments
    }

    /// The operand this expression stands for, when it is not a named function.
    var operand: PredicateOperand? {
        guard case .operand(let operand) = form else { return nil }
        return operand
    }

    /// Whether the expression, or one of its arguments, is a function this package does not evaluate.
    var unknownFunction: String? {
        guard case .function(let name, let arguments) = form else { return nil }
        guard ExpressionFunction.isKnown(name), ExpressionFunction.arity(name) == arguments.count else { return name }
        return arguments.lazy.compactMap(\.unknownFunction).first
    }

    // MARK: Evaluating

    /// The expression's value for one object (a managed object, a dictionary, any value for `SELF`), with
    /// `$variables` from `context`. Never traps; nil when a key is missing or a function cannot apply.
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var variables: [String: Any] = [:]
        for (key, value) in context ?? [:] { if let key = key as? String { variables[key] = value } }
        return value(for: object, variables: variables)
    }

    func value(for object: Any?, variables: [String: Any]) -> Any? {
        switch form {
        case .operand(let operand):
            return operand.value(for: object, variables: variables)
        case .function(let name, let arguments):
            return ExpressionFunction.apply(name, arguments.map { $0.value(for: object, variables: variables) })
        }
    }

    // MARK: Printing

    /// The expression in Apple's format: `amount`, `sum:(amount)`.
    open override var description: String {
        switch form {
        case .operand(let operand): return operand.format
        case .function(let name, let arguments): return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

extension NSExpression: PredicateFormatExpression {
    /// The expression as a predicate operand, for `%@` in a predicate format: its operand, or for a named
    /// function (`NSExpression(forFunction: "count:", arguments: …)`) the built-in function of that name over its
    /// arguments' operands, which evaluates the same (`ExpressionFunction`).
    package var predicateFormatOperand: PredicateOperand? {
        switch form {
        case .operand(let operand):
            return operand
        case .function(let name, let arguments):
            let operands = arguments.compactMap(\.predicateFormatOperand)
            guard operands.count == arguments.count else { return nil }
            return .builtInFunction(name: name, arguments: operands)
        }
    }
}

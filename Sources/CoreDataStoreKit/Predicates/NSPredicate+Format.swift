/// Lets `NSPredicate(format:…)` be declared available on Linux, where Foundation declares it unavailable.
///
/// Not for direct use. A protocol-extension initializer may assign `self`, which lets
/// `NSPredicate(format:)` return our subclass (``FormatPredicate``) that carries the syntax tree.
public protocol _PredicateFormatInitializing {}

extension NSPredicate: _PredicateFormatInitializing {}

extension _PredicateFormatInitializing where Self == NSPredicate {
    /// Parses Apple's predicate format with variadic arguments: `NSPredicate(format: "age > %d", 3)`.
    ///
    /// Never traps and never throws: a malformed format gives a predicate that evaluates to false, whose
    /// ``NSPredicate/parseError`` describes the problem; a fetch or count that uses it throws that error.
    public init(format predicateFormat: String, _ args: CVarArg...) {
        self = NSPredicate.parsing(predicateFormat, arguments: args.map { $0 as Any })
    }

    /// Parses Apple's predicate format with an array of arguments (`NSNull` for nil).
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self = NSPredicate.parsing(predicateFormat, arguments: (arguments ?? []).map { $0 as Any? })
    }

    /// Parses Apple's predicate format with its arguments in a C `va_list` (`getVaList(_:)`, `withVaList(_:_:)`),
    /// read as the format's specifiers say (see `PredicateVariadicArguments`): on Linux, text as `NSString`
    /// (Foundation cannot put a Swift `String` in a `va_list`) and numbers as Swift integers and doubles.
    /// Never traps on the format; a malformed one gives a predicate whose `parseError` says why.
    public init(format predicateFormat: String, arguments argList: CVaListPointer) {
        do {
            self = NSPredicate.parsing(predicateFormat, arguments: try PredicateVariadicArguments.arguments(for: predicateFormat, from: argList))
        } catch let error as NSError {
            self = FormatPredicate(error: error)
        }
    }

    /// A predicate made from a syntax tree, as a store or a tool builds one. An addition to Apple's API.
    public init(expression: PredicateNode) {
        self = FormatPredicate(node: expression)
    }
}

extension NSPredicate {
    fileprivate static func parsing(_ format: String, arguments: [Any?]) -> NSPredicate {
        do {
            return FormatPredicate(node: try PredicateFormatParser.parse(format, arguments: arguments))
        } catch let error as NSError {
            return FormatPredicate(error: error)
        }
    }

    /// Parses a format, throwing a positioned error instead of storing it. An addition to Apple's API.
    ///
    /// - Throws: `NSError` in `NSCocoaErrorDomain`, code 2048 (``PredicateFormatError/code``), whose message
    ///   names the offset and the token, with the offset under ``PredicateFormatError/offsetKey``.
    public static func parse(format: String, arguments: [Any?] = []) throws -> NSPredicate {
        FormatPredicate(node: try PredicateFormatParser.parse(format, arguments: arguments))
    }

    /// The syntax tree of this predicate, for a store to translate. An addition to Apple's API.
    ///
    /// Made by `NSPredicate(format:)`: the parsed tree. `NSPredicate(value:)`: a constant.
    /// `NSCompoundPredicate`: `and`/`or`/`not` of its subpredicates' trees. `NSPredicate(block:)` and other
    /// predicates: a ``PredicateNode/block(_:)`` node, to be evaluated in memory. Nil only when a format (or
    /// a subpredicate's format) did not parse; see ``parseError``.
    public var parsedExpression: PredicateNode? {
        try? validatedExpression()
    }

    /// Why this predicate's format (or a subpredicate's) did not parse, or nil. An addition to Apple's API.
    public var parseError: NSError? {
        do {
            _ = try validatedExpression()
            return nil
        } catch let error as NSError {
            return error
        }
    }

    /// The syntax tree, or the parse error thrown. What a fetch calls before running. An addition to
    /// Apple's API.
    ///
    /// - Throws: the stored parse error (`NSCocoaErrorDomain`, code 2048).
    public func validatedExpression() throws -> PredicateNode {
        if let parsed = self as? FormatPredicate {
            if let node = parsed.node { return node }
            throw parsed.storedError ?? PredicateFormatError.invalid("The predicate has no syntax tree")
        }
        if let carrying = self as? PredicateTreeCarrying { return try carrying.predicateTree() }
        if let compound = self as? NSCompoundPredicate {
            let items = try compound.subpredicates.map { try $0.validatedExpression() }
            switch compound.compoundPredicateType {
            case .and: return .and(items)
            case .or: return .or(items)
            case .not: return .not(items.first ?? .constant(false))
            }
        }
        if type(of: self) == NSPredicate.self {
            if isEqual(NSPredicate(value: true)) { return .constant(true) }
            if isEqual(NSPredicate(value: false)) { return .constant(false) }
        }
        return .block(PredicateBlockReference(self))
    }

    /// The canonical format of any predicate, including compound and value predicates that Foundation
    /// prints itself. An addition to Apple's API; for predicates made by `NSPredicate(format:)` it equals
    /// `predicateFormat`.
    public var canonicalFormat: String {
        if let node = parsedExpression { return node.format }
        return "<unparsable predicate: \(parseError?.localizedDescription ?? "")>"
    }

    /// Whether two predicates have equal syntax trees (for any predicates, including compound ones, whose
    /// `isEqual` Foundation keeps as identity). An addition to Apple's API.
    public func hasSameExpression(as other: NSPredicate) -> Bool {
        guard let a = parsedExpression, let b = other.parsedExpression else { return false }
        return a == b
    }

    /// A copy with `$variables` replaced by the given values. Variables without a value stay, and evaluate
    /// to nil (Apple raises an exception). A predicate that did not parse is returned as is.
    ///
    /// Apple's returns `Self`; this returns an `NSPredicate` (an `NSCompoundPredicate` gives a predicate
    /// with the equivalent tree).
    public func withSubstitutionVariables(_ variables: [String: Any]) -> NSPredicate {
        guard let node = parsedExpression else { return self }
        return FormatPredicate(node: node.substituting(variables))
    }
}

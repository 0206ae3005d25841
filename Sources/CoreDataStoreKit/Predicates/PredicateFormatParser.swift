/// Parses Apple's predicate format language into a ``PredicateNode``.
///
/// Precedence, lowest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparisons, `+ -`, `* /`, `**`, unary minus,
/// then `.key`, `.@operator` and `[index]` suffixes. Reserved words are case-insensitive; `#word` makes any
/// word a key. Arguments (`%@`, `%K`, `%d`, …) are consumed left to right; extra arguments are ignored.
///
/// Guarantees: never traps. Every malformed format, missing argument, or nesting beyond ``maxDepth`` is a
/// thrown `NSError` from ``PredicateFormatError`` naming the character offset and the token found there.
struct PredicateFormatParser {
    /// The deepest syntax tree (and parser recursion) accepted, so evaluation can never exhaust the stack.
    static let maxDepth = 100

    /// Words that are never keys unless written with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "ANY", "SOME", "ALL", "NONE", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH",
        "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO", "SUBQUERY", "CAST",
        "TRUEPREDICATE", "FALSEPREDICATE", "FIRST", "LAST", "SIZE", "FUNCTION", "ANYKEY", "FETCH",
    ]

    private typealias Operand = (node: PredicateOperand, depth: Int)
    private typealias Node = (node: PredicateNode, depth: Int)

    private let format: String
    private let tokens: [PredicateFormatToken]
    private var position = 0
    private let arguments: [Any?]
    private var argumentIndex = 0
    private var nesting = 0
    private var parenthesizedAttempts: [Int: ParenthesizedAttempt] = [:]

    private init(format: String, tokens: [PredicateFormatToken], arguments: [Any?]) {
        self.format = format
        self.tokens = tokens
        self.arguments = arguments
    }

    /// Parses a whole format with its arguments.
    static func parse(_ format: String, arguments: [Any?]) throws -> PredicateNode {
        let tokens = try PredicateFormatLexer.tokenize(format)
        var parser = PredicateFormatParser(format: format, tokens: tokens, arguments: arguments)
        let result = try parser.parseOr()
        if parser.current.kind != .end {
            throw parser.fail("unexpected \(parser.current.display) after a complete predicate")
        }
        return result.node
    }

    /// Parses a format that is one expression, not a predicate (what Apple's `NSExpression(format:)` reads).
    static func parseOperand(_ format: String, arguments: [Any?]) throws -> PredicateOperand {
        let tokens = try PredicateFormatLexer.tokenize(format)
        var parser = PredicateFormatParser(format: format, tokens: tokens, arguments: arguments)
        let result = try parser.parseExpression()
        if parser.current.kind != .end {
            throw parser.fail("unexpected \(parser.current.display) after a complete expression")
        }
        return result.node
    }

    // MARK: Tokens

    private var current: PredicateFormatToken {
        position < tokens.count ? tokens[position] : PredicateFormatToken(kind: .end, offset: format.count)
    }

    private mutating func advance() {
        if position < tokens.count { position += 1 }
    }

    private func isSymbol(_ s: String) -> Bool {
        if case .symbol(let t) = current.kind { return t == s }
        return false
    }

    /// The reserved word at the current token, uppercased, unless it is escaped with `#`.
    private var keyword: String? {
        if case .word(let w, escaped: false) = current.kind { return w.uppercased() }
        return nil
    }

    private func isKeyword(_ k: String) -> Bool { keyword == k }

    /// Whether the token after the current one is the symbol `s`.
    private func nextIsSymbol(_ s: String) -> Bool {
        guard position + 1 < tokens.count, case .symbol(let t) = tokens[position + 1].kind else { return false }
        return t == s
    }

    private func fail(_ problem: String, at token: PredicateFormatToken? = nil) -> NSError {
        PredicateFormatError.parse(format: format, offset: (token ?? current).offset, problem: problem)
    }

    private mutating func expectSymbol(_ s: String, _ what: String) throws {
        guard isSymbol(s) else { throw fail("expected \"\(s)\" \(what), found \(current.display)") }
        advance()
    }

    private mutating func enter() throws {
        nesting += 1
        if nesting > Self.maxDepth {
            throw fail("the predicate is nested more than \(Self.maxDepth) levels deep")
        }
    }

    private func checked<T>(_ node: T, depth: Int) throws -> (node: T, depth: Int) {
        if depth > Self.maxDepth {
            throw fail("the predicate is nested more than \(Self.maxDepth) levels deep")
        }
        return (node, depth)
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> Node {
        try enter()
        defer { nesting -= 1 }
        var items = [try parseAnd()]
        while isSymbol("||") || isKeyword("OR") {
            advance()
            items.append(try parseAnd())
        }
        if items.count == 1 { return items[0] }
        return try checked(.or(items.map { $0.node }), depth: (items.map { $0.depth }.max() ?? 0) + 1)
    }

    private mutating func parseAnd() throws -> Node {
        var items = [try parseNot()]
        while isSymbol("&&") || isKeyword("AND") {
            advance()
            items.append(try parseNot())
        }
        if items.count == 1 { return items[0] }
        return try checked(.and(items.map { $0.node }), depth: (items.map { $0.depth }.max() ?? 0) + 1)
    }

    private mutating func parseNot() throws -> Node {
        if isSymbol("!") || isKeyword("NOT") {
            advance()
            try enter()
            defer { nesting -= 1 }
            let inner = try parseNot()
            return try checked(.not(inner.node), depth: inner.depth + 1)
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> Node {
        if isKeyword("TRUEPREDICATE") {
            advance()
            return (.constant(true), 1)
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return (.constant(false), 1)
        }
        guard isSymbol("(") else { return try parseComparison() }
        // "(" opens either a parenthesized predicate or an expression such as "(a + b) > 2": try the
        // predicate first, and fall back to a comparison when that fails or a comparison operator follows.
        // Attempts are remembered by position, so nested parentheses cost linear time, not exponential.
        let saved = (position, argumentIndex)
        let attempt: ParenthesizedAttempt
        if let known = parenthesizedAttempts[position] {
            attempt = known
        } else {
            do {
                advance()
                let inner = try parseOr()
                try expectSymbol(")", "to close the parenthesis")
                attempt = .parsed(inner.node, inner.depth, position, argumentIndex)
            } catch let error as NSError {
                attempt = .failed(error)
            }
            parenthesizedAttempts[saved.0] = attempt
        }
        var firstError: NSError?
        switch attempt {
        case .parsed(let node, let depth, let end, let endArgument):
            (position, argumentIndex) = (end, endArgument)
            if comparisonOperator() == nil && !isArithmeticSymbol() && !isSymbol(".") && !isSymbol("[") {
                return (node, depth)
            }
        case .failed(let error):
            firstError = error
        }
        (position, argumentIndex) = saved
        do {
            return try parseComparison()
        } catch let error as NSError {
            guard let first = firstError else { throw error }
            throw Self.offset(of: first) >= Self.offset(of: error) ? first : error
        }
    }

    private enum ParenthesizedAttempt {
        case parsed(PredicateNode, Int, Int, Int)
        case failed(NSError)
    }

    private static func offset(of error: NSError) -> Int {
        error.userInfo[PredicateFormatError.offsetKey] as? Int ?? 0
    }

    private func isArithmeticSymbol() -> Bool {
        isSymbol("+") || isSymbol("-") || isSymbol("*") || isSymbol("/") || isSymbol("**")
    }

    private func comparisonOperator() -> PredicateComparison.Operator? {
        switch current.kind {
        case .symbol(let s):
            switch s {
            case "==": return .equalTo
            case "!=": return .notEqualTo
            case "<": return .lessThan
            case "<=": return .lessThanOrEqualTo
            case ">": return .greaterThan
            case ">=": return .greaterThanOrEqualTo
            default: return nil
            }
        case .word(let w, escaped: false):
            switch w.uppercased() {
            case "MATCHES": return .matches
            case "LIKE": return .like
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "IN": return .in
            case "CONTAINS": return .contains
            case "BETWEEN": return .between
            default: return nil
            }
        default:
            return nil
        }
    }

    private mutating func parseComparison() throws -> Node {
        var modifier = PredicateComparison.Modifier.direct
        switch keyword {
        case "ANY", "SOME": modifier = .any
        case "ALL": modifier = .all
        case "NONE": modifier = .none
        default: break
        }
        if modifier != .direct { advance() }
        let lhs = try parseExpression()
        guard let op = comparisonOperator() else {
            throw fail("expected a comparison operator, found \(current.display)")
        }
        advance()
        let options = try parseOptions()
        let rhs = try parseExpression()
        let comparison = PredicateComparison(lhs.node, op, rhs.node, modifier: modifier, options: options)
        return try checked(.comparison(comparison), depth: max(lhs.depth, rhs.depth) + 1)
    }

    private mutating func parseOptions() throws -> PredicateComparison.Options {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .word(let letters, escaped: false) = current.kind else {
            throw fail("expected comparison options such as c, d or cd, found \(current.display)")
        }
        var options: PredicateComparison.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": options.insert(.localeSensitive)
            default: throw fail("unknown comparison option \"\(letter)\" in \(current.display)")
            }
        }
        advance()
        try expectSymbol("]", "after comparison options")
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression() throws -> Operand {
        try enter()
        defer { nesting -= 1 }
        return try parseSetOperation()
    }

    /// `a UNION b`, `a INTERSECT b`, `a MINUS b`: the loosest-binding expressions, left-associative, as
    /// Apple prints them (`{1, 2} UNION {3}`).
    private mutating func parseSetOperation() throws -> Operand {
        var lhs = try parseAdditive()
        while let word = keyword, let op = PredicateOperand.SetOperator(rawValue: word) {
            advance()
            let rhs = try parseAdditive()
            lhs = try checked(.setOperation(op, lhs.node, rhs.node), depth: max(lhs.depth, rhs.depth) + 1)
        }
        return lhs
    }

    private mutating func parseAdditive() throws -> Operand {
        var lhs = try parseMultiplicative()
        while isSymbol("+") || isSymbol("-") {
            let op: PredicateOperand.ArithmeticOperator = isSymbol("+") ? .add : .subtract
            advance()
            let rhs = try parseMultiplicative()
            lhs = try checked(.arithmetic(op, lhs.node, rhs.node), depth: max(lhs.depth, rhs.depth) + 1)
        }
        return lhs
    }

    private mutating func parseMultiplicative() throws -> Operand {
        var lhs = try parsePower()
        while isSymbol("*") || isSymbol("/") {
            let op: PredicateOperand.ArithmeticOperator = isSymbol("*") ? .multiply : .divide
            advance()
            let rhs = try parsePower()
            lhs = try checked(.arithmetic(op, lhs.node, rhs.node), depth: max(lhs.depth, rhs.depth) + 1)
        }
        return lhs
    }

    private mutating func parsePower() throws -> Operand {
        var lhs = try parseUnary()
        while isSymbol("**") {
            advance()
            let rhs = try parseUnary()
            lhs = try checked(.arithmetic(.power, lhs.node, rhs.node), depth: max(lhs.depth, rhs.depth) + 1)
        }
        return lhs
    }

    private mutating func parseUnary() throws -> Operand {
        guard isSymbol("-") else { return try parsePostfix() }
        advance()
        if case .number(let text) = current.kind {
            let token = current
            advance()
            return try parsePostfix(startingWith: (.constant(try numberConstant(text, negative: true, token: token)), 1))
        }
        try enter()
        defer { nesting -= 1 }
        let inner = try parseUnary()
        if case .constant(let c) = inner.node, let n = c.value.flatMap(PredicateNumber.init) {
            return (.constant(PredicateConstant(argument: n.negated.anyValue)), inner.depth)
        }
        return try checked(.negate(inner.node), depth: inner.depth + 1)
    }

    private mutating func parsePostfix(startingWith start: Operand? = nil) throws -> Operand {
        var base = try start ?? parsePrimary()
        while true {
            if isSymbol(".") {
                advance()
                switch current.kind {
                case .word(let w, _):
                    advance()
                    base = try checked(Self.appendingKey(w, to: base.node), depth: base.depth + 1)
                case .collectionOperator(let name):
                    let token = current
                    advance()
                    base = try checked(.aggregate(try aggregate(name, token), base.node), depth: base.depth + 1)
                case .argument("K"):
                    // `$FETCH_SOURCE.%K`, `%K.%K`: the argument's key path continues the one before the dot.
                    let token = current
                    advance()
                    let path = try keyPathArgument(token)
                    base = try appendingKeyPath(path, to: base, token: token)
                default:
                    throw fail("expected a key or a collection operator after \".\", found \(current.display)")
                }
            } else if isSymbol("[") {
                advance()
                let index: PredicateOperand.CollectionIndex
                switch current.kind {
                case .word(let w, escaped: false) where ["FIRST", "LAST", "SIZE"].contains(w.uppercased()):
                    index = w.uppercased() == "FIRST" ? .first : (w.uppercased() == "LAST" ? .last : .size)
                case .number(let text):
                    guard case .integer(let v) = try numberConstant(text, negative: false, token: current),
                          let i = Int(exactly: v) else {
                        throw fail("expected an integer index, found \(current.display)")
                    }
                    index = .position(i)
                default:
                    throw fail("expected FIRST, LAST, SIZE or an index, found \(current.display)")
                }
                advance()
                try expectSymbol("]", "to close the index")
                base = try checked(.index(base.node, index), depth: base.depth + 1)
            } else {
                return base
            }
        }
    }

    /// Whether `name` can follow `$` as a variable: a letter or `_`, then letters, digits and `_`.
    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.first, first == "_" || first.isLetter else { return false }
        return name.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }

    /// Adds one key to a key path: `SELF` + `name` is `name`, `items.@sum` + `price` is `items.@sum.price`.
    static func appendingKey(_ key: String, to base: PredicateOperand) -> PredicateOperand {
        switch base {
        case .evaluatedObject: return .keyPath([key])
        case .keyPath(let path): return .keyPath(path + [key])
        case .member(let inner, let path): return .member(inner, path + [key])
        case .aggregate(let op, let inner) where op != .count: return .aggregate(op, appendingKey(key, to: inner))
        default: return .member(base, [key])
        }
    }

    private func aggregate(_ name: String, _ token: PredicateFormatToken) throws -> PredicateOperand.Aggregate {
        guard let op = PredicateOperand.Aggregate(rawValue: "@" + name.lowercased()) else {
            throw fail("unsupported collection operator \"@\(name)\"", at: token)
        }
        return op
    }

    private mutating func parsePrimary() throws -> Operand {
        let token = current
        switch token.kind {
        case .number(let text):
            advance()
            return (.constant(try numberConstant(text, negative: false, token: token)), 1)
        case .string(let s):
            advance()
            return (.constant(.string(s)), 1)
        case .variable(let name):
            advance()
            return (.variable(name), 1)
        case .argument(let conversion):
            advance()
            return try argumentOperand(conversion, token: token)
        case .word(let w, escaped: true):
            advance()
            return (.keyPath([w]), 1)
        case .word(let w, escaped: false):
            switch w.uppercased() {
            case "TRUE", "YES":
                advance()
                return (.constant(.bool(true)), 1)
            case "FALSE", "NO":
                advance()
                return (.constant(.bool(false)), 1)
            case "NULL", "NIL":
                advance()
                return (.constant(.null), 1)
            case "SELF":
                advance()
                return (.evaluatedObject, 1)
            case "SUBQUERY":
                advance()
                return try parseSubquery()
            case "CAST":
                advance()
                return try parseCast()
            case "FUNCTION":
                advance()
                return try parseFunction()
            case "FETCH":
                advance()
                return try parseFetch()
            case "FIRST", "LAST", "SIZE":
                advance()
                return (.keyPath([w]), 1)
            case "ANYKEY":
                advance()
                return (.anyKey, 1)
            case "TERNARY" where nextIsSymbol("("):
                advance()
                return try parseTernary()
            case let upper where Self.reservedWords.contains(upper):
                throw fail("expected an expression, found reserved word \(token.display) (write #\(w) for a key)")
            default:
                advance()
                // `now()`: a built-in function without arguments, by its name.
                if isSymbol("(") { return try parseBuiltInFunction(name: w, token: token) }
                return (.keyPath([w]), 1)
            }
        case .functionName(let name):
            // `count:(items)`, `modulus:by:(a, b)`: a built-in function, by its selector.
            advance()
            guard isSymbol("(") else { throw fail("expected \"(\" after the function name \(token.display)") }
            return try parseBuiltInFunction(name: name, token: token)
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expectSymbol(")", "to close the parenthesis")
            return inner
        case .symbol("{"):
            advance()
            return try parseArray()
        default:
            throw fail("expected an expression, found \(token.display)")
        }
    }

    private mutating func parseArray() throws -> Operand {
        var items: [Operand] = []
        if !isSymbol("}") {
            items.append(try parseExpression())
            while isSymbol(",") {
                advance()
                items.append(try parseExpression())
            }
        }
        try expectSymbol("}", "to close the array")
        var constants: [PredicateConstant] = []
        for item in items {
            guard case .constant(let c) = item.node else {
                return try checked(.array(items.map { $0.node }), depth: (items.map { $0.depth }.max() ?? 0) + 1)
            }
            constants.append(c)
        }
        return (.constant(.collection(constants)), 1)
    }

    private mutating func parseSubquery() throws -> Operand {
        try expectSymbol("(", "after SUBQUERY")
        let collection = try parseExpression()
        try expectSymbol(",", "after the SUBQUERY collection")
        guard case .variable(let name) = current.kind else {
            throw fail("expected a $variable as the second SUBQUERY argument, found \(current.display)")
        }
        advance()
        try expectSymbol(",", "after the SUBQUERY variable")
        let predicate = try parseOr()
        try expectSymbol(")", "to close SUBQUERY")
        let node = PredicateOperand.subquery(collection: collection.node, variable: name, predicate: predicate.node)
        return try checked(node, depth: max(collection.depth, predicate.depth) + 1)
    }

    private mutating func parseCast() throws -> Operand {
        try expectSymbol("(", "after CAST")
        let value = try parseExpression()
        try expectSymbol(",", "after the CAST value")
        let typeToken = current
        let typeOperand = try parseExpression()
        guard case .constant(.string(let type)) = typeOperand.node else {
            throw fail("expected a type name string as the second CAST argument", at: typeToken)
        }
        guard PredicateCast.isSupported(type) else {
            throw fail("unsupported CAST type \"\(type)\"", at: typeToken)
        }
        try expectSymbol(")", "to close CAST")
        if case .constant(let c) = value.node, let folded = PredicateCast.cast(c.value, to: type) {
            return (.constant(PredicateConstant(argument: folded)), 1)
        }
        return try checked(.cast(value.node, type: type), depth: value.depth + 1)
    }

    /// The arguments of a built-in function called by name, from its opening parenthesis: `(a, b)`, `()`.
    /// The number of arguments must be the number of colons in the name (`now` takes none).
    private mutating func parseBuiltInFunction(name: String, token: PredicateFormatToken) throws -> Operand {
        try expectSymbol("(", "after the function name")
        var arguments: [Operand] = []
        if !isSymbol(")") {
            arguments.append(try parseExpression())
            while isSymbol(",") {
                advance()
                arguments.append(try parseExpression())
            }
        }
        try expectSymbol(")", "to close the arguments of \(name)")
        let expected = name.filter { $0 == ":" }.count
        guard arguments.count == expected else {
            throw fail("the function \(name) takes \(expected) argument\(expected == 1 ? "" : "s"), not \(arguments.count)", at: token)
        }
        let depth = arguments.map(\.depth).max() ?? 0
        return try checked(.builtInFunction(name: name, arguments: arguments.map(\.node)), depth: depth + 1)
    }

    /// `TERNARY(predicate, whenTrue, whenFalse)`, from its opening parenthesis.
    private mutating func parseTernary() throws -> Operand {
        try expectSymbol("(", "after TERNARY")
        let predicate = try parseOr()
        try expectSymbol(",", "after the TERNARY predicate")
        let whenTrue = try parseExpression()
        try expectSymbol(",", "after the TERNARY true expression")
        let whenFalse = try parseExpression()
        try expectSymbol(")", "to close TERNARY")
        let node = PredicateOperand.ternary(predicate.node, whenTrue.node, whenFalse.node)
        return try checked(node, depth: max(predicate.depth, whenTrue.depth, whenFalse.depth) + 1)
    }

    /// `FUNCTION(target, "selector:", arguments…)`.
    private mutating func parseFunction() throws -> Operand {
        try expectSymbol("(", "after FUNCTION")
        let target = try parseExpression()
        try expectSymbol(",", "after the FUNCTION target")
        let selectorToken = current
        let selectorOperand = try parseExpression()
        guard case .constant(.string(let selector)) = selectorOperand.node, !selector.isEmpty else {
            throw fail("expected a selector name string as the second FUNCTION argument", at: selectorToken)
        }
        var arguments: [Operand] = []
        while isSymbol(",") {
            advance()
            arguments.append(try parseExpression())
        }
        try expectSymbol(")", "to close FUNCTION")
        let depth = ([target.depth] + arguments.map(\.depth)).max() ?? 0
        return try checked(.function(target: target.node, selector: selector, arguments: arguments.map(\.node)), depth: depth + 1)
    }

    /// `FETCH(request, context, countOnly)`.
    private mutating func parseFetch() throws -> Operand {
        try expectSymbol("(", "after FETCH")
        let request = try parseExpression()
        try expectSymbol(",", "after the FETCH request")
        let context = try parseExpression()
        try expectSymbol(",", "after the FETCH context")
        let flagToken = current
        let flag = try parseExpression()
        let countOnly: Bool
        switch flag.node {
        case .constant(.bool(let value)): countOnly = value
        case .constant(.integer(let value)): countOnly = value != 0
        default: throw fail("expected YES or NO as the third FETCH argument", at: flagToken)
        }
        try expectSymbol(")", "to close FETCH")
        return try checked(.fetch(request: request.node, context: context.node, countOnly: countOnly), depth: max(request.depth, context.depth) + 1)
    }

    // MARK: Literals and arguments

    private func numberConstant(_ text: String, negative: Bool, token: PredicateFormatToken) throws -> PredicateConstant {
        let sign = negative ? "-" : ""
        let lower = text.lowercased()
        if lower.hasPrefix("0x") || lower.hasPrefix("0o") || lower.hasPrefix("0b") {
            let radix = lower.hasPrefix("0x") ? 16 : (lower.hasPrefix("0o") ? 8 : 2)
            let digits = String(lower.dropFirst(2)).replacingOccurrences(of: "_", with: "")
            guard let magnitude = UInt64(digits, radix: radix) else {
                throw fail("malformed or out-of-range number \(text)", at: token)
            }
            if !negative {
                return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .decimal(Decimal(magnitude))
            }
            if magnitude <= UInt64(Int64.max) { return .integer(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
            return .decimal(-Decimal(magnitude))
        }
        if lower.contains(".") || lower.contains("e") {
            guard let d = Double(sign + text) else { throw fail("malformed number \(text)", at: token) }
            return .double(d)
        }
        if let i = Int64(sign + text) { return .integer(i) }
        guard let d = Decimal(string: sign + text) else { throw fail("malformed number \(text)", at: token) }
        return .decimal(d)
    }

    /// The next argument, which a `%K` names: a non-empty key path string.
    private mutating func keyPathArgument(_ token: PredicateFormatToken) throws -> String {
        try keyPathString(try nextArgument(token), token)
    }

    private func keyPathString(_ argument: Any?, _ token: PredicateFormatToken) throws -> String {
        guard let path = PredicateValues.string(PredicateValues.unwrap(argument)), !path.isEmpty else {
            throw fail("the argument for %K must be a non-empty key path string", at: token)
        }
        return path
    }

    /// `base` followed by the components of a `%K` argument's key path (keys and `@` collection operators).
    private func appendingKeyPath(_ path: String, to base: Operand, token: PredicateFormatToken) throws -> Operand {
        var operand = base.node
        var depth = base.depth
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            if component.isEmpty {
                throw fail("the key path \"\(path)\" given for %K has an empty component", at: token)
            }
            if component.hasPrefix("@") {
                operand = .aggregate(try aggregate(String(component.dropFirst()), token), operand)
                depth += 1
            } else {
                operand = Self.appendingKey(String(component), to: operand)
            }
        }
        return try checked(operand, depth: depth)
    }

    private mutating func nextArgument(_ token: PredicateFormatToken) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw fail("no argument for \(token.display): the format needs more than the \(arguments.count) given", at: token)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private mutating func argumentOperand(_ conversion: Character, token: PredicateFormatToken) throws -> Operand {
        let argument = try nextArgument(token)
        switch conversion {
        case "@":
            // An expression given for `%@` stands for itself, as Apple substitutes an `NSExpression` argument.
            if let expression = argument as? PredicateFormatExpression, let operand = expression.predicateFormatOperand {
                return (operand, 1)
            }
            return (.constant(PredicateConstant(argument: argument)), 1)
        case "c":
            return (.constant(PredicateConstant(argument: argument)), 1)
        case "K":
            return try appendingKeyPath(try keyPathString(argument, token), to: (.evaluatedObject, 1), token: token)
        case "f", "F", "e", "E", "g", "G":
            guard let n = PredicateValues.unwrap(argument).flatMap(PredicateNumber.init) else {
                throw fail("the argument for \(token.display) is not a number", at: token)
            }
            return (.constant(.double(n.doubleValue)), 1)
        default:
            guard let n = PredicateValues.unwrap(argument).flatMap(PredicateNumber.init) else {
                throw fail("the argument for \(token.display) is not a number", at: token)
            }
            if let i = n.integerValue { return (.constant(.integer(i)), 1) }
            return (.constant(PredicateConstant(argument: n.anyValue)), 1)
        }
    }
}

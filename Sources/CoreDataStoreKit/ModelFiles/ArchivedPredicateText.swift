/// Renders archived `NSPredicate`, `NSExpression` and `NSSortDescriptor` objects of a compiled model as
/// predicate format text (what `NSPredicate(format:)` parses back), without instantiating them.
///
/// Covers every predicate and expression class Apple archives (the keys are listed in Docs/ModelFiles.md):
/// comparison (every operator, modifier and option; a custom selector as `FUNCTION(…) == YES`), compound,
/// true/false predicates; self, constant, variable, key path, function (arithmetic ones infix: `price * 2`;
/// indexes `items[0]`, `items[FIRST]`; `CAST(…)`; built-ins by name, `count:(items)`), aggregate,
/// subquery, ternary, `ANYKEY`, set (`UNION`, `INTERSECT`, `MINUS`) and fetch request expressions. Block
/// predicates and expressions (which Apple cannot archive), unknown classes and malformed objects throw
/// `KeyedArchive.ArchiveError` naming the class.
struct ArchivedPredicateText {
    let archive: KeyedArchive
    /// Whether a built-in function prints without its last colon (`count(pages)`), the spelling of a derived
    /// attribute's expression (`DerivationExpressionText`); otherwise Apple's (`count:(pages)`), which
    /// the predicate parser reads.
    var derivationSpelling = false

    /// The format text of the predicate a field refers to; nil for `$null`.
    func predicate(_ value: Any?, depth: Int = 0) throws -> String? {
        guard archive.resolve(value) != nil else { return nil }
        guard depth < 64 else { throw KeyedArchive.ArchiveError("a predicate nests deeper than 64 levels (or contains itself)") }
        guard let object = archive.object(value) else { throw KeyedArchive.ArchiveError("a predicate is not an archived object") }
        switch object.className {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let parts = try (archive.elements(object.fields["NSSubpredicates"]) ?? []).map {
                "(" + (try predicate($0, depth: depth + 1) ?? "TRUEPREDICATE") + ")"
            }
            switch archive.integer(object.fields["NSCompoundPredicateType"]) ?? -1 {
            case 0: return "NOT " + (parts.first ?? "TRUEPREDICATE")
            case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            default: throw KeyedArchive.ArchiveError("unknown compound predicate type")
            }
        case "NSComparisonPredicate":
            guard let op = archive.object(object.fields["NSPredicateOperator"]) else {
                throw KeyedArchive.ArchiveError("a comparison predicate has no operator")
            }
            let left = try expression(object.fields["NSLeftExpression"], depth: depth + 1)
            let right = try expression(object.fields["NSRightExpression"], depth: depth + 1)
            let modifier: String
            switch archive.integer(op.fields["NSModifier"]) ?? 0 {
            case 1: modifier = "ALL "
            case 2: modifier = "ANY "
            default: modifier = ""
            }
            if op.className == "NSCustomPredicateOperator" || archive.integer(op.fields["NSOperatorType"]) == 11 {
                return try customSelectorComparison(op, left: left, right: right, direct: modifier.isEmpty)
            }
            var symbol: String
            switch archive.integer(op.fields["NSOperatorType"]) ?? -1 {
            case 0: symbol = "<"
            case 1: symbol = "<="
            case 2: symbol = ">"
            case 3: symbol = ">="
            case 4: symbol = "=="
            case 5: symbol = "!="
            case 6: symbol = "MATCHES"
            case 7: symbol = "LIKE"
            case 8: symbol = "BEGINSWITH"
            case 9: symbol = "ENDSWITH"
            case 10: symbol = "IN"
            case 99: symbol = "CONTAINS"
            case 100: symbol = "BETWEEN"
            default:
                // 1000 (`NSTokenMatchingPredicateOperator`) and 2000 (`NSBoundedByPredicateOperator`) are
                // Spotlight's and have no format the parser reads.
                let type = archive.integer(op.fields["NSOperatorType"]).map(String.init) ?? "none"
                throw KeyedArchive.ArchiveError("unsupported predicate operator \(op.className) (type \(type))")
            }
            if archive.bool(op.fields["NSNegate"]) == true, symbol == "==" { symbol = "!=" }
            let options = archive.integer(op.fields["NSOptions"]) ?? archive.integer(op.fields["NSFlags"]) ?? 0
            var flags = ""
            if options & 1 != 0 { flags += "c" }
            if options & 2 != 0 { flags += "d" }
            if options & 4 != 0 { flags += "n" }
            if options & 8 != 0 { flags += "l" }
            if options & 0x10 != 0 {
                throw KeyedArchive.ArchiveError("the option [w] (word matching) of \(op.className) is not supported")
            }
            if !flags.isEmpty { symbol += "[\(flags)]" }
            return "\(modifier)\(left) \(symbol) \(right)"
        case "NSBlockPredicate":
            throw KeyedArchive.ArchiveError("an NSBlockPredicate (a block, which has no archived form)")
        default:
            throw KeyedArchive.ArchiveError("unsupported predicate class \(object.className)")
        }
    }

    /// A comparison with a custom selector (`NSCustomPredicateOperator`, key `NSSelectorName`), which the
    /// format language cannot spell (Apple prints `left selector: right`, which its parser does not read):
    /// written `FUNCTION(left, "selector:", right) == YES`, the same method called on the same values.
    /// - Throws: for an `ANY`/`ALL` modifier (which calls the method on each element, and has no such form)
    ///   or a missing selector.
    private func customSelectorComparison(_ op: KeyedArchive.Object, left: String, right: String, direct: Bool) throws -> String {
        guard let selector = archive.string(op.fields["NSSelectorName"]), !selector.isEmpty else {
            throw KeyedArchive.ArchiveError("an NSCustomPredicateOperator has no selector name")
        }
        guard direct else {
            throw KeyedArchive.ArchiveError("an NSCustomPredicateOperator (\(selector)) with an ANY or ALL modifier is not supported")
        }
        return "FUNCTION(\(left), \(ModelValueText.quoted(selector)), \(right)) == YES"
    }

    /// The format text of an archived expression.
    /// - Throws: `KeyedArchive.ArchiveError` naming the class for an expression with no format text (a block,
    ///   an unknown class), a missing or wrong-typed key, or nesting deeper than 64 levels (which a cyclic
    ///   archive reaches).
    func expression(_ value: Any?, depth: Int = 0) throws -> String {
        guard depth < 64 else { throw KeyedArchive.ArchiveError("an expression nests deeper than 64 levels (or contains itself)") }
        guard let object = archive.object(value) else { throw KeyedArchive.ArchiveError("an expression is not an archived object") }
        switch object.className {
        case "NSSelfExpression": return "SELF"
        case "NSVariableExpression":
            guard let name = archive.string(object.fields["NSVariable"]), !name.isEmpty else {
                throw KeyedArchive.ArchiveError("an NSVariableExpression has no variable name")
            }
            return "$" + name
        case "NSKeyPathSpecifierExpression":
            // A key that is a reserved word of the format language is escaped (`#in`) so the text parses.
            let keys = (archive.string(object.fields["NSKeyPath"]) ?? "").split(separator: ".", omittingEmptySubsequences: false)
            return keys.map { $0.hasPrefix("@") ? String($0) : PredicateOperand.formatKey(String($0)) }.joined(separator: ".")
        case "NSConstantValueExpression":
            return constant(object.fields["NSConstantValue"])
        case "NSKeyPathExpression":
            return try keyPath(object, depth: depth)
        case "NSFunctionExpression" where isKeyPathFunction(object):
            // `valueForKey:`/`valueForKeyPath:` of a key path specifier is a key path, whichever class holds it.
            return try keyPath(object, depth: depth)
        case "NSFunctionExpression":
            return try function(object, depth: depth)
        case "NSFetchRequestExpression":
            let request = try expression(object.fields["NSFRExpression"], depth: depth + 1)
            let context = try expression(object.fields["NSMOCExpression"], depth: depth + 1)
            let countOnly = archive.bool(object.fields["NSCountOnlyFlag"]) ?? false
            return "FETCH(\(request), \(context), \(countOnly ? "YES" : "NO"))"
        case "NSAggregateExpression":
            let items = try (archive.elements(object.fields["NSCollection"]) ?? []).map { try expression($0, depth: depth + 1) }
            return "{" + items.joined(separator: ", ") + "}"
        case "NSSubqueryExpression":
            return try subquery(object, depth: depth)
        case "NSTernaryExpression":
            guard let condition = try predicate(object.fields["NSPredicate"], depth: depth + 1) else {
                throw KeyedArchive.ArchiveError("an NSTernaryExpression has no predicate")
            }
            let whenTrue = try expression(object.fields["NSTrueExpression"], depth: depth + 1)
            let whenFalse = try expression(object.fields["NSFalseExpression"], depth: depth + 1)
            return "TERNARY(\(condition), \(whenTrue), \(whenFalse))"
        case "NSAnyKeyExpression":
            return "ANYKEY"
        case "NSSetExpression":
            return try setExpression(object, depth: depth)
        case "NSSymbolicExpression":
            // Apple's FIRST, LAST and SIZE, which only an index (`items[FIRST]`) uses.
            guard let token = archive.string(object.fields["NSToken"]), ["FIRST", "LAST", "SIZE"].contains(token) else {
                throw KeyedArchive.ArchiveError("an NSSymbolicExpression has no FIRST, LAST or SIZE token")
            }
            return token
        case "NSBlockExpression":
            throw KeyedArchive.ArchiveError("an NSBlockExpression (a block, which has no archived form)")
        default:
            throw KeyedArchive.ArchiveError("unsupported expression class \(object.className)")
        }
    }

    /// A key path expression: its `NSKeyPathSpecifierExpression` arguments joined, after its operand unless
    /// that is `SELF`.
    private func keyPath(_ object: KeyedArchive.Object, depth: Int) throws -> String {
        let path = try (archive.elements(object.fields["NSArguments"]) ?? []).map { try expression($0, depth: depth + 1) }.joined(separator: ".")
        let operand = try expression(object.fields["NSOperand"], depth: depth + 1)
        if operand == "SELF" { return path }
        // An infix operand keeps its parentheses: `({1} UNION tags).@count`.
        let base = isInfix(object.fields["NSOperand"]) || operand.hasPrefix("-") ? "(" + operand + ")" : operand
        return base + "." + path
    }

    /// Whether a function expression is `valueForKey:` or `valueForKeyPath:` of one key path specifier.
    private func isKeyPathFunction(_ object: KeyedArchive.Object) -> Bool {
        guard let selector = archive.string(object.fields["NSSelectorName"]), selector == "valueForKey:" || selector == "valueForKeyPath:",
              let arguments = archive.elements(object.fields["NSArguments"]), arguments.count == 1 else { return false }
        return archive.object(arguments[0])?.className == "NSKeyPathSpecifierExpression"
    }

    /// `SUBQUERY(collection, $variable, predicate)`, from Apple's keys `NSExpression` (the collection),
    /// `NSVariable` (the variable's name; an `NSVariableExpression` is read too) and `NSSubpredicate`.
    private func subquery(_ object: KeyedArchive.Object, depth: Int) throws -> String {
        let collection = try expression(object.fields["NSExpression"], depth: depth + 1)
        let variableField = object.fields["NSVariable"]
        let name = archive.string(variableField)
            ?? archive.object(variableField).flatMap { $0.className == "NSVariableExpression" ? archive.string($0.fields["NSVariable"]) : nil }
        guard let name, !name.isEmpty, PredicateFormatParser.isVariableName(name) else {
            throw KeyedArchive.ArchiveError("an NSSubqueryExpression has no variable name")
        }
        guard let condition = try predicate(object.fields["NSSubpredicate"], depth: depth + 1) else {
            throw KeyedArchive.ArchiveError("an NSSubqueryExpression has no predicate")
        }
        return "SUBQUERY(\(collection), $\(name), \(condition))"
    }

    /// `left UNION right`, `INTERSECT`, `MINUS`: Apple's `NSSetExpression`, whose `NSExpressionType` (5, 6, 7)
    /// says which, with `NSLeftExpression` and `NSRightExpression`.
    private func setExpression(_ object: KeyedArchive.Object, depth: Int) throws -> String {
        let op: String
        switch archive.integer(object.fields["NSExpressionType"]) ?? -1 {
        case 5: op = "UNION"
        case 6: op = "INTERSECT"
        case 7: op = "MINUS"
        default: throw KeyedArchive.ArchiveError("an NSSetExpression has no set expression type (5, 6 or 7)")
        }
        let left = try expression(object.fields["NSLeftExpression"], depth: depth + 1)
        let right = try expression(object.fields["NSRightExpression"], depth: depth + 1)
        // Left-associative, as the parser reads them: a set expression on the right keeps its parentheses.
        let rightText = archive.object(object.fields["NSRightExpression"])?.className == "NSSetExpression" ? "(" + right + ")" : right
        return "\(left) \(op) \(rightText)"
    }

    /// A constant as format text: quoted strings, numbers, `CAST(…, "NSDate")`, `{…}` collections, `nil`.
    func constant(_ value: Any?) -> String {
        guard let plain = archive.plainValue(value) else { return "nil" }
        return Self.literal(plain)
    }

    static func literal(_ value: Any) -> String {
        // A property list's integers decode as NSNumber, which also casts to Bool: only a real Boolean (Swift
        // `Bool`, or an NSNumber of type "c") is YES/NO, so that `SELF >= 0` stays `0`.
        if type(of: value) == Bool.self, let flag = value as? Bool { return flag ? "YES" : "NO" }
        if let number = value as? NSNumber, String(cString: number.objCType) == "c" { return number.boolValue ? "YES" : "NO" }
        // Decimals, UUIDs, URLs and data keep their kind as the format language's casts (as
        // `PredicateConstant.format` prints them); a floating-point number keeps its fraction (`2.0`).
        // (A boxed `Decimal` is told by its exact type: numbers and decimals may cast to each other.)
        if type(of: value) == Decimal.self, let decimal = value as? Decimal { return PredicateConstant.decimal(decimal).format }
        switch value {
        case let text as String: return ModelValueText.quoted(text)
        case let date as Date: return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let uuid as UUID: return PredicateConstant.uuid(uuid).format
        case let url as URL: return PredicateConstant.url(url).format
        case let data as Data: return PredicateConstant.data(data).format
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            return type == "d" || type == "f" ? PredicateConstant.double(number.doubleValue).format : number.stringValue
        case let list as [Any]: return "{" + list.map(literal).joined(separator: ", ") + "}"
        default: return ModelValueText.quoted("\(value)")
        }
    }

}

/// Renders archived `NSPredicate`, `NSExpression` and `NSSortDescriptor` objects of a compiled model as
/// predicate format text (what `NSPredicate(format:)` parses back), without instantiating them.
///
/// Covers comparison (every operator, modifier and option), compound, true/false predicates, and
/// self, constant, variable, key path, function (arithmetic ones infix: `price * 2`) and aggregate expressions. Anything else throws
/// `KeyedArchive.ArchiveError` naming the class.
struct ArchivedPredicateText {
    let archive: KeyedArchive

    /// The format text of the predicate a field refers to; nil for `$null`.
    func predicate(_ value: Any?, depth: Int = 0) throws -> String? {
        guard archive.resolve(value) != nil else { return nil }
        guard depth < 64, let object = archive.object(value) else { throw KeyedArchive.ArchiveError("a predicate is not an archived object") }
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
            default: throw KeyedArchive.ArchiveError("unsupported predicate operator in \(op.className)")
            }
            if archive.bool(op.fields["NSNegate"]) == true, symbol == "==" { symbol = "!=" }
            let options = archive.integer(op.fields["NSOptions"]) ?? archive.integer(op.fields["NSFlags"]) ?? 0
            var flags = ""
            if options & 1 != 0 { flags += "c" }
            if options & 2 != 0 { flags += "d" }
            if options & 4 != 0 { flags += "n" }
            if options & 8 != 0 { flags += "l" }
            if !flags.isEmpty { symbol += "[\(flags)]" }
            let modifier: String
            switch archive.integer(op.fields["NSModifier"]) ?? 0 {
            case 1: modifier = "ALL "
            case 2: modifier = "ANY "
            default: modifier = ""
            }
            return "\(modifier)\(left) \(symbol) \(right)"
        default:
            throw KeyedArchive.ArchiveError("unsupported predicate class \(object.className)")
        }
    }

    /// The format text of an archived expression.
    func expression(_ value: Any?, depth: Int = 0) throws -> String {
        guard depth < 64, let object = archive.object(value) else { throw KeyedArchive.ArchiveError("an expression is not an archived object") }
        switch object.className {
        case "NSSelfExpression": return "SELF"
        case "NSVariableExpression": return "$" + (archive.string(object.fields["NSVariable"]) ?? "")
        case "NSKeyPathSpecifierExpression":
            // A key that is a reserved word of the format language is escaped (`#in`) so the text parses.
            let keys = (archive.string(object.fields["NSKeyPath"]) ?? "").split(separator: ".", omittingEmptySubsequences: false)
            return keys.map { $0.hasPrefix("@") ? String($0) : PredicateOperand.formatKey(String($0)) }.joined(separator: ".")
        case "NSConstantValueExpression":
            return constant(object.fields["NSConstantValue"])
        case "NSKeyPathExpression":
            let path = try (archive.elements(object.fields["NSArguments"]) ?? []).map { try expression($0, depth: depth + 1) }.joined(separator: ".")
            let operand = try expression(object.fields["NSOperand"], depth: depth + 1)
            return operand == "SELF" ? path : operand + "." + path
        case "NSFunctionExpression":
            let selector = archive.string(object.fields["NSSelectorName"]) ?? ""
            let arguments = try (archive.elements(object.fields["NSArguments"]) ?? []).map { try expression($0, depth: depth + 1) }
            if let symbol = Self.arithmeticSymbols[selector], arguments.count == 2, isBuiltIn(object) {
                // Infix, as Apple prints it; an arithmetic argument is parenthesized so the text keeps the tree.
                let elements = archive.elements(object.fields["NSArguments"]) ?? []
                let operands = zip(elements, arguments).map { element, text in isArithmetic(element) ? "(" + text + ")" : text }
                return operands.joined(separator: " \(symbol) ")
            }
            // A method called on a target (`$manager`, `$entityPolicy`, a value) is `FUNCTION(target, "sel:", …)`;
            // one of the built-in functions has no meaningful target.
            if let target = try functionTarget(object.fields["NSOperand"], selector: selector, depth: depth) {
                return "FUNCTION(" + ([target, ModelValueText.quoted(selector)] + arguments).joined(separator: ", ") + ")"
            }
            let name = selector.hasSuffix(":") ? String(selector.dropLast()) : selector
            return "\(name)(\(arguments.joined(separator: ", ")))"
        case "NSFetchRequestExpression":
            let request = try expression(object.fields["NSFRExpression"], depth: depth + 1)
            let context = try expression(object.fields["NSMOCExpression"], depth: depth + 1)
            let countOnly = archive.bool(object.fields["NSCountOnlyFlag"]) ?? false
            return "FETCH(\(request), \(context), \(countOnly ? "YES" : "NO"))"
        case "NSAggregateExpression":
            let items = try (archive.elements(object.fields["NSCollection"]) ?? []).map { try expression($0, depth: depth + 1) }
            return "{" + items.joined(separator: ", ") + "}"
        default:
            throw KeyedArchive.ArchiveError("unsupported expression class \(object.className)")
        }
    }

    /// The format text of a function expression's target, or nil for a built-in function (one
    /// `ExpressionFunction` knows, whose target is absent or a constant).
    private func functionTarget(_ value: Any?, selector: String, depth: Int) throws -> String? {
        guard let operand = archive.object(value) else { return nil }
        if archive.string(operand.fields["NSConstantValueClassName"]) == "_NSPredicateUtilities" { return nil }
        if ExpressionFunction.isKnown(selector), operand.className == "NSConstantValueExpression" { return nil }
        return try expression(value, depth: depth + 1)
    }

    /// Apple's arithmetic functions and the format language's operators for them.
    static let arithmeticSymbols = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**"]

    /// Whether a function expression calls one of Apple's built-in functions: its operand is the constant
    /// naming `_NSPredicateUtilities` (as Apple archives them), or absent.
    private func isBuiltIn(_ function: KeyedArchive.Object) -> Bool {
        guard let operand = archive.object(function.fields["NSOperand"]) else { return true }
        return operand.className == "NSConstantValueExpression"
            && (archive.string(operand.fields["NSConstantValueClassName"]) == "_NSPredicateUtilities"
                || archive.resolve(operand.fields["NSConstantValue"]) == nil)
    }

    private func isArithmetic(_ value: Any?) -> Bool {
        guard let object = archive.object(value), object.className == "NSFunctionExpression",
              let selector = archive.string(object.fields["NSSelectorName"]) else { return false }
        return Self.arithmeticSymbols[selector] != nil && isBuiltIn(object)
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

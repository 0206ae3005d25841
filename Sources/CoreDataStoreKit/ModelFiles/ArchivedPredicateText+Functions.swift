/// Archived function expressions (`NSFunctionExpression`: keys `NSSelectorName`, `NSOperand`, `NSArguments`)
/// as format text, spelled as Apple's `predicateFormat` spells them where the parser reads that spelling:
///
/// - a method called on a target (`$manager`, a key path) is `FUNCTION(target, "selector:", arguments…)`;
/// - Apple's built-in functions (the operand is a constant naming `_NSPredicateUtilities`, or absent) are
///   infix for arithmetic (`price * 2`), `base[index]` for `objectFrom:withIndex:` (the index an integer or
///   Apple's symbolic `FIRST`/`LAST`/`SIZE`), `CAST(value, "Type")` for `castObject:toType:`, and otherwise
///   the selector followed by the arguments (`count:(items)`, `now()`; the bitwise functions and
///   `onesComplement:` too, which Apple prints as `&`, `|`, `^`, `<<`, `>>`, `~` but the parser reads by name).
extension ArchivedPredicateText {
    /// The format text of a function expression.
    /// - Throws: for a missing selector, an index or cast the format language cannot spell, or a built-in
    ///   function whose argument count is not the number of colons in its name.
    func function(_ object: KeyedArchive.Object, depth: Int) throws -> String {
        guard let selector = archive.string(object.fields["NSSelectorName"]), !selector.isEmpty else {
            throw KeyedArchive.ArchiveError("an NSFunctionExpression has no selector name")
        }
        let elements = archive.elements(object.fields["NSArguments"]) ?? []
        let arguments = try elements.map { try expression($0, depth: depth + 1) }
        if let symbol = Self.arithmeticSymbols[selector], arguments.count == 2, isBuiltIn(object) {
            // Infix, as Apple prints it; an argument that is itself infix is parenthesized to keep the tree.
            let operands = zip(elements, arguments).map { element, text in isInfix(element) ? "(" + text + ")" : text }
            return operands.joined(separator: " \(symbol) ")
        }
        if let target = try functionTarget(object.fields["NSOperand"], selector: selector, depth: depth) {
            return "FUNCTION(" + ([target, ModelValueText.quoted(selector)] + arguments).joined(separator: ", ") + ")"
        }
        switch selector {
        case "objectFrom:withIndex:":
            return try index(elements, arguments)
        case "castObject:toType:":
            return try cast(elements, arguments)
        default:
            let colons = selector.filter { $0 == ":" }.count
            guard colons == arguments.count else {
                throw KeyedArchive.ArchiveError("the function \(selector) has \(arguments.count) arguments, not \(colons)")
            }
            let name = derivationSpelling && selector.hasSuffix(":") ? String(selector.dropLast()) : selector
            return "\(name)(\(arguments.joined(separator: ", ")))"
        }
    }

    /// `base[index]`: the index is an integer constant or Apple's `FIRST`, `LAST` or `SIZE`.
    private func index(_ elements: [Any], _ arguments: [String]) throws -> String {
        guard arguments.count == 2 else { throw KeyedArchive.ArchiveError("objectFrom:withIndex: has \(arguments.count) arguments, not 2") }
        let index = arguments[1]
        guard ["FIRST", "LAST", "SIZE"].contains(index) || (!index.isEmpty && index.allSatisfy(\.isASCII) && index.allSatisfy(\.isNumber)) else {
            throw KeyedArchive.ArchiveError("objectFrom:withIndex: with the index \(index), which is not a whole number, FIRST, LAST or SIZE")
        }
        let base = isInfix(elements[0]) || arguments[0].hasPrefix("-") ? "(" + arguments[0] + ")" : arguments[0]
        return "\(base)[\(index)]"
    }

    /// `CAST(value, "Type")`, for a type name the format language knows.
    private func cast(_ elements: [Any], _ arguments: [String]) throws -> String {
        guard arguments.count == 2 else { throw KeyedArchive.ArchiveError("castObject:toType: has \(arguments.count) arguments, not 2") }
        guard let typeExpression = archive.object(elements[1]), typeExpression.className == "NSConstantValueExpression",
              let type = archive.string(typeExpression.fields["NSConstantValue"]) else {
            throw KeyedArchive.ArchiveError("castObject:toType: names no type")
        }
        guard PredicateCast.isSupported(type) else { throw KeyedArchive.ArchiveError("a CAST to the unsupported type \(type)") }
        return "CAST(\(arguments[0]), \(arguments[1]))"
    }

    /// The format text of a function expression's target, or nil for a built-in function (one
    /// `ExpressionFunction` knows, whose target is absent or a constant).
    private func functionTarget(_ value: Any?, selector: String, depth: Int) throws -> String? {
        guard let operand = archive.object(value) else { return nil }
        if archive.string(operand.fields["NSConstantValueClassName"]) == "_NSPredicateUtilities" { return nil }
        if operand.className == "NSConstantValueExpression",
           ExpressionFunction.isKnown(selector) || Self.formFunctions.contains(selector) { return nil }
        return try expression(value, depth: depth + 1)
    }

    /// Apple's arithmetic functions and the format language's operators for them.
    static let arithmeticSymbols = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**"]

    /// Built-in functions that the format language spells as a form of its own rather than by name.
    static let formFunctions: Set<String> = ["objectFrom:withIndex:", "castObject:toType:"]

    /// Whether a function expression calls one of Apple's built-in functions: its operand is the constant
    /// naming `_NSPredicateUtilities` (as Apple archives them), or absent.
    private func isBuiltIn(_ function: KeyedArchive.Object) -> Bool {
        guard let operand = archive.object(function.fields["NSOperand"]) else { return true }
        return operand.className == "NSConstantValueExpression"
            && (archive.string(operand.fields["NSConstantValueClassName"]) == "_NSPredicateUtilities"
                || archive.resolve(operand.fields["NSConstantValue"]) == nil)
    }

    /// Whether an archived expression prints infix (arithmetic, a set operation), so that as an operand of
    /// another infix or postfix form it needs parentheses.
    func isInfix(_ value: Any?) -> Bool {
        guard let object = archive.object(value) else { return false }
        if object.className == "NSSetExpression" { return true }
        guard object.className == "NSFunctionExpression", let selector = archive.string(object.fields["NSSelectorName"]) else { return false }
        return Self.arithmeticSymbols[selector] != nil && isBuiltIn(object)
    }
}

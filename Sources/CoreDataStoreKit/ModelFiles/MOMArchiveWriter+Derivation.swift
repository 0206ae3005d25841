/// A derived attribute's expression in Apple's compiled form (`NSDerivationExpression` of an
/// `NSDerivedAttributeDescription`), as the fixtures show it: SampleModel2's `Z_MODELCACHE` archives
/// `count:(pages)` as an `NSFunctionExpression` whose operand names `_NSPredicateUtilities` and whose argument is
/// the key path `pages`.
///
/// Text is first spelled as Apple prints the expression (`DerivationExpressionText`: a model file's
/// `pages.@count` and this package's `count(pages)` are both `count:(pages)`, the text the version hash
/// covers). A call `name:(arguments)` or `name()` (`now()`, `lowercase:(title)`, `canonical:(name)`) becomes
/// that built-in function; anything else (a key path such as `author.name`, `items.@sum.price`) is parsed as a
/// predicate expression and archived as one. Reading the archive back gives text with the same Apple spelling,
/// so the attribute keeps its version hash.
extension MOMArchiveWriter.Builder {
    /// The archived derivation expression for `format`.
    /// - Throws: `fail(reason)` when the text does not parse or holds a part the writer does not write.
    mutating func derivation(format: String, fail: (String) -> NSError) throws -> Value {
        let text = DerivationExpressionText.appleDescription(of: format)
        func refuse(_ reason: String) -> NSError { fail("its derivation \"\(format)\" \(reason)") }
        if let (selector, arguments) = Self.functionCall(text) {
            if arguments.allSatisfy(\.isWhitespace) { return try builtInFunction(selector, [], refuse: refuse) }
            // The arguments are parsed as one array literal, so commas inside strings and calls stay theirs.
            guard let parsed = try? PredicateFormatParser.parseOperand("{" + arguments + "}", arguments: []) else {
                throw refuse("does not parse")
            }
            switch parsed {
            case .array(let operands): return try builtInFunction(selector, operands, refuse: refuse)
            case .constant(.collection(let items)): return try builtInFunction(selector, items.map(PredicateOperand.constant), refuse: refuse)
            default: throw refuse("does not parse")
            }
        }
        let operand: PredicateOperand
        do { operand = try PredicateFormatParser.parseOperand(text, arguments: []) } catch { throw refuse("does not parse") }
        return try expression(operand, refuse: refuse)
    }

    /// The selector and the argument text of a call to a built-in function (`count:(pages)`, `now()`); nil for
    /// other text, including the format language's own calls (`FUNCTION(…)`, `SUBQUERY(…)`, `CAST(…)`).
    static func functionCall(_ text: String) -> (selector: String, arguments: String)? {
        guard text.hasSuffix(")"), let open = text.firstIndex(of: "(") else { return nil }
        let name = String(text[..<open])
        guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first),
              name.unicodeScalars.allSatisfy({ $0 == ":" || $0 == "_" || CharacterSet.alphanumerics.contains($0) }),
              !PredicateFormatParser.reservedWords.contains(name.uppercased()) else { return nil }
        let arguments = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        // `a(b) + c(d)` is not one call: the parenthesis opened after the name must close at the end.
        var depth = 0
        for character in arguments {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1; if depth < 0 { return nil } }
        }
        return (name, arguments)
    }
}

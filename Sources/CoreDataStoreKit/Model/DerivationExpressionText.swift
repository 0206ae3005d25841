/// Spells a derived attribute's expression the way Apple's Core Data prints an `NSExpression`
/// (`description`), which is the text its version hash covers.
///
/// A model file writes a derivation in key-path form (`pages.@count`); a compiled model archives it as a
/// function expression, which this package renders as `count(pages)`. Apple prints both as `count:(pages)`:
/// the function's selector name, colon included, then the arguments in parentheses. Only `count:` is
/// confirmed against Apple's own hashes; the other collection operators follow the same rule. Text that is
/// neither form (a key path such as `author.name`, a call without arguments such as `now()`) is already
/// printed as Apple prints it and is returned unchanged.
package enum DerivationExpressionText {
    /// The collection operators a model file writes after `@`, and the `NSExpression` functions they stand for.
    private static let operatorFunctions = ["count": "count:", "sum": "sum:", "avg": "average:", "min": "min:", "max": "max:"]

    /// `format` as Apple prints the expression.
    package static func appleDescription(of format: String) -> String {
        let text = format.trimmingCharacters(in: .whitespacesAndNewlines)
        if let at = text.range(of: ".@", options: .backwards) {
            let path = String(text[..<at.lowerBound])
            let name = String(text[at.upperBound...])
            if let function = operatorFunctions[name], isKeyPath(path) { return "\(function)(\(path))" }
            return text
        }
        guard text.hasSuffix(")"), let open = text.firstIndex(of: "(") else { return text }
        let selector = String(text[..<open])
        let arguments = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard isSelector(selector), !arguments.trimmingCharacters(in: .whitespaces).isEmpty else { return text }
        return selector.hasSuffix(":") ? text : selector + ":" + text[open...]
    }

    private static func isKeyPath(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0 == "." || $0 == "_" || CharacterSet.alphanumerics.contains($0) }
    }

    private static func isSelector(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, CharacterSet.letters.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == ":" || $0 == "_" || CharacterSet.alphanumerics.contains($0) }
    }
}

/// Apple's `derivationExpression`, over the text this package keeps (`derivationExpressionFormat`).
extension NSDerivedAttributeDescription {
    /// An expression for generating derived data (Apple's API): a key path (`author.name`, `pages.@count`,
    /// `pages.@sum.words`), `lowercase:`, `uppercase:` or `canonical:` of a key path, or `now()`.
    ///
    /// Setting it keeps the expression's text (its `description`, Apple's printed form such as
    /// `lowercase:(title)`) as `derivationExpressionFormat`; reading it parses that text again, a function
    /// call in Apple's printed form becoming a function expression. The store checks the derivation when it is
    /// added (134091 for one Core Data does not support).
    public var derivationExpression: NSExpression? {
        get {
            guard let format = derivationExpressionFormat else { return nil }
            let parsed = NSExpression(format: format)
            guard parsed.parseError != nil, format.hasSuffix(")"), let open = format.firstIndex(of: "("), open > format.startIndex else {
                return parsed
            }
            let name = String(format[..<open])
            let argument = format[format.index(after: open)..<format.index(before: format.endIndex)].trimmingCharacters(in: .whitespaces)
            return NSExpression(forFunction: name, arguments: argument.isEmpty ? [] : [NSExpression(forKeyPath: argument)])
        }
        set { derivationExpressionFormat = newValue?.description }
    }
}

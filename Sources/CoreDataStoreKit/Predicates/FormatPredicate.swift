/// The `NSPredicate` that `NSPredicate(format:)` makes: it carries its syntax tree (or its parse error).
///
/// Internal: users see an `NSPredicate`. Overrides what Foundation lets a subclass override, so that
/// `predicateFormat` and `description` print the canonical format, `isEqual`/`hash` compare trees (two
/// predicates parsed from equivalent formats are equal), and `copy()` keeps the tree. Evaluation runs the
/// tree through Foundation's block machinery, so `evaluate(with:)` and `NSCompoundPredicate` work unchanged.
final class FormatPredicate: NSPredicate {
    /// The tree, or nil when the format did not parse.
    let node: PredicateNode?
    /// Why the format did not parse.
    let storedError: NSError?

    init(node: PredicateNode) {
        self.node = node
        self.storedError = nil
        super.init(block: { object, bindings in
            node.evaluate(with: object, variables: bindings ?? [:])
        })
    }

    /// A predicate whose format did not parse: evaluates to false, and stores and ``validatedExpression()``
    /// throw its error.
    init(error: NSError) {
        self.node = nil
        self.storedError = error
        super.init(block: { _, _ in false })
    }

    override var predicateFormat: String {
        if let node = node { return node.format }
        return "<unparsable predicate: \(storedError?.localizedDescription ?? "")>"
    }

    override var description: String { predicateFormat }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FormatPredicate else { return false }
        if other === self { return true }
        guard let a = node, let b = other.node else { return false }
        return a == b
    }

    override var hash: Int { node?.hashValue ?? ObjectIdentifier(self).hashValue }

    override func copy(with zone: NSZone? = nil) -> Any { self }
}

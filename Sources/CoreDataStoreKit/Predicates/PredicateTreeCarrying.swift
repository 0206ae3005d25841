/// A predicate class of the package's, outside this module, that carries its syntax tree: `CoreData`'s
/// `NSComparisonPredicate`, built from expressions. `validatedExpression()` takes the tree from it, so stores
/// translate it as they translate a parsed format.
package protocol PredicateTreeCarrying: AnyObject {
    /// The predicate's syntax tree.
    /// - Throws: why the predicate has none (an expression that did not parse, an operator that is not supported).
    func predicateTree() throws -> PredicateNode
}

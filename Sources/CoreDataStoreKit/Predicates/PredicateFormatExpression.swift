/// A value that stands for an expression when it is the argument of `%@` in a predicate format: Apple's
/// `NSPredicate(format: "%@ > 1", expression)` compares the expression itself, not the expression object as a
/// constant. `CoreData`'s `NSExpression` adopts it (it is declared there, above this module).
package protocol PredicateFormatExpression {
    /// The operand the expression is, or nil when it has none (an unknown function), in which case the argument
    /// is taken as a constant.
    var predicateFormatOperand: PredicateOperand? { get }
}

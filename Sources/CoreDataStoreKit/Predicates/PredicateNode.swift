/// The typed syntax tree of one predicate: what `NSPredicate(format:)` parses into, and what a store walks.
///
/// An addition to Apple's API (Apple exposes the same structure as `NSComparisonPredicate`,
/// `NSCompoundPredicate` and `NSExpression`, which swift-corelibs-foundation does not implement).
/// Get it from any predicate with ``Foundation/NSPredicate/parsedExpression``.
///
/// Guarantees:
/// - `and` and `or` hold at least one subpredicate when produced by the parser; an empty `and` is true and an
///   empty `or` is false, as in `NSCompoundPredicate`.
/// - Equal trees print the same ``format`` and the printed format parses back to an equal tree (except for
///   ``block(_:)`` nodes and object constants, which have no textual form).
public indirect enum PredicateNode: Hashable, @unchecked Sendable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`, and `NSPredicate(value:)`.
    case constant(Bool)
    /// A comparison of two operands, such as `name BEGINSWITH[c] "a"` or `ANY items.price > 5`.
    case comparison(PredicateComparison)
    /// `a AND b AND …`: true when every subpredicate is (true when empty).
    case and([PredicateNode])
    /// `a OR b OR …`: true when any subpredicate is (false when empty).
    case or([PredicateNode])
    /// `NOT a`.
    case not(PredicateNode)
    /// A predicate with no syntax tree, such as `NSPredicate(block:)`: stores evaluate it in memory by calling
    /// the wrapped predicate.
    case block(PredicateBlockReference)
}

/// A predicate that can only be evaluated by calling it (an `NSPredicate(block:)`, or a subclass we do not know).
///
/// Equal when it wraps the same predicate instance.
public struct PredicateBlockReference: Hashable, @unchecked Sendable {
    /// The wrapped predicate; evaluate it with `evaluate(with:substitutionVariables:)`.
    public let predicate: NSPredicate

    /// A reference to `predicate`, a block predicate.
    public init(_ predicate: NSPredicate) { self.predicate = predicate }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.predicate === rhs.predicate }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(predicate)) }
}

/// Replacing `$variables` by constants, for `withSubstitutionVariables(_:)`.
///
/// A subquery's own variable is left alone inside its predicate. Values are classified as arguments are
/// (see ``PredicateConstant/init(argument:)``).
extension PredicateNode {
    /// The tree with each variable that has a value in `variables` replaced by that value.
    public func substituting(_ variables: [String: Any]) -> PredicateNode {
        switch self {
        case .constant, .block:
            return self
        case .comparison(var c):
            c.lhs = c.lhs.substituting(variables)
            c.rhs = c.rhs.substituting(variables)
            return .comparison(c)
        case .and(let items):
            return .and(items.map { $0.substituting(variables) })
        case .or(let items):
            return .or(items.map { $0.substituting(variables) })
        case .not(let inner):
            return .not(inner.substituting(variables))
        }
    }
}

extension PredicateOperand {
    /// The operand with each variable that has a value in `variables` replaced by that value.
    public func substituting(_ variables: [String: Any]) -> PredicateOperand {
        switch self {
        case .constant, .evaluatedObject, .keyPath:
            return self
        case .variable(let name):
            guard let value = variables[name] else { return self }
            return .constant(PredicateConstant(argument: value))
        case .member(let base, let path):
            return .member(base.substituting(variables), path)
        case .aggregate(let op, let inner):
            return .aggregate(op, inner.substituting(variables))
        case .subquery(let collection, let variable, let predicate):
            var inner = variables
            inner[variable] = nil
            return .subquery(
                collection: collection.substituting(variables), variable: variable,
                predicate: predicate.substituting(inner))
        case .array(let items):
            return .array(items.map { $0.substituting(variables) })
        case .arithmetic(let op, let a, let b):
            return .arithmetic(op, a.substituting(variables), b.substituting(variables))
        case .negate(let inner):
            return .negate(inner.substituting(variables))
        case .cast(let inner, let type):
            return .cast(inner.substituting(variables), type: type)
        case .index(let base, let index):
            return .index(base.substituting(variables), index)
        case .function(let target, let selector, let arguments):
            return .function(target: target.substituting(variables), selector: selector,
                             arguments: arguments.map { $0.substituting(variables) })
        case .fetch(let request, let context, let countOnly):
            return .fetch(request: request.substituting(variables), context: context.substituting(variables), countOnly: countOnly)
        case .builtInFunction(let name, let arguments):
            return .builtInFunction(name: name, arguments: arguments.map { $0.substituting(variables) })
        case .ternary(let predicate, let whenTrue, let whenFalse):
            return .ternary(predicate.substituting(variables), whenTrue.substituting(variables), whenFalse.substituting(variables))
        case .anyKey:
            return self
        case .setOperation(let op, let left, let right):
            return .setOperation(op, left.substituting(variables), right.substituting(variables))
        }
    }
}

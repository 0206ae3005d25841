import CoreData
import CoreDataModelCommands
import CoreDataStoreKit
import Foundation

/// The `$variables` of a `--where` predicate and the values `--var name=value` gives them.
///
/// Guarantees: a predicate run by the tool has no free variable left. A variable that no `--var` binds (which
/// `withSubstitutionVariables(_:)` would leave to evaluate as nil, so the fetch would quietly find nothing)
/// and a `--var` that names no variable of the predicate are usage errors naming them. A subquery's own
/// variable (`SUBQUERY(books, $b, $b.pages > 100)`) is bound by the subquery, not free.
enum PredicateVariables {
    /// The names of the variables `node` uses and does not bind itself, in order of first use.
    static func freeVariables(of node: PredicateNode) -> [String] {
        var names: [String] = []
        collect(node, bound: [], into: &names)
        return names
    }

    private static func collect(_ node: PredicateNode, bound: Set<String>, into names: inout [String]) {
        switch node {
        case .constant, .block: break
        case .comparison(let comparison):
            collect(comparison.lhs, bound: bound, into: &names)
            collect(comparison.rhs, bound: bound, into: &names)
        case .and(let items), .or(let items):
            for item in items { collect(item, bound: bound, into: &names) }
        case .not(let inner):
            collect(inner, bound: bound, into: &names)
        }
    }

    private static func collect(_ operand: PredicateOperand, bound: Set<String>, into names: inout [String]) {
        switch operand {
        case .constant, .evaluatedObject, .keyPath: break
        case .variable(let name):
            if !bound.contains(name), !names.contains(name) { names.append(name) }
        case .member(let base, _), .aggregate(_, let base), .negate(let base), .cast(let base, _), .index(let base, _):
            collect(base, bound: bound, into: &names)
        case .subquery(let collection, let variable, let predicate):
            collect(collection, bound: bound, into: &names)
            collect(predicate, bound: bound.union([variable]), into: &names)
        case .array(let items):
            for item in items { collect(item, bound: bound, into: &names) }
        case .arithmetic(_, let a, let b):
            collect(a, bound: bound, into: &names)
            collect(b, bound: bound, into: &names)
        case .function(let target, _, let arguments):
            collect(target, bound: bound, into: &names)
            for argument in arguments { collect(argument, bound: bound, into: &names) }
        case .fetch(let request, let context, _):
            collect(request, bound: bound, into: &names)
            collect(context, bound: bound, into: &names)
        case .anyKey: break
        case .builtInFunction(_, let arguments):
            for argument in arguments { collect(argument, bound: bound, into: &names) }
        case .ternary(let predicate, let whenTrue, let whenFalse):
            collect(predicate, bound: bound, into: &names)
            collect(whenTrue, bound: bound, into: &names)
            collect(whenFalse, bound: bound, into: &names)
        case .setOperation(_, let left, let right):
            collect(left, bound: bound, into: &names)
            collect(right, bound: bound, into: &names)
        }
    }

    /// `--var` values by name: each `name=value`, the value read as a literal of the predicate language (a
    /// number, a quoted string, `YES`/`NO`, `nil`, `{…}`, `CAST(…)` of a literal); any other text is taken as
    /// a string, so `--var name=Dune` and `--var name="'Dune'"` bind the same.
    /// - Throws: a `UsageError` for an item without `=` or with an empty or repeated name.
    static func bindings(_ items: [String]) throws -> [String: Any] {
        var values: [String: Any] = [:]
        for item in items {
            guard let equals = item.firstIndex(of: "=") else { throw UsageError("--var takes name=value, not \(item)") }
            var name = String(item[..<equals]).trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("$") { name.removeFirst() }
            guard !name.isEmpty else { throw UsageError("--var \(item) has no name before =") }
            guard values[name] == nil else { throw UsageError("--var \(name) is given twice") }
            values[name] = literal(String(item[item.index(after: equals)...]))
        }
        return values
    }

    /// The value `text` spells as a literal of the predicate language, else the text itself.
    static func literal(_ text: String) -> Any {
        guard let node = try? NSPredicate.parse(format: "SELF == " + text).parsedExpression,
              case .comparison(let comparison) = node, let value = constantValue(comparison.rhs) else { return text }
        return value
    }

    /// The value of a constant operand, or of an array literal of constants; nil for anything else.
    private static func constantValue(_ operand: PredicateOperand) -> Any? {
        switch operand {
        case .constant(let constant): return constant.value ?? NSNull()
        case .array(let items):
            let values = items.compactMap(constantValue)
            return values.count == items.count ? values : nil
        default: return nil
        }
    }

    /// `predicate` with `values` substituted, checked to leave no variable free.
    /// - Throws: a `UsageError` naming each variable nothing binds, or each `--var` the predicate does not use.
    static func bind(_ predicate: NSPredicate, _ values: [String: Any]) throws -> NSPredicate {
        guard let node = predicate.parsedExpression else { return predicate }
        let used = freeVariables(of: node)
        let unbound = used.filter { values[$0] == nil }
        if !unbound.isEmpty {
            let list = unbound.map { "$\($0)" }.joined(separator: ", ")
            let example = unbound.map { "--var \($0)=<value>" }.joined(separator: " ")
            throw UsageError("--where uses \(list), which nothing binds (it would match nothing); give \(unbound.count == 1 ? "its value" : "their values") with \(example)")
        }
        let unused = values.keys.filter { !used.contains($0) }.sorted()
        if !unused.isEmpty {
            let list = unused.map { "$\($0)" }.joined(separator: ", ")
            throw UsageError("--var binds \(list), which --where does not use" + (used.isEmpty ? "" : " (it uses \(used.map { "$\($0)" }.joined(separator: ", ")))"))
        }
        return values.isEmpty ? predicate : predicate.withSubstitutionVariables(values)
    }
}

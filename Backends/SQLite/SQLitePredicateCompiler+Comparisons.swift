import CoreDataSQL
import CoreDataStoreKit

/// Comparisons of translated operands, with the evaluator's meaning: kinds that differ are never equal nor
/// ordered, nil is equal only to nil, an empty string is never a prefix, suffix or part, `[c]`/`[d]` fold
/// strings only.
extension SQLitePredicateCompiler {
    typealias Operator = PredicateComparison.Operator
    typealias Options = PredicateComparison.Options

    /// `lhs op rhs` for a translated left side, with the right side read in `scope`; nil when it does not
    /// translate exactly. A result that is a constant ("0" or "1") keeps none of the values bound on the way.
    func compare(_ lhs: Expression, _ op: Operator, _ rhs: PredicateOperand, _ options: Options, in scope: Scope) -> String? {
        let start = mark(scope)
        let sql = comparison(lhs, op, rhs, options, in: scope)
        if sql == "0" || sql == "1" { rollBack(to: start, in: scope) }
        return sql
    }

    private func comparison(_ lhs: Expression, _ op: Operator, _ rhs: PredicateOperand, _ options: Options, in scope: Scope) -> String? {
        switch op {
        case .in: return contained(lhs, in: rhs, options, scope: scope)
        case .between: return between(lhs, rhs, options, in: scope)
        case .like: return like(lhs, rhs, options)
        default: break
        }
        guard let right = operand(rhs, in: scope) else { return nil }
        switch op {
        case .equalTo, .notEqualTo: return equality(lhs, right, options, negated: op == .notEqualTo)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let kind = lhs.kind, let rightKind = right.kind else { return nil }
            guard kind == rightKind, kind.isOrdered else { return "0" }
            return "(\(fold(lhs, options)) \(op.rawValue) \(fold(right, options)))"
        default:
            guard let kind = lhs.kind, let rightKind = right.kind else { return nil }
            guard kind == .string, rightKind == .string else { return "0" }
            return text(lhs, op, right, options)
        }
    }

    /// `==` and `!=`: nil equals only nil, values of two kinds are never equal, objects by key.
    private func equality(_ lhs: Expression, _ rhs: Expression, _ options: Options, negated: Bool) -> String? {
        let operation = negated ? "IS NOT" : "IS"
        if rhs.kind == .null || lhs.kind == .null {
            if rhs.kind == .null && lhs.kind == .null { return negated ? "0" : "1" }
            return "(\(rhs.kind == .null ? lhs.sql : rhs.sql) \(operation) NULL)"
        }
        guard let kind = lhs.kind, let rightKind = rhs.kind else { return nil }
        guard kind == rightKind, kind != .collection, sameTable(lhs, rhs) else {
            // Values of two kinds are never equal, but two nils are.
            if lhs.isConstant || rhs.isConstant { return negated ? "1" : "0" }
            let bothNil = "(\(lhs.sql) IS NULL AND \(rhs.sql) IS NULL)"
            return negated ? "(NOT \(bothNil))" : bothNil
        }
        return "(\(fold(lhs, options)) \(operation) \(fold(rhs, options)))"
    }

    /// Whether two object expressions can name the same row: their entities share a table.
    private func sameTable(_ a: Expression, _ b: Expression) -> Bool {
        guard a.kind == .object, let x = a.entity, let y = b.entity else { return true }
        return x.rootEntity === y.rootEntity
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `MATCHES` on folded strings; an empty right side never matches
    /// (but an empty regular expression matches the empty string).
    private func text(_ lhs: Expression, _ op: Operator, _ rhs: Expression, _ options: Options) -> String? {
        let left = fold(lhs, options), right = fold(rhs, options)
        switch op {
        case .beginsWith: return "(length(\(right)) > 0 AND substr(\(left), 1, length(\(right))) = \(right))"
        case .endsWith: return "(length(\(right)) > 0 AND substr(\(left), -length(\(right))) = \(right))"
        case .contains: return "(length(\(right)) > 0 AND instr(\(left), \(right)) > 0)"
        case .matches:
            // The evaluator's own matching, options included (folding a pattern would change its meaning).
            let flags = options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
            return "(NSCoreDataMatches(\(lhs.sql), \(rhs.sql), \(flags)) = 1)"
        default: return nil
        }
    }

    /// `LIKE` as `GLOB` for a constant pattern without escapes (`*` and `?` mean the same in both).
    private func like(_ lhs: Expression, _ rhs: PredicateOperand, _ options: Options) -> String? {
        guard let pattern = closedValue(rhs) else { return nil }
        guard lhs.kind != nil, Kind(pattern) != nil else { return nil }
        guard lhs.kind == .string, case .string(let text) = pattern else { return "0" }
        guard !text.contains("\\") else { return nil }
        let glob = text.replacingOccurrences(of: "[", with: "[[]")
        return "(\(fold(lhs, options)) GLOB \(bind(.text(SQLiteFunctions.fold(glob, foldingFlags(options))))))"
    }

    /// `IN`: membership of a list (nil items match nil), or a substring of a string (never the empty one).
    private func contained(_ lhs: Expression, in rhs: PredicateOperand, _ options: Options, scope: Scope) -> String? {
        guard let kind = lhs.kind else { return nil }
        if let constant = closedValue(rhs) {
            switch constant {
            case .collection(let items): return list(lhs, kind, items, options)
            case .string(let text):
                guard kind == .string else { return "0" }
                let part = fold(lhs, options)
                return "(length(\(part)) > 0 AND instr(\(fold(Expression(sql: bind(.text(text)), kind: .string), options)), \(part)) > 0)"
            case .opaque: return nil
            default: return "0"  // not a collection nor a string: nothing is in it
            }
        }
        guard let container = operand(rhs, in: scope), let containerKind = container.kind else { return nil }
        guard containerKind == .string else { return "0" }
        guard kind == .string else { return "0" }
        let part = fold(lhs, options)
        return "(length(\(part)) > 0 AND instr(\(fold(container, options)), \(part)) > 0)"
    }

    /// `lhs IN (…)` over the items of the left side's kind, or `lhs IS NULL` for a nil item.
    private func list(_ lhs: Expression, _ kind: Kind, _ items: [PredicateConstant], _ options: Options) -> String? {
        var parts: [String] = []
        var matchesNil = false
        for item in items {
            guard let itemKind = Kind(item) else { return nil }
            if itemKind == .null { matchesNil = true; continue }
            // An item of another kind (or an object of another table) equals nothing on the left.
            guard itemKind == kind, kind != .collection, sameTable(lhs, Expression(sql: "", kind: itemKind, entity: objectEntity(item))) else { continue }
            guard let value = sqlValue(item) else { return nil }
            parts.append(fold(Expression(sql: bind(value), kind: itemKind), options))
        }
        var alternatives: [String] = []
        if !parts.isEmpty { alternatives.append("\(fold(lhs, options)) IN (\(parts.joined(separator: ", ")))") }
        if matchesNil { alternatives.append("\(lhs.sql) IS NULL") }
        return alternatives.isEmpty ? "0" : "(" + alternatives.joined(separator: " OR ") + ")"
    }

    /// `BETWEEN {low, high}`: both bounds of the left side's kind, else false.
    private func between(_ lhs: Expression, _ rhs: PredicateOperand, _ options: Options, in scope: Scope) -> String? {
        let bounds: [PredicateOperand]
        if let constant = closedValue(rhs) {
            guard case .collection(let items) = constant else { return Kind(constant) == nil ? nil : "0" }
            bounds = items.map { .constant($0) }
        } else if case .array(let items) = rhs {
            bounds = items
        } else {
            return nil
        }
        guard bounds.count == 2 else { return "0" }
        guard let kind = lhs.kind, let low = operand(bounds[0], in: scope), let high = operand(bounds[1], in: scope),
              let lowKind = low.kind, let highKind = high.kind else { return nil }
        guard kind.isOrdered, lowKind == kind, highKind == kind else { return "0" }
        let value = fold(lhs, options)
        return "(\(value) >= \(fold(low, options)) AND \(value) <= \(fold(high, options)))"
    }

    // MARK: Values

    /// `[c]`/`[d]` folding of a string expression; other kinds are compared as they are.
    private func fold(_ expression: Expression, _ options: Options) -> String {
        let flags = foldingFlags(options)
        guard flags != 0, expression.kind == .string else { return expression.sql }
        return "NSCoreDataFold(\(expression.sql), \(flags))"
    }

    private func foldingFlags(_ options: Options) -> Int {
        options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
    }

    /// Whether an operand reads nothing from the object: a literal, an argument, or arithmetic, casts,
    /// arrays, aggregates and indexes of those.
    func isClosed(_ operand: PredicateOperand) -> Bool {
        switch operand {
        case .constant: return true
        case .array(let items): return items.allSatisfy(isClosed)
        case .arithmetic(_, let a, let b): return isClosed(a) && isClosed(b)
        case .negate(let inner), .cast(let inner, _), .aggregate(_, let inner), .index(let inner, _): return isClosed(inner)
        case .evaluatedObject, .keyPath, .member, .variable, .subquery: return false
        }
    }

    /// The value of a closed operand as a constant, computed by the evaluator; nil for other operands.
    func closedValue(_ operand: PredicateOperand) -> PredicateConstant? {
        guard isClosed(operand) else { return nil }
        if case .constant(let constant) = operand { return constant }
        return PredicateConstant(argument: operand.value(for: nil))
    }

    /// A constant's SQL value, in the encoding its kind's columns use; nil when it has none.
    func sqlValue(_ constant: PredicateConstant) -> SQLValue? {
        switch constant {
        case .null: return .null
        case .object(let object):
            guard let key = (object.object as? StoredObjectReference)?.storedObjectKey else { return nil }
            return .integer(key.primaryKey)
        case .bool(let b): return .integer(b ? 1 : 0)
        case .integer(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .decimal(let d): return .real(NSDecimalNumber(decimal: d).doubleValue)
        case .string(let s): return .text(s)
        case .date(let d): return .real(d.timeIntervalSinceReferenceDate)
        case .data(let d): return .blob(d)
        case .uuid(let u): return SQLValueCoding.encode(u, as: .UUIDAttributeType)
        case .url(let u): return .text(u.absoluteString)
        case .collection, .opaque: return nil
        }
    }

    /// The entity of an object constant's row, when the constant is a saved object.
    func objectEntity(_ constant: PredicateConstant) -> NSEntityDescription? {
        guard case .object(let object) = constant, let key = (object.object as? StoredObjectReference)?.storedObjectKey else { return nil }
        return schema.model.entities.first { $0.entityNumber == key.entityNumber }
    }

    // MARK: Operands

    /// A translated operand, or nil. Closed operands become bound constants (nil as `NULL`).
    func operand(_ operand: PredicateOperand, in scope: Scope) -> Expression? {
        if let constant = closedValue(operand) {
            guard let kind = Kind(constant) else { return nil }
            if kind == .null { return Expression(sql: "NULL", kind: .null, isConstant: true) }
            if kind == .collection { return Expression(sql: "NULL", kind: .collection, isConstant: true) }
            guard let value = sqlValue(constant) else { return nil }
            return Expression(sql: bind(value), kind: kind, entity: objectEntity(constant), isConstant: true)
        }
        switch operand {
        case .evaluatedObject: return Expression(sql: "\(scope.alias).Z_PK", kind: .object, entity: scope.entity)
        case .keyPath(let path): return keyPath(path, in: scope)
        case .variable(let name):
            guard let bound = variables[name] else { return nil }
            return Expression(sql: "\(bound.alias).Z_PK", kind: .object, entity: bound.entity)
        case .member(.variable(let name), let path):
            guard let bound = variables[name] else { return nil }
            return keyPath(path, in: bound)
        case .aggregate(let aggregate, let inner): return self.aggregate(aggregate, inner, in: scope)
        default: return nil
        }
    }
}

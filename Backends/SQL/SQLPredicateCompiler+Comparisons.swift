import CoreDataStoreKit

/// Comparisons of translated operands, with the evaluator's meaning: kinds that differ are never equal nor
/// ordered, nil is equal only to nil, an empty string is never a prefix, suffix or part, `[c]`/`[d]` fold
/// strings only.
extension SQLPredicateCompiler {
    typealias Operator = PredicateComparison.Operator
    typealias Options = PredicateComparison.Options

    /// `lhs op rhs` for a translated left side, with the right side read in `scope`; nil when it does not
    /// translate exactly. A result that is a constant (`TRUE` or `FALSE`) keeps none of the values bound on the
    /// way.
    func compare(_ lhs: Expression, _ op: Operator, _ rhs: PredicateOperand, _ options: Options, in scope: Scope) -> String? {
        let start = mark(scope)
        let sql = comparison(lhs, op, rhs, options, in: scope)
        if Self.isConstant(sql) { rollBack(to: start, in: scope) }
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
            guard kind == rightKind, kind.isOrdered else { return Self.falseSQL }
            guard let left = ordered(lhs, options), let right = ordered(right, options) else { return nil }
            return "(\(left) \(op.rawValue) \(right))"
        default:
            guard let kind = lhs.kind, let rightKind = right.kind else { return nil }
            guard kind == .string, rightKind == .string else { return Self.falseSQL }
            return text(lhs, op, right, options)
        }
    }

    /// `==` and `!=`: nil equals only nil, values of two kinds are never equal, objects by key.
    private func equality(_ lhs: Expression, _ rhs: Expression, _ options: Options, negated: Bool) -> String? {
        if rhs.kind == .null || lhs.kind == .null {
            if rhs.kind == .null && lhs.kind == .null { return Self.sql(!negated) }
            return "(\(rhs.kind == .null ? lhs.sql : rhs.sql) \(negated ? "IS NOT" : "IS") NULL)"
        }
        guard let kind = lhs.kind, let rightKind = rhs.kind else { return nil }
        guard kind == rightKind, kind != .collection, sameTable(lhs, rhs) else {
            // Values of two kinds are never equal, but two nils are.
            if lhs.isConstant || rhs.isConstant { return Self.sql(negated) }
            let bothNil = "(\(lhs.sql) IS NULL AND \(rhs.sql) IS NULL)"
            return negated ? "(NOT \(bothNil))" : bothNil
        }
        guard let left = fold(lhs, options), let right = fold(rhs, options) else { return nil }
        return dialect.nullSafeEqual(left, right, negated: negated)
    }

    /// Whether two object expressions can name the same row: their entities share a table.
    private func sameTable(_ a: Expression, _ b: Expression) -> Bool {
        guard a.kind == .object, let x = a.entity, let y = b.entity else { return true }
        return x.rootEntity === y.rootEntity
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `MATCHES` on folded strings; an empty right side never matches
    /// (but an empty regular expression matches the empty string).
    private func text(_ lhs: Expression, _ op: Operator, _ rhs: Expression, _ options: Options) -> String? {
        if op == .matches {
            // The evaluator's own matching, options included (folding a pattern would change its meaning).
            return dialect.matches(lhs.sql, pattern: rhs.sql, options.intersection([.caseInsensitive, .diacriticInsensitive]))
        }
        guard let left = fold(lhs, options), let right = fold(rhs, options) else { return nil }
        let length = dialect.length(right)
        switch op {
        case .beginsWith: return "(\(length) > 0 AND \(dialect.prefix(left, length: length)) = \(right))"
        case .endsWith: return "(\(length) > 0 AND \(dialect.suffix(left, length: length)) = \(right))"
        case .contains: return "(\(length) > 0 AND \(dialect.position(of: right, in: left)) > 0)"
        default: return nil
        }
    }

    /// `LIKE` for a constant pattern without escapes, through the dialect (SQLite: `GLOB`, where `*` and `?`
    /// mean the same).
    private func like(_ lhs: Expression, _ rhs: PredicateOperand, _ options: Options) -> String? {
        guard let pattern = closedValue(rhs) else { return nil }
        guard lhs.kind != nil, Kind(pattern) != nil else { return nil }
        guard lhs.kind == .string, case .string(let text) = pattern else { return Self.falseSQL }
        guard !text.contains("\\"), let left = fold(lhs, options) else { return nil }
        let rewritten = PredicateStrings.fold(dialect.likePattern(text), foldingOptions(options))
        return dialect.like(left, pattern: bind(.text(rewritten), type: .stringAttributeType))
    }

    /// `IN`: membership of a list (nil items match nil), or a substring of a string (never the empty one).
    private func contained(_ lhs: Expression, in rhs: PredicateOperand, _ options: Options, scope: Scope) -> String? {
        guard let kind = lhs.kind else { return nil }
        if let constant = closedValue(rhs) {
            switch constant {
            case .collection(let items): return list(lhs, kind, items, options)
            case .string:
                guard kind == .string else { return Self.falseSQL }
                guard let part = fold(lhs, options), let container = self.constant(constant, kind: .string),
                      let whole = fold(container, options) else { return nil }
                return "(\(dialect.length(part)) > 0 AND \(dialect.position(of: part, in: whole)) > 0)"
            case .opaque: return nil
            default: return Self.falseSQL  // not a collection nor a string: nothing is in it
            }
        }
        guard let container = operand(rhs, in: scope), let containerKind = container.kind else { return nil }
        guard containerKind == .string else { return Self.falseSQL }
        guard kind == .string else { return Self.falseSQL }
        guard let part = fold(lhs, options), let whole = fold(container, options) else { return nil }
        return "(\(dialect.length(part)) > 0 AND \(dialect.position(of: part, in: whole)) > 0)"
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
            guard let value = constant(item, kind: itemKind), let folded = fold(value, options) else { return nil }
            parts.append(folded)
        }
        var alternatives: [String] = []
        if !parts.isEmpty {
            guard let left = fold(lhs, options) else { return nil }
            alternatives.append("\(left) IN (\(parts.joined(separator: ", ")))")
        }
        if matchesNil { alternatives.append("\(lhs.sql) IS NULL") }
        return alternatives.isEmpty ? Self.falseSQL : "(" + alternatives.joined(separator: " OR ") + ")"
    }

    /// `BETWEEN {low, high}`: both bounds of the left side's kind, else false.
    private func between(_ lhs: Expression, _ rhs: PredicateOperand, _ options: Options, in scope: Scope) -> String? {
        let bounds: [PredicateOperand]
        if let constant = closedValue(rhs) {
            guard case .collection(let items) = constant else { return Kind(constant) == nil ? nil : Self.falseSQL }
            bounds = items.map { .constant($0) }
        } else if case .array(let items) = rhs {
            bounds = items
        } else {
            return nil
        }
        guard bounds.count == 2 else { return Self.falseSQL }
        guard let kind = lhs.kind, let low = operand(bounds[0], in: scope), let high = operand(bounds[1], in: scope),
              let lowKind = low.kind, let highKind = high.kind else { return nil }
        guard kind.isOrdered, lowKind == kind, highKind == kind else { return Self.falseSQL }
        guard let value = ordered(lhs, options), let lower = ordered(low, options), let upper = ordered(high, options) else { return nil }
        return "(\(value) >= \(lower) AND \(value) <= \(upper))"
    }

    // MARK: Values

    /// `[c]`/`[d]` folding of a string expression; other kinds are compared as they are. nil when the
    /// expression must fold and the dialect cannot.
    private func fold(_ expression: Expression, _ options: Options) -> String? {
        let folding = foldingOptions(options)
        guard !folding.isEmpty, expression.kind == .string else { return expression.sql }
        return dialect.fold(expression.sql, folding)
    }

    /// A folded expression as `<`, `BETWEEN` and the like order it: strings and URLs by code point.
    private func ordered(_ expression: Expression, _ options: Options) -> String? {
        guard let sql = fold(expression, options) else { return nil }
        return expression.kind?.isText == true ? dialect.orderedByCodePoint(sql) : sql
    }

    /// The options that fold strings: `[c]` and `[d]`.
    private func foldingOptions(_ options: Options) -> Options {
        options.intersection([.caseInsensitive, .diacriticInsensitive])
    }

    /// Whether an operand reads nothing from the object: a literal, an argument, or arithmetic, casts,
    /// arrays, aggregates and indexes of those.
    func isClosed(_ operand: PredicateOperand) -> Bool {
        switch operand {
        case .constant: return true
        case .array(let items): return items.allSatisfy(isClosed)
        case .arithmetic(_, let a, let b): return isClosed(a) && isClosed(b)
        case .negate(let inner), .cast(let inner, _), .aggregate(_, let inner), .index(let inner, _): return isClosed(inner)
        case .evaluatedObject, .keyPath, .member, .variable, .subquery, .function, .fetch: return false
        // Evaluated in memory: a store's SQL has no form for them (see `Docs/Decisions.md`).
        case .builtInFunction, .ternary, .anyKey, .setOperation: return false
        }
    }

    /// The value of a closed operand as a constant, computed by the evaluator; nil for other operands.
    func closedValue(_ operand: PredicateOperand) -> PredicateConstant? {
        guard isClosed(operand) else { return nil }
        if case .constant(let constant) = operand { return constant }
        return PredicateConstant(argument: operand.value(for: nil))
    }

    /// A constant bound as a parameter, in the dialect's encoding of the constant's own type (see
    /// `SQLDialect.encode(_:as:externalStorage:)`); nil when it has none. Saved objects bind their key.
    func constant(_ constant: PredicateConstant, kind: Kind) -> Expression? {
        let value: SQLValue?, type: NSAttributeType
        switch constant {
        case .object(let object):
            guard let key = (object.object as? StoredObjectReference)?.storedObjectKey else { return nil }
            (value, type) = (.integer(key.primaryKey), .integer64AttributeType)
        case .bool(let b): (value, type) = (encode(Int64(b ? 1 : 0), .integer64AttributeType), .integer64AttributeType)
        case .integer(let i): (value, type) = (encode(i, .integer64AttributeType), .integer64AttributeType)
        case .double(let d): (value, type) = (encode(d, .doubleAttributeType), .doubleAttributeType)
        case .decimal(let d): (value, type) = (encode(NSDecimalNumber(decimal: d).doubleValue, .doubleAttributeType), .doubleAttributeType)
        case .string(let s): (value, type) = (encode(s, .stringAttributeType), .stringAttributeType)
        case .date(let d): (value, type) = (encode(d, .dateAttributeType), .dateAttributeType)
        case .data(let d): (value, type) = (encode(d, .binaryDataAttributeType), .binaryDataAttributeType)
        case .uuid(let u): (value, type) = (encode(u, .UUIDAttributeType), .UUIDAttributeType)
        case .url(let u): (value, type) = (encode(u, .URIAttributeType), .URIAttributeType)
        case .null, .collection, .opaque: return nil
        }
        guard let value else { return nil }
        return Expression(sql: bind(value, type: type), kind: kind, entity: objectEntity(constant), isConstant: true)
    }

    private func encode(_ value: Any, _ type: NSAttributeType) -> SQLValue? {
        dialect.encode(value, as: type, externalStorage: false)
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
            return self.constant(constant, kind: kind)
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

import CoreDataStoreKit

/// Translates predicate trees and sort descriptors into SQL over Apple's schema, with every value bound as a
/// numbered parameter.
///
/// What translates: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN`) of attributes and key
/// paths through to-one relationships (as `LEFT JOIN`s); string operators `BEGINSWITH`, `ENDSWITH`,
/// `CONTAINS`, `LIKE`, `MATCHES` with `[c]`/`[d]` (through the registered `NSCoreDataFold` and
/// `NSCoreDataMatches` functions); `ANY`/`ALL`/`NONE` over to-many key paths and `SUBQUERY` as `EXISTS`
/// subqueries; `@count`, `@sum`, `@avg`, `@min`, `@max` as scalar subqueries; comparisons with objects and
/// `SELF`; `AND`, `OR`, `NOT`, `TRUEPREDICATE`. SQL's NULL logic is made to agree with the in-memory
/// evaluator (a comparison with nil is false, also under `NOT`).
///
/// Anything else (block predicates, arithmetic, casts, key paths it cannot resolve) makes `compile` return
/// nil for that part: the caller evaluates it in memory after the SQL narrows the rows.
final class SQLitePredicateCompiler {
    /// A table in scope: its alias and the entity its rows are.
    final class Scope {
        let alias: String
        let entity: NSEntityDescription
        /// `LEFT JOIN`s this scope needs, in order.
        var joins: [String] = []
        var joinAliases: [String: (alias: String, entity: NSEntityDescription)] = [:]

        init(alias: String, entity: NSEntityDescription) {
            self.alias = alias
            self.entity = entity
        }
    }

    /// A translated operand.
    struct Expression {
        var sql: String
        /// The attribute type of a column, when the expression is one (decides how constants are bound).
        var type: NSAttributeType?
        /// Whether the expression is a primary key or a to-one foreign key (compared with objects).
        var isObject = false
    }

    let schema: SQLiteSchema
    private(set) var bindings: [SQLiteValue] = []
    private var aliasCounter = 0
    private var variables: [String: Scope] = [:]

    init(schema: SQLiteSchema) { self.schema = schema }

    func newAlias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    /// A numbered parameter holding `value`.
    func bind(_ value: SQLiteValue) -> String {
        bindings.append(value)
        return "?\(bindings.count)"
    }

    // MARK: Predicates

    /// The SQL condition for `node`, or nil when some part of it does not translate.
    func compile(_ node: PredicateNode, in scope: Scope) -> String? {
        switch node {
        case .constant(let value): return value ? "1" : "0"
        case .and(let items):
            if items.isEmpty { return "1" }
            var parts: [String] = []
            for item in items { guard let sql = compile(item, in: scope) else { return nil }; parts.append(sql) }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .or(let items):
            if items.isEmpty { return "0" }
            var parts: [String] = []
            for item in items { guard let sql = compile(item, in: scope) else { return nil }; parts.append(sql) }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .not(let inner):
            guard let sql = compile(inner, in: scope) else { return nil }
            return "(NOT IFNULL(\(sql), 0))"
        case .comparison(let comparison): return compile(comparison, in: scope)
        case .block: return nil
        }
    }

    private func compile(_ c: PredicateComparison, in scope: Scope) -> String? {
        if c.modifier != .direct || isToManyPath(c.lhs, in: scope) {
            return compileCollection(c, in: scope)
        }
        // `x IN toManyKeyPath` and `toManyKeyPath CONTAINS x`: membership of an object in a relationship.
        if c.operator == .in, isToManyPath(c.rhs, in: scope) {
            return membership(collection: c.rhs, element: c.lhs, in: scope)
        }
        guard let lhs = operand(c.lhs, in: scope) else { return nil }
        return compare(lhs, c.operator, c.rhs, c.options, in: scope)
    }

    /// `ANY`/`ALL`/`NONE` (or a bare to-many key path, treated as `ANY`) as `EXISTS` over the destination rows.
    private func compileCollection(_ c: PredicateComparison, in scope: Scope) -> String? {
        guard case .keyPath(let path) = c.lhs else { return nil }
        guard let (inner, from, link, rest) = toManyScope(path, in: scope) else { return nil }
        if c.operator == .contains, rest.isEmpty, c.modifier == .direct {
            return membership(collection: c.lhs, element: c.rhs, in: scope)
        }
        let valueExpression: Expression
        if rest.isEmpty {
            valueExpression = Expression(sql: "\(inner.alias).Z_PK", type: nil, isObject: true)
        } else {
            guard let resolved = keyPath(rest, in: inner) else { return nil }
            valueExpression = resolved
        }
        guard let condition = compare(valueExpression, c.operator, c.rhs, c.options, in: inner) else { return nil }
        let body = "SELECT 1 FROM \(from) \(inner.joins.joined(separator: " ")) WHERE \(link)"
        switch c.modifier {
        case .all: return "(NOT EXISTS (\(body) AND NOT IFNULL(\(condition), 0)))"
        case .none: return "(NOT EXISTS (\(body) AND \(condition)))"
        default: return "(EXISTS (\(body) AND \(condition)))"
        }
    }

    private func membership(collection: PredicateOperand, element: PredicateOperand, in scope: Scope) -> String? {
        guard case .keyPath(let path) = collection, let (inner, from, link, rest) = toManyScope(path, in: scope), rest.isEmpty else { return nil }
        guard let condition = compare(Expression(sql: "\(inner.alias).Z_PK", isObject: true), .equalTo, element, [], in: inner) else { return nil }
        return "(EXISTS (SELECT 1 FROM \(from) \(inner.joins.joined(separator: " ")) WHERE \(link) AND \(condition)))"
    }

    /// `lhs op rhs` for a translated left side.
    private func compare(_ lhs: Expression, _ op: PredicateComparison.Operator, _ rhsOperand: PredicateOperand,
                         _ options: PredicateComparison.Options, in scope: Scope) -> String? {
        let folding = options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
        func fold(_ sql: String) -> String { folding == 0 ? sql : "NSCoreDataFold(\(sql), \(folding))" }
        switch op {
        case .in:
            if case .constant(.collection(let items)) = rhsOperand {
                if items.isEmpty { return "0" }
                var parts: [String] = []
                for item in items {
                    guard let value = self.constant(item, as: lhs) else { return nil }
                    if case .null = value { continue }
                    parts.append(fold(bind(value)))
                }
                if parts.isEmpty { return "0" }
                return "(\(fold(lhs.sql)) IN (\(parts.joined(separator: ", "))))"
            }
            if case .constant(.string(let text)) = rhsOperand {
                return "(instr(\(fold(bind(.text(text)))), \(fold(lhs.sql))) > 0)"
            }
            return nil
        case .between:
            let bounds: [PredicateOperand]
            switch rhsOperand {
            case .array(let items): bounds = items
            case .constant(.collection(let items)): bounds = items.map { .constant($0) }
            default: return nil
            }
            guard bounds.count == 2, let low = value(bounds[0], as: lhs, in: scope), let high = value(bounds[1], as: lhs, in: scope) else { return nil }
            return "(\(lhs.sql) BETWEEN \(low) AND \(high))"
        default: break
        }
        guard let rhs = value(rhsOperand, as: lhs, in: scope) else { return nil }
        let isNull = rhs == "NULL"
        switch op {
        case .equalTo: return isNull ? "(\(lhs.sql) IS NULL)" : "(\(fold(lhs.sql)) = \(fold(rhs)))"
        case .notEqualTo: return isNull ? "(\(lhs.sql) IS NOT NULL)" : "(\(fold(lhs.sql)) IS NOT \(fold(rhs)))"
        case .lessThan: return "(\(fold(lhs.sql)) < \(fold(rhs)))"
        case .lessThanOrEqualTo: return "(\(fold(lhs.sql)) <= \(fold(rhs)))"
        case .greaterThan: return "(\(fold(lhs.sql)) > \(fold(rhs)))"
        case .greaterThanOrEqualTo: return "(\(fold(lhs.sql)) >= \(fold(rhs)))"
        case .beginsWith: return "(substr(\(fold(lhs.sql)), 1, length(\(fold(rhs)))) = \(fold(rhs)))"
        case .endsWith: return "(length(\(fold(rhs))) = 0 OR substr(\(fold(lhs.sql)), -length(\(fold(rhs)))) = \(fold(rhs)))"
        case .contains: return "(instr(\(fold(lhs.sql)), \(fold(rhs))) > 0)"
        case .matches:
            // The pattern is matched as given; [c]/[d] fold the text and the pattern alike.
            return "(NSCoreDataMatches(\(fold(lhs.sql)), \(fold(rhs))) = 1)"
        case .like:
            guard case .constant(.string(let pattern)) = rhsOperand, !pattern.contains("\\") else { return nil }
            // LIKE's * and ? become GLOB's; GLOB's own [ is escaped.
            let glob = pattern.replacingOccurrences(of: "[", with: "[[]")
            let bound = bind(.text(folding == 0 ? glob : SQLiteFunctions.fold(glob, folding)))
            return "(\(fold(lhs.sql)) GLOB \(bound))"
        default: return nil
        }
    }

    /// The SQL for a right-hand operand: a bound constant (converted to the left column's encoding), or
    /// another translated operand. "NULL" for nil.
    private func value(_ operand: PredicateOperand, as lhs: Expression, in scope: Scope) -> String? {
        if case .constant(let constant) = operand {
            guard let value = self.constant(constant, as: lhs) else { return nil }
            if case .null = value { return "NULL" }
            return bind(value)
        }
        return self.operand(operand, in: scope)?.sql
    }

    /// A constant in the encoding of the column it is compared with.
    private func constant(_ constant: PredicateConstant, as lhs: Expression) -> SQLiteValue? {
        switch constant {
        case .null: return .null
        case .object(let object):
            guard let key = (object.object as? StoredObjectReference)?.storedObjectKey else { return nil }
            return .integer(key.primaryKey)
        case .bool(let b): return .integer(b ? 1 : 0)
        case .integer(let i):
            if lhs.type == .dateAttributeType { return .real(Double(i)) }
            return .integer(i)
        case .double(let d): return .real(d)
        case .decimal(let d): return .real(NSDecimalNumber(decimal: d).doubleValue)
        case .string(let s):
            switch lhs.type {
            case .UUIDAttributeType?: return UUID(uuidString: s).flatMap { SQLValueCoding.encode($0, as: .UUIDAttributeType) }
            default: return .text(s)
            }
        case .date(let d): return .real(d.timeIntervalSinceReferenceDate)
        case .data(let d): return .blob(d)
        case .uuid(let u): return SQLValueCoding.encode(u, as: .UUIDAttributeType)
        case .url(let u): return .text(u.absoluteString)
        case .collection, .opaque: return nil
        }
    }

    // MARK: Operands

    /// A translated operand, or nil.
    func operand(_ operand: PredicateOperand, in scope: Scope) -> Expression? {
        switch operand {
        case .evaluatedObject: return Expression(sql: "\(scope.alias).Z_PK", isObject: true)
        case .keyPath(let path): return keyPath(path, in: scope)
        case .variable(let name):
            guard let bound = variables[name] else { return nil }
            return Expression(sql: "\(bound.alias).Z_PK", isObject: true)
        case .member(.variable(let name), let path):
            guard let bound = variables[name] else { return nil }
            return keyPath(path, in: bound)
        case .aggregate(let aggregate, let inner): return self.aggregate(aggregate, inner, in: scope)
        case .constant(let constant):
            guard let value = self.constant(constant, as: Expression(sql: "")) else { return nil }
            if case .null = value { return Expression(sql: "NULL") }
            return Expression(sql: bind(value))
        default: return nil
        }
    }

    /// A key path of attributes and to-one relationships, joining each to-one once per scope.
    func keyPath(_ path: [String], in scope: Scope) -> Expression? {
        var alias = scope.alias
        var entity = scope.entity
        var prefix = ""
        for (index, name) in path.enumerated() {
            let isLast = index == path.count - 1
            guard let property = entity.propertiesByName[name], !property.isTransient, let table = schema.table(for: entity) else { return nil }
            if let attribute = property as? NSAttributeDescription {
                guard isLast, let column = table.column(for: attribute) else { return nil }
                return Expression(sql: "\(alias).\(column)", type: attribute.attributeType)
            }
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                  let column = table.column(for: relationship), let destination = relationship.destinationEntity,
                  let destinationTable = schema.table(for: destination) else { return nil }
            if isLast { return Expression(sql: "\(alias).\(column)", isObject: true) }
            prefix += name + "."
            if let joined = scope.joinAliases[prefix] {
                alias = joined.alias
            } else {
                let next = newAlias()
                scope.joins.append("LEFT JOIN \(q(destinationTable.name)) \(next) ON \(next).Z_PK = \(alias).\(column)")
                scope.joinAliases[prefix] = (next, destination)
                alias = next
            }
            entity = destination
        }
        return nil
    }

    /// Whether an operand is a key path that crosses a to-many relationship.
    private func isToManyPath(_ operand: PredicateOperand, in scope: Scope) -> Bool {
        guard case .keyPath(let path) = operand else { return false }
        var entity = scope.entity
        for name in path {
            guard let relationship = entity.relationshipsByName[name], let destination = relationship.destinationEntity else { return false }
            if relationship.isToMany { return true }
            entity = destination
        }
        return false
    }

    /// For a key path `a.b.items.c`: a new scope over the destination rows of the first to-many on the path,
    /// the FROM clause, the condition linking them to the outer row, and the rest of the path.
    private func toManyScope(_ path: [String], in scope: Scope) -> (Scope, String, String, [String])? {
        var entity = scope.entity
        for (index, name) in path.enumerated() {
            guard let relationship = entity.relationshipsByName[name], let destination = relationship.destinationEntity else { return nil }
            guard relationship.isToMany else { entity = destination; continue }
            let ownerKey: Expression
            if index == 0 {
                ownerKey = Expression(sql: "\(scope.alias).Z_PK", isObject: true)
            } else {
                guard let key = keyPath(Array(path[..<index]), in: scope) else { return nil }
                ownerKey = key
            }
            guard let destinationTable = schema.table(for: destination), let storage = schema.storage(of: relationship) else { return nil }
            let inner = Scope(alias: newAlias(), entity: destination)
            switch storage {
            case .inverseForeignKey(let inverse):
                guard let column = destinationTable.column(for: inverse) else { return nil }
                return (inner, "\(q(destinationTable.name)) \(inner.alias)", "\(inner.alias).\(column) = \(ownerKey.sql)", Array(path[(index + 1)...]))
            case .joinTable(let join, let ownerColumn, let destinationColumn, _):
                let joinAlias = newAlias()
                let from = "\(q(join.name)) \(joinAlias) JOIN \(q(destinationTable.name)) \(inner.alias) ON \(inner.alias).Z_PK = \(joinAlias).\(q(destinationColumn))"
                return (inner, from, "\(joinAlias).\(q(ownerColumn)) = \(ownerKey.sql)", Array(path[(index + 1)...]))
            }
        }
        return nil
    }

    private func aggregate(_ aggregate: PredicateOperand.Aggregate, _ inner: PredicateOperand, in scope: Scope) -> Expression? {
        switch inner {
        case .keyPath(let path):
            guard let (subscope, from, link, rest) = toManyScope(path, in: scope) else { return nil }
            let valueSQL: String
            var type: NSAttributeType? = nil
            if rest.isEmpty {
                guard aggregate == .count else { return nil }
                valueSQL = "*"
            } else {
                guard let value = keyPath(rest, in: subscope) else { return nil }
                valueSQL = value.sql
                type = value.type
            }
            let function: String
            switch aggregate {
            case .count: function = "COUNT"
            case .sum: function = "TOTAL"
            case .average: function = "AVG"
            case .min: function = "MIN"
            case .max: function = "MAX"
            }
            let resultType: NSAttributeType? = aggregate == .count ? .integer64AttributeType : (aggregate == .sum || aggregate == .average ? .doubleAttributeType : type)
            return Expression(sql: "(SELECT \(function)(\(valueSQL)) FROM \(from) \(subscope.joins.joined(separator: " ")) WHERE \(link))", type: resultType)
        case .subquery(let collection, let variable, let predicate):
            guard aggregate == .count, case .keyPath(let path) = collection,
                  let (subscope, from, link, rest) = toManyScope(path, in: scope), rest.isEmpty else { return nil }
            let saved = variables[variable]
            variables[variable] = subscope
            defer { variables[variable] = saved }
            guard let condition = compile(predicate, in: subscope) else { return nil }
            return Expression(sql: "(SELECT COUNT(*) FROM \(from) \(subscope.joins.joined(separator: " ")) WHERE \(link) AND \(condition))",
                              type: .integer64AttributeType)
        default:
            return nil
        }
    }

    // MARK: Sorting

    /// `ORDER BY` terms for sort descriptors, or nil when one of them must be sorted in memory (a comparator,
    /// a localized comparison, a key that is not an attribute or to-one path).
    func orderBy(_ descriptors: [NSSortDescriptor], in scope: Scope) -> [String]? {
        var terms: [String] = []
        for descriptor in descriptors {
            guard !descriptor.usesCustomComparator, let key = descriptor.key else { return nil }
            guard let expression = keyPath(key.split(separator: ".").map(String.init), in: scope) else { return nil }
            let direction = descriptor.ascending ? "ASC" : "DESC"
            switch descriptor.comparison {
            case .compare: terms.append("\(expression.sql) \(direction)")
            case .caseInsensitiveCompare: terms.append("NSCoreDataFold(\(expression.sql), 1) \(direction)")
            default: return nil
            }
        }
        return terms
    }
}

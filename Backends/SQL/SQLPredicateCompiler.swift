import CoreDataStoreKit

/// Translates predicate trees and sort descriptors into SQL over Apple's table layout (`SQLSchema`), spelled
/// in the schema's dialect, with every value bound as a numbered parameter.
///
/// Guarantee: one predicate, one meaning. A condition this compiler returns selects exactly the rows for which
/// the in-memory evaluator (`NSPredicate.evaluate(with:)`) is true, and when it cannot promise that for some
/// part of a node it returns nil for the whole node, leaving nothing behind (no bound value, no join): the
/// caller evaluates that node in memory on the rows the rest of the SQL selected. The conformance case
/// `fetch/predicates-agree-with-evaluate` checks this on a few thousand generated predicates.
///
/// What translates: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN` lists and `IN` substrings)
/// of attributes and key paths through to-one relationships (as `LEFT JOIN`s), with constants on either side;
/// string operators `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` (SQLite: as `GLOB`), `MATCHES` with `[c]`/`[d]`
/// (through the dialect's `fold` and `matches`, in SQLite the registered `NSCoreDataFold` and
/// `NSCoreDataMatches` functions, which call the evaluator's own string code; a dialect without them leaves
/// these to memory); `ANY`/`ALL`/`NONE` over to-many key paths, `CONTAINS` on them and `IN` them as `EXISTS`
/// subqueries; `@count`, `@sum`, `@avg`, `@min`, `@max` and `SUBQUERY(…).@count` as scalar subqueries;
/// comparisons with objects and `SELF`; `AND`, `OR`, `NOT`, `TRUEPREDICATE`; comparisons that read nothing
/// from the object (evaluated once, here). Values of different kinds (a number and a string, a date and a
/// number) are never equal and never ordered, as in memory, so such comparisons become constants. SQL's NULL
/// logic agrees with the evaluator: a comparison with nil is false, also under `NOT`.
///
/// What does not (evaluated in memory): block predicates, key paths through two to-manys or that are not
/// stored properties, a to-many key path compared without a quantifier (it compares the collection itself),
/// `LIKE` with a pattern that is not a constant or holds a backslash, operands of types it cannot encode, and
/// whatever the dialect declines (`SQLDialect.fold`, `matches`, `aggregate` returning nil).
///
/// Every condition it returns is a Boolean expression (`TRUE` and `FALSE` for constants), valid where SQL
/// requires a condition. Parameters are numbered from 1 in the order of `bindings`.
public final class SQLPredicateCompiler {
    /// A table in scope: its alias and the entity its rows are, and the joins its key paths needed.
    public final class Scope {
        /// The table alias, such as `t0`.
        public let alias: String
        /// The entity whose rows the alias ranges over.
        public let entity: NSEntityDescription
        /// `LEFT JOIN`s this scope needs, in order; a FROM clause that uses the scope appends them.
        public internal(set) var joins: [String] = []
        var joinAliases: [String: (alias: String, entity: NSEntityDescription)] = [:]

        /// A scope over the rows of `entity` under `alias`. The aliases the compiler makes are `t1`, `t2`, …,
        /// so the outermost scope is usually `t0`.
        public init(alias: String, entity: NSEntityDescription) {
            self.alias = alias
            self.entity = entity
        }
    }

    /// What kind of value an operand is, as the evaluator compares them: values of two different kinds are
    /// never equal and never ordered.
    enum Kind: Equatable {
        case number, string, date, data, uuid, url, object, collection, null

        /// The kind of an attribute's values; nil for types the compiler does not compare (transformable, …).
        init?(_ type: NSAttributeType) {
            switch type {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
                 .doubleAttributeType, .floatAttributeType, .booleanAttributeType: self = .number
            case .stringAttributeType: self = .string
            case .dateAttributeType: self = .date
            case .binaryDataAttributeType: self = .data
            case .UUIDAttributeType: self = .uuid
            case .URIAttributeType: self = .url
            default: return nil
            }
        }

        /// The kind of a constant; nil for values of a type the language does not know.
        init?(_ constant: PredicateConstant) {
            switch constant {
            case .null: self = .null
            case .bool, .integer, .double, .decimal: self = .number
            case .string: self = .string
            case .date: self = .date
            case .data: self = .data
            case .uuid: self = .uuid
            case .url: self = .url
            case .object: self = .object
            case .collection: self = .collection
            case .opaque: return nil
            }
        }

        /// Whether `<`, `>`, `BETWEEN` order values of this kind.
        var isOrdered: Bool { self != .object && self != .collection && self != .null }

        /// Whether values of this kind are text in SQL, ordered through `SQLDialect.orderedByCodePoint(_:)`.
        var isText: Bool { self == .string || self == .url }
    }

    /// A translated operand.
    struct Expression {
        var sql: String
        /// The kind of its values, or nil when unknown (then it is only compared with nil).
        var kind: Kind?
        /// For objects: the entity whose rows the expression's keys name.
        var entity: NSEntityDescription?
        /// Whether it is a constant (a bound value or `NULL`) rather than read from rows.
        var isConstant = false
        /// For an attribute read from a column: its type.
        var attributeType: NSAttributeType?
    }

    /// The tables compiled against; its dialect spells the SQL.
    public let schema: SQLSchema
    let dialect: any SQLDialect
    /// The values of the parameters the SQL returned so far uses, in parameter order.
    public private(set) var bindings: [SQLValue] = []
    private var aliasCounter = 0
    /// The scopes `SUBQUERY` variables range over, while their subquery is compiled.
    var variables: [String: Scope] = [:]

    /// A compiler with no bindings yet, writing in `schema.dialect`.
    public init(schema: SQLSchema) {
        self.schema = schema
        dialect = schema.dialect
    }

    func newAlias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    /// A new parameter holding `value`, encoded as `type` (see `SQLDialect.placeholder(_:for:type:)`); returns
    /// its placeholder.
    public func bind(_ value: SQLValue, type: NSAttributeType?) -> String {
        bindings.append(value)
        return dialect.placeholder(bindings.count, for: value, type: type)
    }

    /// The SQL constants for true and false, and whether a condition is one of them.
    static let trueSQL = "TRUE", falseSQL = "FALSE"
    static func sql(_ value: Bool) -> String { value ? trueSQL : falseSQL }
    static func isConstant(_ sql: String?) -> Bool { sql == trueSQL || sql == falseSQL }

    /// What a fragment has added so far: bound values and the joins of its scope.
    struct Mark {
        let bindings: Int
        let joins: Int
        let joinAliases: [String: (alias: String, entity: NSEntityDescription)]
    }

    func mark(_ scope: Scope) -> Mark {
        Mark(bindings: bindings.count, joins: scope.joins.count, joinAliases: scope.joinAliases)
    }

    /// Forgets the bound values and joins added since `mark`, for a fragment that is not used.
    func rollBack(to mark: Mark, in scope: Scope) {
        bindings.removeSubrange(mark.bindings...)
        scope.joins.removeSubrange(mark.joins...)
        scope.joinAliases = mark.joinAliases
    }

    // MARK: Predicates

    /// The SQL condition for `node`, or nil when some part of it does not translate exactly; then nothing of
    /// it is left behind (no bound value, no join) and the caller evaluates the whole node in memory. The
    /// condition's joins are added to `scope.joins`, its values to `bindings`.
    public func compile(_ node: PredicateNode, in scope: Scope) -> String? {
        let start = mark(scope)
        guard let sql = translate(node, in: scope) else {
            rollBack(to: start, in: scope)
            return nil
        }
        return sql
    }

    private func translate(_ node: PredicateNode, in scope: Scope) -> String? {
        switch node {
        case .constant(let value): return Self.sql(value)
        case .and(let items):
            if items.isEmpty { return Self.trueSQL }
            var parts: [String] = []
            for item in items { guard let sql = translate(item, in: scope) else { return nil }; parts.append(sql) }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .or(let items):
            if items.isEmpty { return Self.falseSQL }
            var parts: [String] = []
            for item in items { guard let sql = translate(item, in: scope) else { return nil }; parts.append(sql) }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .not(let inner):
            guard let sql = translate(inner, in: scope) else { return nil }
            return "(NOT COALESCE(\(sql), FALSE))"
        case .comparison(let comparison):
            // A comparison that comes out constant uses none of the values it bound on the way.
            let start = mark(scope)
            guard let sql = translate(comparison, in: scope) else { return nil }
            if Self.isConstant(sql) { rollBack(to: start, in: scope) }
            return sql
        case .block: return nil
        }
    }

    /// One comparison, routed by the shape of its operands.
    private func translate(_ c: PredicateComparison, in scope: Scope) -> String? {
        // Nothing read from the object: the comparison has one value for every row.
        if isClosed(c.lhs) && isClosed(c.rhs) { return Self.sql(PredicateNode.comparison(c).evaluate(with: nil)) }
        if c.modifier != .direct { return quantified(c, in: scope) }
        if isToManyPath(c.lhs, in: scope) {
            // `items CONTAINS x`, `items.name CONTAINS x`: x is one of the collection's elements. Any other
            // comparison compares the collection itself, which only the evaluator does.
            guard c.operator == .contains else { return nil }
            return quantified(PredicateComparison(c.lhs, .equalTo, c.rhs, modifier: .any, options: c.options), in: scope)
        }
        if isToManyPath(c.rhs, in: scope) {
            guard c.operator == .in else { return nil }
            return quantified(PredicateComparison(c.rhs, .equalTo, c.lhs, modifier: .any, options: c.options), in: scope)
        }
        if isClosed(c.lhs), let mirrored = Self.mirrored(c.operator) {
            // `5 < rank` is `rank > 5`; `'abc' CONTAINS name` is `name IN 'abc'` (one membership test).
            guard let rhs = operand(c.rhs, in: scope) else { return nil }
            return compare(rhs, mirrored, c.lhs, c.options, in: scope)
        }
        guard let lhs = operand(c.lhs, in: scope) else { return nil }
        return compare(lhs, c.operator, c.rhs, c.options, in: scope)
    }

    /// The operator with its sides swapped, for the operators that have one.
    private static func mirrored(_ op: PredicateComparison.Operator) -> PredicateComparison.Operator? {
        switch op {
        case .equalTo, .notEqualTo: return op
        case .contains: return .in
        case .in: return .contains
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        default: return nil
        }
    }

    /// `ANY`/`ALL`/`NONE` over a to-many key path as `EXISTS` over the destination rows; the right side is
    /// read from the outer row.
    private func quantified(_ c: PredicateComparison, in scope: Scope) -> String? {
        guard case .keyPath(let path) = c.lhs, let (inner, from, link, rest) = toManyScope(path, in: scope) else { return nil }
        let element: Expression
        if rest.isEmpty {
            element = Expression(sql: "\(inner.alias).Z_PK", kind: .object, entity: inner.entity)
        } else {
            guard let resolved = keyPath(rest, in: inner) else { return nil }
            element = resolved
        }
        guard let condition = compare(element, c.operator, c.rhs, c.options, in: scope) else { return nil }
        let body = "SELECT 1 FROM \(from) \(inner.joins.joined(separator: " ")) WHERE \(link)"
        switch c.modifier {
        case .all: return "(NOT EXISTS (\(body) AND NOT COALESCE(\(condition), FALSE)))"
        case .none: return "(NOT EXISTS (\(body) AND \(condition)))"
        default: return "(EXISTS (\(body) AND \(condition)))"
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
            if let composite = property as? NSCompositeAttributeDescription {
                // `location.latitude`: the leaf's own column; a whole composite has no one column.
                guard !isLast, let leaf = table.column(forLeaf: path[(index + 1)...], of: composite) else { return nil }
                return Expression(sql: dialect.readExpression("\(alias).\(leaf.name)", type: leaf.type),
                                  kind: Kind(leaf.type), attributeType: leaf.type)
            }
            if let attribute = property as? NSAttributeDescription {
                guard isLast, let column = table.column(for: attribute) else { return nil }
                return Expression(sql: dialect.readExpression("\(alias).\(column)", type: attribute.attributeType),
                                  kind: Kind(attribute.attributeType), attributeType: attribute.attributeType)
            }
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                  let column = table.column(for: relationship), let destination = relationship.destinationEntity,
                  let destinationTable = schema.table(for: destination) else { return nil }
            if isLast { return Expression(sql: "\(alias).\(column)", kind: .object, entity: destination) }
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
                ownerKey = Expression(sql: "\(scope.alias).Z_PK", kind: .object, entity: scope.entity)
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

    func aggregate(_ aggregate: PredicateOperand.Aggregate, _ inner: PredicateOperand, in scope: Scope) -> Expression? {
        switch inner {
        case .keyPath(let path):
            guard let (subscope, from, link, rest) = toManyScope(path, in: scope) else { return nil }
            // `@count` counts the elements, nils included, as the evaluator does; `@sum` and `@avg` take numbers
            // only (SQL would read numbers out of strings); `@min` and `@max` values of one known kind.
            var valueSQL = "*"
            var valueType: NSAttributeType?
            var kind = Kind.number
            if aggregate == .count {
                if !rest.isEmpty { guard keyPath(rest, in: subscope) != nil else { return nil } }
            } else {
                guard !rest.isEmpty, let value = keyPath(rest, in: subscope), let valueKind = value.kind, valueKind.isOrdered else { return nil }
                if aggregate == .sum || aggregate == .average { guard valueKind == .number else { return nil } }
                valueSQL = valueKind.isText ? dialect.orderedByCodePoint(value.sql) : value.sql
                valueType = value.attributeType
                kind = valueKind
            }
            guard let function = dialect.aggregate(aggregate, of: valueSQL, type: valueType) else { return nil }
            return Expression(sql: "(SELECT \(function) FROM \(from) \(subscope.joins.joined(separator: " ")) WHERE \(link))", kind: kind)
        case .subquery(let collection, let variable, let predicate):
            guard aggregate == .count, case .keyPath(let path) = collection,
                  let (subscope, from, link, rest) = toManyScope(path, in: scope), rest.isEmpty else { return nil }
            let saved = variables[variable]
            variables[variable] = subscope
            defer { variables[variable] = saved }
            guard let condition = compile(predicate, in: subscope) else { return nil }
            return Expression(sql: "(SELECT COUNT(*) FROM \(from) \(subscope.joins.joined(separator: " ")) WHERE \(link) AND \(condition))",
                              kind: .number)
        default:
            return nil
        }
    }

    // MARK: Sorting

    /// `ORDER BY` terms for sort descriptors, or nil when one of them must be sorted in memory (a comparator,
    /// a localized comparison, a key that is not an attribute or to-one path, a case-insensitive comparison
    /// in a dialect that cannot fold). Joins the key paths need are added to `scope.joins`.
    public func orderBy(_ descriptors: [NSSortDescriptor], in scope: Scope) -> [String]? {
        var terms: [String] = []
        for descriptor in descriptors {
            guard !descriptor.usesCustomComparator, let key = descriptor.key else { return nil }
            guard let expression = keyPath(key.split(separator: ".").map(String.init), in: scope) else { return nil }
            var sql: String
            switch descriptor.comparison {
            case .compare: sql = expression.sql
            case .caseInsensitiveCompare:
                guard let folded = dialect.fold(expression.sql, .caseInsensitive) else { return nil }
                sql = folded
            default: return nil
            }
            if expression.kind?.isText == true { sql = dialect.orderedByCodePoint(sql) }
            terms.append(dialect.orderTerm(sql, ascending: descriptor.ascending))
        }
        return terms
    }
}

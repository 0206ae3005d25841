import CoreDataSQL
import CoreDataStoreKit

/// How PostgreSQL spells what the shared schema and predicate compiler write (see `SQLDialect` for the
/// promise each requirement keeps; the column types are listed in Docs/PostgreSQLStore.md).
///
/// Every parameter carries its type (`$1::bigint`), since PostgreSQL cannot infer it inside functions such as
/// `char_length($1)`. Booleans are compared as 0 and 1, strings and URLs ordered by code point
/// (`COLLATE "C"`), NULL sorts first ascending, as in memory. PostgreSQL cannot run the evaluator's Unicode
/// folding or regular expressions, so `[c]`/`[d]` comparisons, `MATCHES` and case-insensitive sorts are
/// left to memory; so are `@min`/`@max` of UUIDs and binary data, which PostgreSQL does not aggregate.
struct PostgreSQLDialect: SQLDialect {
    func columnType(of type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType: return "SMALLINT"
        case .integer32AttributeType: return "INTEGER"
        case .integer64AttributeType: return "BIGINT"
        case .booleanAttributeType: return "BOOLEAN"
        case .dateAttributeType: return "TIMESTAMP WITH TIME ZONE"
        case .doubleAttributeType: return "DOUBLE PRECISION"
        case .floatAttributeType: return "REAL"
        case .decimalAttributeType: return "NUMERIC"
        case .UUIDAttributeType: return "UUID"
        case .binaryDataAttributeType, .transformableAttributeType: return "BYTEA"
        default: return "TEXT"
        }
    }

    var keyColumnType: String { "BIGINT" }

    var primaryKeyColumnType: String { "BIGINT PRIMARY KEY" }

    func indexKey(_ column: String, type: NSAttributeType?, ascending: Bool) -> String {
        let key = Self.isText(type) ? "\(column) COLLATE \"C\"" : column
        return key + (ascending ? " ASC" : " DESC")
    }

    // MARK: Values

    /// Constants as the compiler compares them: numbers as integers or doubles (Booleans as 0 and 1, as
    /// `readExpression` reads Boolean columns), dates as `timestamptz` text (to the microsecond), UUIDs as
    /// their text, decimals as their exact text.
    func encode(_ value: Any?, as type: NSAttributeType, externalStorage: Bool) -> SQLValue? {
        guard let value, !(value is NSNull) else { return .null }
        guard let coerced = AttributeValueCoercion.coerce(value, to: type), let plain = coerced else { return nil }
        switch (type, plain) {
        case (.integer16AttributeType, let v as Int16): return .integer(Int64(v))
        case (.integer32AttributeType, let v as Int32): return .integer(Int64(v))
        case (.integer64AttributeType, let v as Int64): return .integer(v)
        case (.booleanAttributeType, let v as Bool): return .integer(v ? 1 : 0)
        case (.doubleAttributeType, let v as Double): return .real(v)
        case (.floatAttributeType, let v as Float): return .real(Double(v))
        case (.decimalAttributeType, let v as Decimal): return .text(v.isNaN ? "NaN" : v.description)
        case (.dateAttributeType, let v as Date): return PostgreSQLText.format(v).map { .text($0) }
        case (.stringAttributeType, let v as String), (.objectIDAttributeType, let v as String): return .text(v)
        case (.URIAttributeType, let v as URL): return .text(v.absoluteString)
        case (.UUIDAttributeType, let v as UUID): return .text(v.uuidString)
        case (.binaryDataAttributeType, let v as Data), (.transformableAttributeType, let v as Data): return .blob(v)
        default: return nil
        }
    }

    func placeholder(_ number: Int, for value: SQLValue, type: NSAttributeType?) -> String {
        "$\(number)::" + (type.map(Self.parameterType(of:)) ?? Self.parameterType(of: value))
    }

    /// The parameter type of constants encoded as `type`.
    private static func parameterType(of type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return "bigint"
        case .doubleAttributeType, .floatAttributeType: return "float8"
        case .decimalAttributeType: return "numeric"
        case .dateAttributeType: return "timestamptz"
        case .UUIDAttributeType: return "uuid"
        case .binaryDataAttributeType, .transformableAttributeType: return "bytea"
        default: return "text"
        }
    }

    /// The parameter type of a value whose attribute type is unknown.
    private static func parameterType(of value: SQLValue) -> String {
        switch value {
        case .integer: return "bigint"
        case .real: return "float8"
        case .blob: return "bytea"
        case .text, .null: return "text"
        }
    }

    func readExpression(_ columnSQL: String, type: NSAttributeType) -> String {
        type == .booleanAttributeType ? "(\(columnSQL))::integer" : columnSQL
    }

    // MARK: Comparing and ordering

    func nullSafeEqual(_ lhs: String, _ rhs: String, negated: Bool) -> String {
        "(\(lhs) IS \(negated ? "" : "NOT ")DISTINCT FROM \(rhs))"
    }

    func orderedByCodePoint(_ text: String) -> String { "(\(text) COLLATE \"C\")" }

    func orderTerm(_ sql: String, ascending: Bool) -> String {
        ascending ? "\(sql) ASC NULLS FIRST" : "\(sql) DESC NULLS LAST"
    }

    // MARK: Strings

    func length(_ text: String) -> String { "char_length(\(text))" }

    func prefix(_ text: String, length: String) -> String { "left(\(text), \(length))" }

    func suffix(_ text: String, length: String) -> String { "right(\(text), \(length))" }

    func position(of part: String, in text: String) -> String { "strpos(\(text), \(part))" }

    /// `*` becomes `%`, `?` becomes `_`, and the characters `LIKE` gives a meaning (`%`, `_`, `\`) are escaped
    /// with a backslash, `LIKE`'s default escape character.
    func likePattern(_ pattern: String) -> String {
        var result = ""
        for character in pattern.unicodeScalars {
            switch character {
            case "*": result += "%"
            case "?": result += "_"
            case "%", "_", "\\": result += "\\" + String(character)
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    func like(_ text: String, pattern: String) -> String { "((\(text)) COLLATE \"C\" LIKE \(pattern))" }

    func fold(_ text: String, _ options: PredicateComparison.Options) -> String? { nil }

    func matches(_ text: String, pattern: String, _ options: PredicateComparison.Options) -> String? { nil }

    // MARK: Lightweight migration

    /// The same type, or a change within the integers (`SMALLINT`, `INTEGER`, `BIGINT`: a value out of the
    /// new range makes the migration fail) or within the floating-point types (`REAL`, `DOUBLE PRECISION`),
    /// which the SQLite store also carries over; a Boolean becomes 0 or 1 and an integer becomes a Boolean
    /// (`<> 0`), as SQLite keeps both in one `INTEGER` column. Anything else is refused.
    func migratedColumn(_ columnSQL: String, from oldType: String, to newType: String) -> String? {
        let integers: Set = ["SMALLINT", "INTEGER", "BIGINT"], floats: Set = ["REAL", "DOUBLE PRECISION"]
        if oldType == newType || (integers.contains(oldType) && integers.contains(newType))
            || (floats.contains(oldType) && floats.contains(newType)) {
            return columnSQL
        }
        if oldType == "BOOLEAN" && integers.contains(newType) { return "(\(columnSQL))::integer" }
        if integers.contains(oldType) && newType == "BOOLEAN" { return "((\(columnSQL)) <> 0)" }
        return nil
    }

    /// Booleans are encoded as 0 and 1 (see `encode`) and stored as `boolean`.
    func storedValue(_ valueSQL: String, type: NSAttributeType) -> String {
        type == .booleanAttributeType ? "((\(valueSQL)) <> 0)" : valueSQL
    }

    // MARK: Aggregates and limits

    func aggregate(_ function: PredicateOperand.Aggregate, of expression: String, type: NSAttributeType?) -> String? {
        switch function {
        case .count: return "COUNT(*)"
        case .sum: return Self.isNumber(type) ? "COALESCE(SUM(\(expression)), 0)" : nil
        case .average: return Self.isNumber(type) ? "AVG(\(expression))" : nil
        case .min, .max:
            if type == .UUIDAttributeType || type == .binaryDataAttributeType || type == .transformableAttributeType { return nil }
            return (function == .min ? "MIN(" : "MAX(") + expression + ")"
        }
    }

    func limitClause(limit: Int?, offset: Int, bind: (SQLValue) -> String) -> String {
        " LIMIT \(limit.map { bind(.integer(Int64($0))) } ?? "ALL") OFFSET \(bind(.integer(Int64(offset))))"
    }

    private static func isText(_ type: NSAttributeType?) -> Bool {
        type == .stringAttributeType || type == .URIAttributeType || type == .objectIDAttributeType
    }

    private static func isNumber(_ type: NSAttributeType?) -> Bool {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
             .doubleAttributeType, .floatAttributeType, .decimalAttributeType: return true
        default: return false
        }
    }
}

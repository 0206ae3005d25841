import CoreDataSQL
import CoreDataStoreKit

/// SQLite's spelling of the shared schema and compiled SQL: Apple's column types, `?N` parameters, Apple's
/// value encodings (`SQLValueCoding`), `GLOB` for `LIKE`, and the `NSCoreDataFold` and `NSCoreDataMatches`
/// functions the store registers on every connection (`SQLiteFunctions`).
///
/// With it, `SQLSchema` writes exactly the tables, columns and indexes Apple's Core Data writes for a model
/// (checked against Apple's stores by `FixtureStoreTests/sameSchemaAsApple`).
struct SQLiteDialect: SQLDialect {
    func columnType(of type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return "INTEGER"
        case .dateAttributeType: return "TIMESTAMP"
        case .doubleAttributeType, .floatAttributeType: return "FLOAT"
        case .decimalAttributeType: return "DECIMAL"
        case .stringAttributeType, .URIAttributeType, .objectIDAttributeType: return "VARCHAR"
        default: return "BLOB"  // Binary, UUID, Transformable (other types have no column)
        }
    }

    var keyColumnType: String { "INTEGER" }

    /// The row ID alias: keys are SQLite's own row IDs.
    var primaryKeyColumnType: String { "INTEGER PRIMARY KEY" }

    func indexKey(_ column: String, type: NSAttributeType?, ascending: Bool) -> String {
        "\(column) COLLATE BINARY \(ascending ? "ASC" : "DESC")"
    }

    func encode(_ value: Any?, as type: NSAttributeType, externalStorage: Bool) -> SQLValue? {
        SQLValueCoding.encode(value, as: type, externalStorage: externalStorage)
    }

    func placeholder(_ number: Int, for value: SQLValue, type: NSAttributeType?) -> String { "?\(number)" }

    func readExpression(_ columnSQL: String, type: NSAttributeType) -> String { columnSQL }

    func nullSafeEqual(_ lhs: String, _ rhs: String, negated: Bool) -> String {
        "(\(lhs) \(negated ? "IS NOT" : "IS") \(rhs))"
    }

    func orderedByCodePoint(_ text: String) -> String { text }

    func orderTerm(_ sql: String, ascending: Bool) -> String { "\(sql) \(ascending ? "ASC" : "DESC")" }

    func length(_ text: String) -> String { "length(\(text))" }

    func prefix(_ text: String, length: String) -> String { "substr(\(text), 1, \(length))" }

    func suffix(_ text: String, length: String) -> String { "substr(\(text), -\(length))" }

    func position(of part: String, in text: String) -> String { "instr(\(text), \(part))" }

    /// `GLOB` shares `*` and `?` with the predicate language; only `[`, which opens a class in `GLOB`, needs
    /// writing as a class of its own.
    func likePattern(_ pattern: String) -> String { pattern.replacingOccurrences(of: "[", with: "[[]") }

    func like(_ text: String, pattern: String) -> String { "(\(text) GLOB \(pattern))" }

    func fold(_ text: String, _ options: PredicateComparison.Options) -> String? {
        "NSCoreDataFold(\(text), \(options.rawValue))"
    }

    func matches(_ text: String, pattern: String, _ options: PredicateComparison.Options) -> String? {
        "(NSCoreDataMatches(\(text), \(pattern), \(options.rawValue)) = 1)"
    }

    /// A column keeps its values only under the same declared type (Integer 16 → 64, Float → Double and
    /// Binary → Transformable share one), as the store reads values by the new attribute type.
    func migratedColumn(_ columnSQL: String, from oldType: String, to newType: String) -> String? {
        oldType == newType ? columnSQL : nil
    }

    func storedValue(_ valueSQL: String, type: NSAttributeType) -> String { valueSQL }

    /// `TOTAL` is SQLite's sum that is 0.0 over no rows.
    func aggregate(_ function: PredicateOperand.Aggregate, of expression: String, type: NSAttributeType?) -> String? {
        switch function {
        case .count: return "COUNT(\(expression))"
        case .sum: return "TOTAL(\(expression))"
        case .average: return "AVG(\(expression))"
        case .min: return "MIN(\(expression))"
        case .max: return "MAX(\(expression))"
        }
    }

    /// A negative limit is no limit in SQLite.
    func limitClause(limit: Int?, offset: Int, bind: (SQLValue) -> String) -> String {
        " LIMIT \(bind(.integer(Int64(limit ?? -1)))) OFFSET \(bind(.integer(Int64(offset))))"
    }
}

/// Shorthand for `SQLSchema.quote(_:)` in the SQL this store writes.
func q(_ identifier: String) -> String { SQLSchema.quote(identifier) }

import CoreDataSQL
import CoreDataStoreKit

/// SQLite's spelling of the shared schema: Apple's column types and `COLLATE BINARY` index keys.
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
}

/// Shorthand for `SQLSchema.quote(_:)` in the SQL this store writes.
func q(_ identifier: String) -> String { SQLSchema.quote(identifier) }

import CoreDataStoreKit

/// How one database spells what the shared schema (`SQLSchema`) writes: column types and index collations.
///
/// A dialect only spells: the same model gives the same table, column and index names, and the same column
/// order, in every dialect.
public protocol SQLDialect {
    // MARK: Schema

    /// The column type in `CREATE TABLE` for attributes of `type`. Called only for types that have a column:
    /// Integer 16/32/64, Boolean, Date, Double, Float, Decimal, String, URI, object ID, Binary, UUID and
    /// Transformable. The column's position does not depend on it (`SQLSchema` orders columns as Apple does).
    /// SQLite: Apple's `INTEGER`, `TIMESTAMP`, `FLOAT`, `DECIMAL`, `VARCHAR`, `BLOB`.
    func columnType(of type: NSAttributeType) -> String

    /// The column type of every integer column that is not an attribute: `Z_ENT`, `Z_OPT`, foreign keys,
    /// `Z<n>_<REL>` entity columns, `Z_FOK_` order columns and join-table columns. It must hold any `Int64`.
    /// SQLite: `INTEGER`.
    var keyColumnType: String { get }

    /// The type and constraint of a table's `Z_PK` column, such as `INTEGER PRIMARY KEY`. Keys are assigned by
    /// the store (Apple's `Z_PRIMARYKEY`), never by the database. SQLite: `INTEGER PRIMARY KEY`.
    var primaryKeyColumnType: String { get }

    /// One key of a fetch index or uniqueness index in `CREATE INDEX`: `column` (already quoted), ordered by
    /// Unicode code point when it holds strings, in the given direction. `type` is the attribute's type, or
    /// nil for a to-one relationship's key column. SQLite: `column COLLATE BINARY ASC` (Apple's spelling, for
    /// every type).
    func indexKey(_ column: String, type: NSAttributeType?, ascending: Bool) -> String
}

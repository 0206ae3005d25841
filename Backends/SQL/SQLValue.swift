import CoreDataStoreKit

/// A value bound to a statement parameter, in the five storage classes SQL stores share.
///
/// Values never appear in SQL text: the schema and the compiler write a placeholder
/// (`SQLDialect.placeholder(_:for:type:)`) and keep the value in order beside the SQL, and the store binds
/// each case with its driver (SQLite: `sqlite3_bind_*`). Which case an attribute value becomes is the
/// dialect's choice (`SQLDialect.encode(_:as:externalStorage:)`).
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

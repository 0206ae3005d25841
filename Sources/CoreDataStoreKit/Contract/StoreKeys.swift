// Store type names, metadata keys and option keys, with Apple's raw values.

/// The SQLite store's type name.
public let NSSQLiteStoreType = "SQLite"
/// The XML store's type name.
public let NSXMLStoreType = "XML"
/// The binary store's type name.
public let NSBinaryStoreType = "Binary"
/// The in-memory store's type name.
public let NSInMemoryStoreType = "InMemory"
/// ➕ The PostgreSQL store's type name (not Apple's).
public let NSPostgreSQLStoreType = "PostgreSQL"
/// ➕ Option: the PostgreSQL schema (namespace) that holds a PostgreSQL store's tables, a lowercase
/// identifier; the store URL's `schema` query parameter says the same, and the option wins. Default `public`.
public let NSPostgreSQLSchemaOption = "NSPostgreSQLSchemaOption"
/// ➕ Option: the password for a PostgreSQL store's server, a string. Without it libpq takes one from the URL,
/// `PGPASSWORD` or `~/.pgpass`, as it always does. Never logged or put in an error message.
public let NSPostgreSQLPasswordOption = "NSPostgreSQLPasswordOption"

/// Metadata: the store's type name.
public let NSStoreTypeKey = "NSStoreType"
/// Metadata: the store's UUID, fixed when the store is created.
public let NSStoreUUIDKey = "NSStoreUUID"
/// Metadata: the version hash of each entity of the model the store was saved with.
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// Metadata: the version identifiers of the model the store was saved with.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
/// Metadata: the version of the hash scheme (Apple writes 3).
public let NSStoreModelVersionHashesVersionKey = "NSStoreModelVersionHashesVersion"
/// Metadata: the framework version that last wrote the store.
public let NSPersistenceFrameworkVersionKey = "NSPersistenceFrameworkVersion"

/// Option: open the store read-only; saving to it fails.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Option: migrate the store to the current model when it was saved with another.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option: infer the mapping model for an automatic migration.
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Option: seconds to wait for a lock on the store file.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// Option: SQLite pragmas to set on every connection, as a dictionary of names to values.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option: run ANALYZE when the SQLite store is opened.
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// Option: vacuum the SQLite store when it is saved.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// Option: skip the check that the store's model matches the coordinator's.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Option: record persistent history (the SQLite store records it; other stores ignore the option).
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
/// Option: post remote change notifications (accepted; not posted yet).
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"
/// Option: the file protection class (accepted; Linux has none).
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"

/// Reads a Boolean option the way Apple does: `true`, a non-zero number, or "YES"/"true".
public func storeOptionIsSet(_ options: [AnyHashable: Any]?, _ key: String) -> Bool {
    switch options?[key] {
    case let value as Bool: return value
    case let value as NSNumber: return value.boolValue
    case let value as Int: return value != 0
    case let value as String: return ["yes", "true", "1"].contains(value.lowercased())
    default: return false
    }
}

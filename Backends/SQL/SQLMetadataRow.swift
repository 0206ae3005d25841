import CoreDataStoreKit

/// The `Z_METADATA` row of a SQL store, as Apple's SQLite store writes it: the store UUID in `Z_UUID`, every
/// other metadata entry as a binary property list in `Z_PLIST`.
public struct SQLMetadataRow {
    /// `Z_UUID`: the metadata's `NSStoreUUID`, or a new UUID when it has none.
    public let uuid: String
    /// `Z_PLIST`: the metadata without `NSStoreUUID`, as a binary property list.
    public let plist: Data

    /// - Throws: 134030 when a metadata value is not a property-list value.
    public init(_ metadata: [String: Any]) throws {
        var entries = metadata
        entries[NSStoreUUIDKey] = nil
        do {
            plist = try PropertyListSerialization.data(fromPropertyList: entries, format: .binary, options: 0)
        } catch {
            throw CoreDataError.saveFailed("the store metadata holds a value that is not a property list", underlying: error)
        }
        uuid = (metadata[NSStoreUUIDKey] as? String) ?? UUID().uuidString
    }
}

import CoreDataStoreKit

/// The fixed parts of Apple's XML store format, as recorded in `APPLE_FORMATS.md` and `Docs/XMLStore.md`.
enum XMLStoreFormat {
    /// The value of `<databaseInfo><version>` in every file Apple writes.
    static let databaseVersion = "134481920"
    /// The system identifier of the `DOCTYPE` (never loaded).
    static let dtdSystemID = "file:///System/Library/DTDs/CoreData.dtd"

    /// The `id` of an object: "z" followed by its primary key, which is unique store-wide.
    static func objectID(_ primaryKey: Int64) -> String { "z\(primaryKey)" }

    /// The primary key in an `id` or `idrefs` token ("z123" → 123), or nil when the token is not of that form.
    static func primaryKey(_ token: Substring) -> Int64? {
        guard token.first == "z" || token.first == "Z", let key = Int64(token.dropFirst()), key > 0 else { return nil }
        return key
    }

    /// The name Apple writes in `<object type=>` and `destination=` for an entity.
    static func entityTypeName(_ name: String) -> String { name.uppercased() }

    /// The name Apple writes in `<attribute name=>` and `<relationship name=>` for a property.
    static func propertyName(_ name: String) -> String { name.lowercased() }

    /// The `type` of a `<relationship>`: "1/1" for a to-one, "minCount/maxCount" for a to-many (0 = unbounded).
    static func relationshipCode(_ relationship: NSRelationshipDescription) -> String {
        relationship.isToMany ? "\(max(relationship.minCount, 0))/\(max(relationship.maxCount, 0))" : "1/1"
    }

    /// Whether a `<relationship type=>` code describes a to-one (its maximum is 1).
    static func isToOneCode(_ code: String) -> Bool {
        code.split(separator: "/").last == "1"
    }
}

import CoreData
import CoreDataModelCommands
import Foundation

/// One column of `coredata query`'s output: a key path of the fetched entity, which may cross to-one
/// relationships (`author.name`), and the properties along it.
struct QueryField {
    /// The key path as given, the column's name.
    let keyPath: String
    /// The properties the key path walks through: to-one relationships, then the property whose value is
    /// shown.
    let path: [NSPropertyDescription]

    /// The columns shown without `--fields`: every stored property of the entity (inherited ones first), its
    /// attributes and relationships, in the model's order.
    static func defaults(for entity: NSEntityDescription) -> [QueryField] {
        entity.layout.allProperties
            .filter { !$0.isTransient && ($0 is NSAttributeDescription || $0 is NSRelationshipDescription) }
            .map { QueryField(keyPath: $0.name, path: [$0]) }
    }

    /// The columns `--fields` names, comma-separated, each checked against the entity as `--where` and
    /// `--sort` keys are, so an unknown key is the same error in all three.
    /// - Throws: the key check's error (code 2048) naming an unknown key; a `UsageError` for an empty key; an
    ///   `NSError` (2048) for a key path that crosses a to-many relationship or continues after an attribute.
    static func parse(_ list: String, entity: NSEntityDescription) throws -> [QueryField] {
        try list.split(separator: ",", omittingEmptySubsequences: false).map { item in
            let keyPath = item.trimmingCharacters(in: .whitespaces)
            guard !keyPath.isEmpty else { throw UsageError("--fields has an empty key") }
            try NSPredicate(format: "%K != nil", keyPath).validateKeys(against: entity)
            return QueryField(keyPath: keyPath, path: try walk(keyPath, from: entity))
        }
    }

    /// The properties along `keyPath`, every one but the last a to-one relationship.
    private static func walk(_ keyPath: String, from entity: NSEntityDescription) throws -> [NSPropertyDescription] {
        var path: [NSPropertyDescription] = []
        var current: NSEntityDescription? = entity
        for key in keyPath.split(separator: ".").map(String.init) {
            let entityName = current?.name ?? "?"
            guard let owner = current else {
                throw fieldError("The field \"\(keyPath)\" continues with \"\(key)\" after attribute \"\(path.last?.name ?? "")\"", keyPath)
            }
            guard let property = owner.layout.allProperties.first(where: { $0.name == key }) else {
                throw fieldError("The field \"\(keyPath)\" names \"\(key)\", which is not a property of entity \(entityName)", keyPath)
            }
            if let relationship = property as? NSRelationshipDescription {
                if relationship.isToMany && path.count + 1 < keyPath.split(separator: ".").count {
                    throw fieldError("The field \"\(keyPath)\" crosses the to-many relationship \"\(key)\" of entity \(entityName); "
                                     + "name \"\(key)\" alone to list its objects' IDs", keyPath)
                }
                current = relationship.destinationEntity
            } else {
                current = nil
            }
            path.append(property)
        }
        return path
    }

    private static func fieldError(_ message: String, _ keyPath: String) -> NSError {
        CoreDataError.make(NSFormattingError, message + ".", userInfo: ["key": keyPath])
    }

    /// The field's value for `object`: nil when a to-one on the way is nil.
    func value(of object: NSManagedObject) -> FieldValue {
        var current = object
        for relationship in path.dropLast() {
            guard let next = current.value(forKey: relationship.name) as? NSManagedObject else { return .null }
            current = next
        }
        guard let property = path.last else { return .null }
        switch property {
        case let attribute as NSAttributeDescription:
            return FieldValue(attributeValue: current.value(forKey: attribute.name), type: attribute.attributeType)
        case let relationship as NSRelationshipDescription:
            let ids = current.objectIDs(forRelationshipNamed: relationship.name)
            if !relationship.isToMany { return ids.first.map { .objectID($0.uriRepresentation().absoluteString) } ?? .null }
            let ordered = relationship.isOrdered ? ids : ids.sorted(by: Self.storeOrder)
            return .array(ordered.map { .objectID($0.uriRepresentation().absoluteString) })
        default:
            return current.value(forKey: property.name).map { FieldValue(propertyList: $0) } ?? .null
        }
    }

    /// IDs by entity name, then by the number the store gave the object (`p2` before `p10`).
    static func storeOrder(_ a: NSManagedObjectID, _ b: NSManagedObjectID) -> Bool {
        let (first, second) = (a.uriRepresentation(), b.uriRepresentation())
        let (entityA, entityB) = (a.entity.name ?? "", b.entity.name ?? "")
        if entityA != entityB { return entityA < entityB }
        let numberA = Int(first.lastPathComponent.dropFirst()) ?? Int.max, numberB = Int(second.lastPathComponent.dropFirst()) ?? Int.max
        return numberA != numberB ? numberA < numberB : first.absoluteString < second.absoluteString
    }
}

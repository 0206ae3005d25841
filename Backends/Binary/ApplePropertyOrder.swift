import CoreDataStoreKit

/// The order in which Apple's Core Data numbers an entity's properties once its model is in use, which is the
/// order of the positions of an `NSAttributeValues` array in Apple's binary store.
///
/// Properties fall into ten groups, in this order: stored attributes (derived and composite attributes
/// included), transient attributes, stored to-one relationships, stored unordered to-many relationships, stored
/// ordered to-many relationships, transient to-ones, transient unordered to-manys, transient ordered to-manys,
/// fetched properties, anything else. Within a group an entity with a superentity first lists the properties it
/// inherits, in the superentity's order, then its own, sorted by name; a root entity sorts each group by name.
/// Names are compared code unit by code unit (as `NSString`'s `compare:` does for the ASCII names models use).
enum ApplePropertyOrder {
    /// Every property of `entity` (inherited ones included) in Apple's order.
    static func properties(of entity: NSEntityDescription) -> [NSPropertyDescription] {
        groups(of: entity, depth: 0).flatMap { $0 }
    }

    /// The names of `properties(of:)`.
    static func names(of entity: NSEntityDescription) -> [String] {
        properties(of: entity).map(\.name)
    }

    /// The ten groups of `entity`'s properties (see the type's description).
    private static func groups(of entity: NSEntityDescription, depth: Int) -> [[NSPropertyDescription]] {
        var groups = [[NSPropertyDescription]](repeating: [], count: 10)
        var inherited = Set<String>()
        // A cycle of superentities is refused when a model is used; the depth only keeps a broken one finite.
        if let parent = entity.superentity, parent !== entity, depth < 64 {
            groups = Self.groups(of: parent, depth: depth + 1)
            for group in groups { for property in group { inherited.insert(property.name) } }
        }
        let own = entity.declaredProperties.filter { !inherited.contains($0.name) }
            .sorted { Array($0.name.utf16).lexicographicallyPrecedes(Array($1.name.utf16)) }
        for property in own {
            groups[group(of: property)].append(property)
        }
        return groups
    }

    /// The index of the group `property` belongs to.
    private static func group(of property: NSPropertyDescription) -> Int {
        switch property {
        case is NSAttributeDescription:
            return property.isTransient ? 1 : 0
        case let relationship as NSRelationshipDescription:
            let transientOffset = relationship.isTransient ? 3 : 0
            if !relationship.isToMany { return 2 + transientOffset }
            return (relationship.isOrdered ? 4 : 3) + transientOffset
        case is NSFetchedPropertyDescription:
            return 8
        default:
            return 9
        }
    }
}

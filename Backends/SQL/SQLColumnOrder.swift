import CoreDataStoreKit

/// In which order an entity's properties claim their columns in a new table, before the columns are grouped
/// by type (`SQLSchema.rank(of:)`). See SQLiteStore.md, "Column order", for the facts each rule rests on.
///
/// Apple's Core Data lists a table's columns as it creates them (`-[NSSQLEntity _generateProperties]`):
/// `Z_PK`, `Z_ENT`, `Z_OPT`; then, for the root entity and each subentity below it in `Z_ENT` order, the
/// entity's own stored attributes (a composite's leaves in its place), then its own stored to-one
/// relationships (each foreign key followed by its `Z<n>_<REL>` column); then every `Z_FOK_<REL>` column.
/// `-[NSSQLiteAdapter newCreateTableStatementForEntity:]` sorts that list by type with a stable sort
/// (`sortColumnsByType`), so this order decides the order of columns of one type. What changed over the
/// years is the order of one entity's attributes and relationships, which each case describes.
public enum SQLColumnOrder: Sendable {
    /// Current frameworks: by name (`NSString` `compare:`, through the entity's property ranges,
    /// `-[NSEntityDescription _newMappingForPropertiesOfRange:]`; here Swift's `String` order, the same for
    /// names of letters, digits and underscores). Every new store is made in this order.
    case byName
    /// The 2009 frameworks (`NSPersistenceFrameworkVersion` 241: iPhone OS 3.0, Mac OS X 10.6): the order of a
    /// Snow Leopard `CFDictionary` of the entity's attributes (and, apart, relationships) keyed by name
    /// (`SnowLeopardPropertyTable`), which Apple's framework still reproduces for such stores
    /// (`-[NSEntityDescription _newSnowLeopardStyleDictionaryContainingPropertiesOfType:]`). Only
    /// reproduces the layout of old files; no store is created in it.
    case snowLeopardHash

    /// The entity's own stored attributes (not inherited, not transient), in the order they claim columns.
    func attributes(of entity: NSEntityDescription) -> [NSAttributeDescription] {
        let all = Self.visibleProperties(of: entity).compactMap { $0 as? NSAttributeDescription }
        return arrange(all).filter { $0.entity === entity && !$0.isTransient }
    }

    /// The entity's own stored relationships (not inherited, not transient), in the order they claim columns.
    func relationships(of entity: NSEntityDescription) -> [NSRelationshipDescription] {
        let all = Self.visibleProperties(of: entity).compactMap { $0 as? NSRelationshipDescription }
        return arrange(all).filter { $0.entity === entity && !$0.isTransient }
    }

    /// `properties` (one kind, inherited ones included, as Apple's property ranges hold them) in this order.
    private func arrange<Property: NSPropertyDescription>(_ properties: [Property]) -> [Property] {
        let byName = properties.sorted { $0.name < $1.name }
        switch self {
        case .byName:
            return byName
        case .snowLeopardHash:
            // Apple fills the table from the name-ordered range, then reads it bucket by bucket.
            return SnowLeopardPropertyTable.order(of: byName.map(\.name)).map { byName[$0] }
        }
    }

    /// The entity's properties and its superentities', each name once (the nearest declaration wins).
    private static func visibleProperties(of entity: NSEntityDescription) -> [NSPropertyDescription] {
        var seen: Set<String> = []
        var result: [NSPropertyDescription] = []
        var current: NSEntityDescription? = entity
        while let owner = current {
            for property in owner.declaredProperties where seen.insert(property.name).inserted { result.append(property) }
            current = owner.superentity
        }
        return result
    }
}

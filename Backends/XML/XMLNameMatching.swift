import CoreDataStoreKit

/// Renames a snapshot read from an XML file to the model's entity and property names.
///
/// Apple's XML files record `RECIPE` and `cookingtime` for the model's `Recipe` and `cookingTime`. A file name
/// matches the model name that is equal to it, or else the only one that is equal ignoring case; a name that
/// matches nothing is kept, so the engine reports it (or drops it during a migration). Relationships are also
/// sorted into to-one and to-many by the model, since the file's `type="min/max"` code only hints at it.
struct XMLNameMatching {
    let entities: [NSEntityDescription]
    let url: URL?

    /// - Throws: 134100 when a file name matches two model names that differ only in case.
    func match(_ snapshot: AtomicStoreSnapshot) throws -> AtomicStoreSnapshot {
        let entityNames = NameTable(entities.compactMap(\.name))
        var resolvedEntities: [String: String] = [:]
        func entityName(_ name: String) throws -> String {
            if let known = resolvedEntities[name] { return known }
            let resolved = try entityNames.resolve(name, what: "entity", url: url)
            resolvedEntities[name] = resolved
            return resolved
        }
        var propertyTables: [String: NameTable] = [:]
        let entitiesByName = Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })

        var result = snapshot
        result.objects = []
        result.objects.reserveCapacity(snapshot.objects.count)
        for var object in snapshot.objects {
            let name = try entityName(object.reference.entityName)
            object.reference.entityName = name
            guard let entity = entitiesByName[name] else {
                result.objects.append(object)
                continue
            }
            let layout = entity.layout
            let properties: NameTable
            if let table = propertyTables[name] { properties = table } else {
                // Composites are written as their leaves, `location.latitude` (see `AtomicStore.snapshot()`).
                let leafNames = layout.allProperties.compactMap { $0 as? NSCompositeAttributeDescription }.flatMap { composite in
                    CompositeAttributeValue.leaves(of: composite).map { composite.name + "." + $0.dottedPath }
                }
                properties = NameTable(layout.allProperties.map(\.name) + leafNames)
                propertyTables[name] = properties
            }
            var attributes: [String: Any] = [:]
            for (key, value) in object.attributes { attributes[try properties.resolve(key, what: "property of \(name)", url: url)] = value }
            var toOne: [String: AtomicStoreSnapshot.Reference] = [:]
            var toMany: [String: [AtomicStoreSnapshot.Reference]] = [:]
            func place(_ key: String, _ references: [AtomicStoreSnapshot.Reference]) throws {
                let property = try properties.resolve(key, what: "property of \(name)", url: url)
                var references = references
                for index in references.indices { references[index].entityName = try entityName(references[index].entityName) }
                if let relationship = layout.relationshipsByName[property], !relationship.isToMany {
                    guard references.count <= 1 else {
                        throw CoreDataError.corruptStore(url, type: NSXMLStoreType, reason: "the to-one relationship \(name).\(property) of z\(object.reference.primaryKey) has \(references.count) destinations")
                    }
                    if let reference = references.first { toOne[property] = reference }
                } else if let relationship = layout.relationshipsByName[property], relationship.isToMany {
                    toMany[property] = references
                } else if references.count == 1, let reference = references.first {
                    toOne[property] = reference
                } else {
                    toMany[property] = references
                }
            }
            for (key, reference) in object.toOne { try place(key, [reference]) }
            for (key, references) in object.toMany { try place(key, references) }
            object.attributes = attributes
            object.toOne = toOne
            object.toMany = toMany
            result.objects.append(object)
        }
        var highWater: [String: Int64] = [:]
        for (key, value) in snapshot.primaryKeyHighWater {
            let name = try entityName(key)
            highWater[name] = max(highWater[name] ?? 0, value)
        }
        result.primaryKeyHighWater = highWater
        return result
    }
}

/// Model names, looked up exactly or ignoring case.
private struct NameTable {
    private let exact: Set<String>
    private let folded: [String: [String]]

    init(_ names: [String]) {
        exact = Set(names)
        folded = Dictionary(grouping: Set(names), by: { $0.lowercased() })
    }

    /// The model name for a file name: the same name, the only one equal ignoring case, or the file name itself.
    func resolve(_ name: String, what: String, url: URL?) throws -> String {
        if exact.contains(name) { return name }
        guard let candidates = folded[name.lowercased()] else { return name }
        guard candidates.count == 1, let only = candidates.first else {
            throw CoreDataError.incompatibleModel(url, reason: "the file's \(what) \(name) matches \(candidates.sorted().joined(separator: " and ")), which differ only in case")
        }
        return only
    }
}

/// The lightweight migration of an atomic store's contents to a new model, with the rules of the SQLite store's
/// inferred mapping: renaming identifiers, default values for new required attributes, and refusals.
///
/// The old model is not needed: a file records entity and property names, and a `renamingIdentifier` names
/// what an entity or property was called before. An entity's objects are renamed when the file has objects of
/// the old name and none of the new one; a property's value is renamed in each object that has a value under
/// the old name and none under the new one (so migrating a file a second time changes nothing). Names the model
/// does not have are matched to its names ignoring case (Apple's XML files spell them in upper and lower case);
/// what the new model still lacks is dropped by the engine.
struct AtomicLightweightMigration {
    let entities: [NSEntityDescription]

    /// Names as the new model spells them: renamed ones by their old name, others by their own, both exactly
    /// or ignoring case.
    private struct Names {
        private var renamed: [String: String] = [:]
        private var renamedFolded: [String: String] = [:]
        private var own = Set<String>()
        private var ownFolded: [String: String] = [:]

        /// - Parameters: `current`, the new model's names; `renames`, old name to new name.
        init(current: [String], renames: [(old: String, new: String)]) {
            for name in current {
                own.insert(name)
                ownFolded[name.lowercased()] = ownFolded[name.lowercased()] == nil ? name : ""
            }
            for (old, new) in renames where old != new {
                renamed[old] = new
                renamedFolded[old.lowercased()] = new
            }
        }

        /// The new name a renaming identifier gives `name`, if any.
        func renaming(_ name: String) -> String? { renamed[name] ?? renamedFolded[name.lowercased()] }

        /// `name` as the model spells it (ignoring case when the model has no exact match), or as it is.
        func spelled(_ name: String) -> String {
            if own.contains(name) { return name }
            if let folded = ownFolded[name.lowercased()], !folded.isEmpty { return folded }
            return name
        }
    }

    /// The snapshot with old entity and property names replaced by the new ones, and relationships sorted into
    /// to-one and to-many as the new model has them.
    func renamed(_ snapshot: AtomicStoreSnapshot) -> AtomicStoreSnapshot {
        let entityNames = Names(current: entities.compactMap(\.name), renames: entities.compactMap { entity in
            guard let name = entity.name, let old = entity.renamingIdentifier else { return nil }
            return (old, name)
        })
        // An entity is renamed only when the file has none of its objects under the new name yet.
        let present = Set(snapshot.objects.map { entityNames.spelled($0.reference.entityName) })
        func entityName(_ name: String) -> String {
            if let new = entityNames.renaming(name), !present.contains(new) { return new }
            return entityNames.spelled(name)
        }
        let byName = Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })
        var result = snapshot
        result.objects = snapshot.objects.map { old in
            let name = entityName(old.reference.entityName)
            var object = AtomicStoreSnapshot.Object(reference: .init(entityName: name, primaryKey: old.reference.primaryKey), version: old.version)
            guard let entity = byName[name] else { return object }
            rename(old, into: &object, entity: entity, entityName: entityName)
            return object
        }
        var highWater: [String: Int64] = [:]
        for (name, value) in snapshot.primaryKeyHighWater {
            let renamed = entityName(name)
            highWater[renamed] = max(highWater[renamed] ?? 0, value)
        }
        result.primaryKeyHighWater = highWater
        return result
    }

    /// Copies `old`'s values into `object` under `entity`'s property names.
    private func rename(_ old: AtomicStoreSnapshot.Object, into object: inout AtomicStoreSnapshot.Object, entity: NSEntityDescription,
                        entityName: (String) -> String) {
        let layout = entity.layout
        let names = Names(current: layout.allProperties.map(\.name), renames: layout.allProperties.compactMap { property in
            property.renamingIdentifier.map { ($0, property.name) }
        })
        var keys = Set<String>()
        for key in Array(old.attributes.keys) + Array(old.toOne.keys) + Array(old.toMany.keys) { keys.insert(names.spelled(key)) }
        func newName(_ key: String) -> String {
            if let renamed = names.renaming(key), !keys.contains(renamed) { return renamed }
            return names.spelled(key)
        }
        func reference(_ value: AtomicStoreSnapshot.Reference) -> AtomicStoreSnapshot.Reference {
            .init(entityName: entityName(value.entityName), primaryKey: value.primaryKey)
        }
        for (key, value) in old.attributes { object.attributes[newName(key)] = value }
        var references: [String: [AtomicStoreSnapshot.Reference]] = [:]
        for (key, value) in old.toOne { references[newName(key)] = [reference(value)] }
        for (key, value) in old.toMany { references[newName(key)] = value.map(reference) }
        for (name, targets) in references {
            if let relationship = layout.relationshipsByName[name], !relationship.isToMany {
                if let first = targets.first, targets.count == 1 { object.toOne[name] = first }
            } else {
                object.toMany[name] = targets
            }
        }
    }

    /// Gives required attributes that are nil their default value.
    /// - Throws: 134110 (`NSMigrationError`) naming entity, attribute and count when a required attribute has
    ///   no value and no default.
    func completeRequiredValues(_ records: [AtomicRecord]) throws {
        var missing: [String: (entity: String, property: String, count: Int64)] = [:]
        for record in records {
            let layout = record.entity.layout
            for slot in layout.storedSlots {
                guard record.values[slot] == nil, let attribute = layout.allProperties[slot] as? NSAttributeDescription,
                      !attribute.isOptional, !attribute.isTransient else { continue }
                if let value = attribute.defaultValue.flatMap({ AttributeValueCoercion.coerce($0, to: attribute.attributeType) }) {
                    record.values[slot] = value
                } else {
                    let entity = record.entity.name ?? ""
                    missing[entity + "." + attribute.name, default: (entity, attribute.name, 0)].count += 1
                }
            }
        }
        if let first = missing.keys.sorted().first, let (entity, property, count) = missing[first] {
            throw CoreDataError.missingRequiredValue(entity: entity, property: property, count: count)
        }
    }
}

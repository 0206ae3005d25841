// Part of ScratchStore (see ScratchStore.swift): the objects the store holds and the rules a save and a batch
// delete apply to them.
import CoreData

/// One stored object: its entity, its optimistic-locking version, its row's values by slot of the entity's
/// `EntityLayout`, and the destinations of its to-many relationships by relationship name.
struct ScratchObject {
    var entity: NSEntityDescription
    var version: Int64
    /// As in `StoreRow.values`: stored attributes and to-one keys by slot; transient and to-many slots nil.
    var values: [Any?]
    /// In order for an ordered relationship.
    var toMany: [String: [ObjectKey]] = [:]

    /// The object as a store hands it over.
    func row(_ key: ObjectKey) -> StoreRow { StoreRow(key: key, version: version, values: values) }

    /// The value of the property named `name` (a to-one relationship's as an `ObjectKey`), or nil when it has
    /// none or the entity has no such stored property.
    func value(named name: String) -> Any? {
        guard let slot = entity.layout.slotByName[name], slot < values.count else { return nil }
        return values[slot]
    }
}

/// Everything a Scratch store holds, as a value: a save changes a copy, and the store keeps the copy only once
/// it is written, so a failed save leaves nothing half done.
struct ScratchContents {
    var metadata: [String: Any]
    var objects: [ObjectKey: ScratchObject] = [:]
    /// The highest primary key given out, by the name of the root entity of each inheritance hierarchy.
    var keyHighWater: [String: Int64] = [:]

    /// What the predicate evaluator reads for the object with `key`, or nil when there is none.
    func view(of key: ObjectKey) -> ScratchRowView? {
        objects[key].map { ScratchRowView(key: key, object: $0, contents: self) }
    }

    // MARK: A save

    /// Applies a change set: version checks first, then inserts, updates, to-many lists, deletions and
    /// metadata.
    /// - Returns: the new version of each update written without a version check.
    /// - Throws: `StoreVersionConflict` naming every stale object, before anything changes; 134030 for a row
    ///   of an entity the model lacks.
    mutating func apply(_ changes: StoreChangeSet, model: NSManagedObjectModel) throws -> [ObjectKey: Int64] {
        try checkVersions(of: changes)
        try insert(changes.inserted, model: model)
        let versions = update(changes.updated)
        for change in changes.toManyChanges {
            objects[change.owner]?.toMany[change.relationship.name] = change.destinations
        }
        for deletion in changes.deleted { objects[deletion.key] = nil }
        if let replacement = changes.metadata { replaceMetadata(with: replacement) }
        return versions
    }

    /// Adds the rows, each at version 1.
    private mutating func insert(_ rows: [StoreRow], model: NSManagedObjectModel) throws {
        for row in rows {
            guard let entity = model.entity(withNumber: row.key.entityNumber) else {
                throw CoreDataError.saveFailed("the inserted object \(row.key) has no entity in the model")
            }
            objects[row.key] = ScratchObject(entity: entity, version: 1, values: row.values)
        }
    }

    /// Writes each update's whole row (its unchanged slots hold the stored values) and raises its version by one.
    /// - Returns: the new versions of the updates without a version check.
    private mutating func update(_ updates: [StoreRowUpdate]) -> [ObjectKey: Int64] {
        var versions: [ObjectKey: Int64] = [:]
        for update in updates {
            guard var object = objects[update.row.key] else { continue }  // checkVersions reported it
            object.values = update.row.values
            object.version += 1
            objects[update.row.key] = object
            if update.expectedVersion == nil { versions[update.row.key] = object.version }
        }
        return versions
    }

    /// The app's metadata, keeping the record of the model, the store type and the UUID.
    private mutating func replaceMetadata(with replacement: [String: Any]) {
        var kept = ModelCompatibility.keepingModelKeys(of: metadata, in: replacement)
        kept[NSStoreTypeKey] = metadata[NSStoreTypeKey]
        kept[NSStoreUUIDKey] = metadata[NSStoreUUIDKey]
        metadata = kept
    }

    /// - Throws: `StoreVersionConflict` when an update's object is gone, or an update's or deletion's expected
    ///   version is not the stored one.
    private func checkVersions(of changes: StoreChangeSet) throws {
        var conflicts: [StoreVersionConflict.Conflict] = []
        for update in changes.updated {
            let key = update.row.key
            guard let current = objects[key] else {
                conflicts.append(.init(key: key, expectedVersion: update.expectedVersion ?? 0, current: nil))
                continue
            }
            if let expected = update.expectedVersion, expected != current.version {
                conflicts.append(.init(key: key, expectedVersion: expected, current: current.row(key)))
            }
        }
        for deletion in changes.deleted {
            guard let expected = deletion.expectedVersion, let current = objects[deletion.key] else { continue }
            if expected != current.version {
                conflicts.append(.init(key: deletion.key, expectedVersion: expected, current: current.row(deletion.key)))
            }
        }
        guard conflicts.isEmpty else { throw StoreVersionConflict(conflicts: conflicts) }
    }

    /// Checks every uniqueness constraint of the model against all objects: no two objects of the constraint's
    /// entity (or its subentities) may have the same non-nil values. Strings compare by their UTF-8 bytes.
    /// - Throws: 133021 naming the entity and the constrained properties.
    func checkUniquenessConstraints(of model: NSManagedObjectModel) throws {
        for entity in model.entities {
            for constraint in entity.uniquenessConstraints {
                let names = constraint.compactMap { $0 as? String }
                guard !names.isEmpty else { continue }
                var seen = Set<[AnyHashable]>()
                for object in objects.values where object.entity.isKindOf(entity: entity) {
                    guard let values = Self.constrainedValues(of: object, names) else { continue }
                    guard seen.insert(values).inserted else {
                        throw CoreDataError.uniquenessViolation(entity: entity.name ?? "", properties: names)
                    }
                }
            }
        }
    }

    /// The object's values for a constraint's property names (`location.latitude` names an element of the
    /// composite attribute `location`), or nil when one of them is nil.
    private static func constrainedValues(of object: ScratchObject, _ names: [String]) -> [AnyHashable]? {
        var result: [AnyHashable] = []
        for name in names {
            let path = name.split(separator: ".").map(String.init)
            guard let first = path.first, var value = object.value(named: first) else { return nil }
            if path.count > 1 {
                guard let element = CompositeAttributeValue.value(at: path.dropFirst(), in: value) else { return nil }
                value = element
            }
            if let string = value as? String {
                result.append(Data(string.utf8))
            } else if let hashable = value as? AnyHashable {
                result.append(hashable)
            } else {
                return nil
            }
        }
        return result
    }

    // MARK: A batch delete

    /// Deletes `keys` and every object their cascade rules reach, then removes the references that other
    /// objects hold to them (each object changed so gets a new version, as an update would).
    /// - Returns: the keys of every object deleted.
    /// - Throws: 1600 (`NSValidationRelationshipDeniedDeleteError`) when a deleted object's deny rule points at
    ///   an object the request does not delete, before anything changes.
    mutating func delete(_ keys: [ObjectKey]) throws -> [ObjectKey] {
        let doomed = try objectsToDelete(startingWith: keys)
        for key in doomed { objects[key] = nil }
        let deleted = Set(doomed)
        for (key, object) in objects {
            var changed = object
            for slot in object.entity.layout.storedSlots where slot < changed.values.count {
                if let target = changed.values[slot] as? ObjectKey, deleted.contains(target) { changed.values[slot] = nil }
            }
            for (name, destinations) in changed.toMany { changed.toMany[name] = destinations.filter { !deleted.contains($0) } }
            guard changed.toMany != object.toMany || !Self.sameReferences(changed.values, object.values) else { continue }
            changed.version += 1
            objects[key] = changed
        }
        return doomed
    }

    /// `keys` and the objects their cascade rules reach, in the order reached.
    /// - Throws: 1600 for a deny rule whose destinations are not all deleted too.
    private func objectsToDelete(startingWith keys: [ObjectKey]) throws -> [ObjectKey] {
        var pending = keys
        var reached: [ObjectKey] = []
        var seen = Set<ObjectKey>()
        var denials: [(entity: NSEntityDescription, relationship: NSRelationshipDescription, destinations: [ObjectKey])] = []
        while let key = pending.popLast() {
            guard seen.insert(key).inserted, let object = objects[key] else { continue }
            reached.append(key)
            for relationship in object.entity.layout.relationshipsByName.values where !relationship.isTransient {
                let destinations = relationship.isToMany
                    ? object.toMany[relationship.name] ?? []
                    : [object.value(named: relationship.name) as? ObjectKey].compactMap { $0 }
                switch relationship.deleteRule {
                case .cascadeDeleteRule: pending.append(contentsOf: destinations)
                case .denyDeleteRule: denials.append((object.entity, relationship, destinations))
                default: break
                }
            }
        }
        for denial in denials where denial.destinations.contains(where: { objects[$0] != nil && !seen.contains($0) }) {
            throw CoreDataError.make(NSValidationRelationshipDeniedDeleteError,
                                     "The batch delete was refused: a \(denial.entity.name ?? "") object still has objects in \(denial.relationship.name), whose delete rule is deny.",
                                     userInfo: [NSValidationKeyErrorKey: denial.relationship.name])
        }
        return reached
    }

    /// Whether two rows hold the same to-one references (the only slots a batch delete changes).
    private static func sameReferences(_ a: [Any?], _ b: [Any?]) -> Bool {
        zip(a, b).allSatisfy { ($0 as? ObjectKey) == ($1 as? ObjectKey) }
    }
}

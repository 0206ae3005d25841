/// Loading a snapshot (objects by names) into records (values by slots of the request's model).
extension AtomicStore {
    /// Makes a record of every object of `snapshot`, takes its primary-key high-water marks, and drops
    /// references to objects that are not in the store (a file edited by hand, or a migration).
    ///
    /// When `migrating`, entities and properties the model lacks are skipped (the snapshot has already been
    /// renamed to the new model); otherwise they make the file incompatible.
    /// - Throws: 134100 for an entity or property the model lacks; 259 for a damaged key, version or value;
    ///   134140 for a value a migration cannot convert.
    func load(_ snapshot: AtomicStoreSnapshot, migrating: Bool, url: URL) throws {
        let loader = AtomicSnapshotLoader(request: openRequest, migrating: migrating, url: url, storeTypeName: Self.storeTypeName)
        try loadRecords(of: snapshot.objects, with: loader)
        try loadHighWater(snapshot.primaryKeyHighWater, url: url)
        dropDanglingReferences()
    }

    /// Adds a record for every object, raising each hierarchy's high-water mark to its keys.
    /// - Throws: 259 when two objects of one entity have the same key; the loader's errors.
    private func loadRecords(of objects: [AtomicStoreSnapshot.Object], with loader: AtomicSnapshotLoader) throws {
        for object in objects {
            guard let record = try loader.record(from: object) else { continue }
            guard records[record.key] == nil else {
                throw CoreDataError.corruptStore(loader.url, type: Self.storeTypeName,
                                                 reason: "two objects of \(record.entity.name ?? "") have key \(record.key.primaryKey)")
            }
            insertRecord(record)
            let root = record.entity.rootEntity.entityNumber
            highWater[root] = max(highWater[root] ?? 0, record.key.primaryKey)
        }
    }

    /// Raises each hierarchy's high-water mark to the last key the file says was given out (keys of deleted
    /// objects are not reused).
    /// - Throws: 259 for a mark past `StoreNumberLimits.largestStoredNumber`.
    private func loadHighWater(_ marks: [String: Int64], url: URL) throws {
        for (name, value) in marks {
            guard value <= StoreNumberLimits.largestStoredNumber else {
                throw CoreDataError.corruptStore(url, type: Self.storeTypeName, reason: "the last key given out for \(name) is \(value)")
            }
            guard let entity = openRequest.model.entitiesByName[name] else { continue }
            let root = entity.rootEntity.entityNumber
            highWater[root] = max(highWater[root] ?? 0, value)
        }
    }

    /// Removes to-one and to-many references to objects that are not in the store.
    private func dropDanglingReferences() {
        for record in records.values {
            for slot in record.entity.layout.storedSlots {
                if let target = record.values[slot] as? ObjectKey, records[target] == nil { record.values[slot] = nil }
            }
            for (slot, keys) in record.toMany { record.toMany[slot] = keys.filter { records[$0] != nil } }
        }
    }
}

/// Turns one snapshot object, by names, into a record of the request's model, checking its numbers and values.
struct AtomicSnapshotLoader {
    let model: NSManagedObjectModel
    /// The entities the store holds (its configuration's).
    let allowed: Set<ObjectIdentifier>
    /// Whether names the model lacks are skipped (a migration) rather than refused.
    let migrating: Bool
    let url: URL
    let storeTypeName: String

    init(request: StoreOpenRequest, migrating: Bool, url: URL, storeTypeName: String) {
        model = request.model
        allowed = Set(request.entities.map(ObjectIdentifier.init))
        self.migrating = migrating
        self.url = url
        self.storeTypeName = storeTypeName
    }

    /// The record of `object`, or nil when migrating and the model has no such entity.
    /// - Throws: 259 for a key or version out of range or a value of the wrong type; 134100 for a name the
    ///   model lacks (when not migrating); 134140 for a value a migration cannot convert.
    func record(from object: AtomicStoreSnapshot.Object) throws -> AtomicRecord? {
        guard let entity = try entity(named: object.reference.entityName) else { return nil }
        try checkNumbers(of: object)
        var values = [Any?](repeating: nil, count: entity.layout.slotCount)
        try fillAttributes(of: object, entity: entity, into: &values)
        try fillToOnes(of: object, entity: entity, into: &values)
        let key = ObjectKey(entityNumber: entity.entityNumber, primaryKey: object.reference.primaryKey)
        return AtomicRecord(key: key, entity: entity, version: max(object.version, 1), values: values,
                            toMany: try toManyKeys(of: object, entity: entity))
    }

    /// The model's entity of that name, if the store holds it.
    /// - Throws: 134100 when it does not and the load is not a migration.
    private func entity(named name: String) throws -> NSEntityDescription? {
        if let entity = model.entitiesByName[name], allowed.contains(ObjectIdentifier(entity)) { return entity }
        if migrating { return nil }
        throw CoreDataError.incompatibleModel(url, reason: "the store has objects of entity \(name), which the model lacks")
    }

    /// The key a reference names (nil when migrating and its entity is gone).
    private func key(_ reference: AtomicStoreSnapshot.Reference) throws -> ObjectKey? {
        guard let entity = try entity(named: reference.entityName) else { return nil }
        return ObjectKey(entityNumber: entity.entityNumber, primaryKey: reference.primaryKey)
    }

    /// - Throws: 259 when the object's key is not in 1...`largestStoredNumber` or its version is past it.
    private func checkNumbers(of object: AtomicStoreSnapshot.Object) throws {
        let limit = StoreNumberLimits.largestStoredNumber
        let reference = object.reference
        guard reference.primaryKey > 0, reference.primaryKey <= limit else {
            throw CoreDataError.corruptStore(url, type: storeTypeName, reason: "an object of \(reference.entityName) has key \(reference.primaryKey)")
        }
        guard object.version <= limit else {
            throw CoreDataError.corruptStore(url, type: storeTypeName, reason: "an object of \(reference.entityName) has version \(object.version)")
        }
    }

    /// Puts each attribute value (composite leaves nested again) into its slot, in the attribute's type.
    private func fillAttributes(of object: AtomicStoreSnapshot.Object, entity: NSEntityDescription, into values: inout [Any?]) throws {
        let layout = entity.layout
        for (name, value) in CompositeAttributeValue.nestingLeaves(of: object.attributes, in: layout) {
            guard let slot = layout.slotByName[name], let attribute = layout.allProperties[slot] as? NSAttributeDescription else {
                if migrating { continue }
                throw CoreDataError.incompatibleModel(url, reason: "entity \(entity.name ?? "") has no attribute \(name)")
            }
            guard let coerced = AttributeValueCoercion.coerce(value, for: attribute) else {
                if migrating {
                    throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: name,
                                                           reason: "holds a \(type(of: value)), which the inferred mapping cannot convert to type \(attribute.attributeType.rawValue)")
                }
                throw CoreDataError.corruptStore(url, type: storeTypeName, reason: "attribute \(name) of \(entity.name ?? "") holds a \(type(of: value)), not a value of type \(attribute.attributeType)")
            }
            values[slot] = coerced
        }
    }

    /// Puts each to-one destination's key into its slot.
    private func fillToOnes(of object: AtomicStoreSnapshot.Object, entity: NSEntityDescription, into values: inout [Any?]) throws {
        let layout = entity.layout
        for (name, reference) in object.toOne {
            guard let slot = layout.slotByName[name], let relationship = layout.allProperties[slot] as? NSRelationshipDescription, !relationship.isToMany else {
                if migrating { continue }
                throw CoreDataError.incompatibleModel(url, reason: "entity \(entity.name ?? "") has no to-one relationship \(name)")
            }
            values[slot] = try key(reference)
        }
    }

    /// The to-many destinations' keys by slot.
    private func toManyKeys(of object: AtomicStoreSnapshot.Object, entity: NSEntityDescription) throws -> [Int: [ObjectKey]] {
        let layout = entity.layout
        var toMany: [Int: [ObjectKey]] = [:]
        for (name, references) in object.toMany {
            guard let slot = layout.slotByName[name], let relationship = layout.allProperties[slot] as? NSRelationshipDescription, relationship.isToMany else {
                if migrating { continue }
                throw CoreDataError.incompatibleModel(url, reason: "entity \(entity.name ?? "") has no to-many relationship \(name)")
            }
            toMany[slot] = try references.compactMap(key)
        }
        return toMany
    }
}

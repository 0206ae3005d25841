import CoreDataStoreKit

/// Turns the snapshot `AppleBinaryStoreReader` gives into one by the model's names, before it is loaded:
/// attribute positions become property names (`ApplePropertyOrder`), relationships the model has as to-one
/// become to-one references, composite values become their dotted leaves, and the header's key generation
/// becomes every root entity's high-water mark (the store has one key sequence).
///
/// Positions are read with the model in hand only when the file was saved with it (its version hashes match,
/// or `NSIgnorePersistentStoreVersioningOption` is set) and the entity has as many properties as the file has
/// positions; otherwise the file opens with 134100, since no name says which value is which. Files this package
/// writes list the names (`CDPropertyNames`) and open with any model, migrations included.
struct AppleBinaryNameMatching {
    let request: StoreOpenRequest

    /// The placeholder attribute under which the reader records how many positions an object's array has.
    static let positionCountName = "\u{0}#"

    func match(_ snapshot: AtomicStoreSnapshot) throws -> AtomicStoreSnapshot {
        var matched = snapshot
        if let generation = matched.primaryKeyHighWater.removeValue(forKey: AppleBinaryStoreReader.primaryKeyGenerationName) {
            for entity in request.entities where entity.superentity == nil {
                guard let name = entity.name else { continue }
                matched.primaryKeyHighWater[name] = max(matched.primaryKeyHighWater[name] ?? 0, generation)
            }
        }
        let positionsUsable = try positionsAreUsable(in: snapshot)
        var orders: [String: [NSPropertyDescription]] = [:]
        matched.objects = try snapshot.objects.map { object in
            guard let entity = request.model.entitiesByName[object.reference.entityName] else { return object }
            let name = object.reference.entityName
            let order = orders[name] ?? ApplePropertyOrder.properties(of: entity)
            orders[name] = order
            return try resolved(object, entity: entity, order: order, positionsUsable: positionsUsable)
        }
        return matched
    }

    /// Whether positions may be read with the request's model.
    /// - Throws: nothing when no object has positional values.
    private func positionsAreUsable(in snapshot: AtomicStoreSnapshot) throws -> Bool {
        guard snapshot.objects.contains(where: { $0.attributes[Self.positionCountName] != nil }) else { return true }
        if storeOptionIsSet(request.options, NSIgnorePersistentStoreVersioningOption) { return true }
        if case .different = ModelCompatibility.compare(metadata: snapshot.metadata, entities: request.entities) { return false }
        return true
    }

    /// A transformable attribute's value object (as Apple keeps it) as the data the store holds: the attribute's
    /// transformer applied as on a save.
    /// - Throws: 134091 when the transformer cannot turn it into data.
    private func transformedData(of value: Any, attribute: NSAttributeDescription, entity: NSEntityDescription) throws -> Data? {
        do {
            return try TransformableStorage.data(for: value, attribute: attribute)
        } catch {
            throw CoreDataError.unsupported("the \(type(of: value)) the binary store at \(request.url?.path ?? "<no URL>") holds for transformable attribute \(attribute.name) of \(entity.name ?? "") cannot be turned into data by its transformer (\((error as NSError).localizedDescription))")
        }
    }

    private func resolved(_ object: AtomicStoreSnapshot.Object, entity: NSEntityDescription, order: [NSPropertyDescription],
                         positionsUsable: Bool) throws -> AtomicStoreSnapshot.Object {
        var result = object
        result.attributes = [:]
        if let count = object.attributes[Self.positionCountName] as? Int {
            guard positionsUsable else {
                throw CoreDataError.incompatibleModel(request.url, reason: "Apple's binary store keeps attribute values by position, and this file was saved with another model, so its values cannot be told apart (open it with the model that saved it)")
            }
            guard count == order.count else {
                throw CoreDataError.incompatibleModel(request.url, reason: "objects of \(entity.name ?? "") hold \(count) property positions, but the model's entity has \(order.count) properties")
            }
        }
        for (name, value) in object.attributes where name != Self.positionCountName {
            var property: NSPropertyDescription? = entity.propertiesByName[name]
            if let position = AppleBinaryStoreReader.position(ofPositionalName: name) {
                guard position < order.count else { continue }
                property = order[position]
                // Apple leaves relationship and transient positions empty; a value there is not an attribute's.
                guard property is NSAttributeDescription, property?.isTransient == false else { continue }
            }
            guard let property else {
                result.attributes[name] = value
                continue
            }
            if let composite = property as? NSCompositeAttributeDescription {
                for leaf in CompositeAttributeValue.flattenedLeaves(of: value, composite: composite) { result.attributes[leaf.name] = leaf.value }
            } else if let attribute = property as? NSAttributeDescription, attribute.attributeType == .transformableAttributeType, !(value is Data) {
                result.attributes[property.name] = try transformedData(of: value, attribute: attribute, entity: entity)
            } else {
                result.attributes[property.name] = value
            }
        }
        for (name, references) in object.toMany {
            guard let relationship = entity.relationshipsByName[name], !relationship.isToMany else { continue }
            result.toMany[name] = nil
            if let first = references.first { result.toOne[name] = first }
        }
        return result
    }
}

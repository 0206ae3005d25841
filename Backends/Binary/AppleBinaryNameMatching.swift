import CoreDataStoreKit

/// Turns the snapshot `AppleBinaryStoreReader` gives into one by property names, before it is loaded: attribute
/// positions become property names (`ApplePropertyOrder`), relationships the model has as to-one become to-one
/// references, composite values become their dotted leaves, and the header's key generation becomes every root
/// entity's high-water mark (the store has one key sequence).
///
/// Positions are named with the model that saved the file (`PositionModel`): the request's model when the file's
/// version hashes are its own (or `NSIgnorePersistentStoreVersioningOption` is set); otherwise, when the options
/// allow a lightweight migration, the model version whose hashes the file records
/// (`StoreOpenRequest.savedModelVersion(matching:)`: the coordinator's migration source, or a version of the
/// model's package), whose names the migration then maps to the request's model as for any file that records
/// names. Without the migration options a file of another model fails with 134100; with them and no such
/// version, with 134130. Files this package writes list the names (`CDPropertyNames`) and need no model.
struct AppleBinaryNameMatching {
    let request: StoreOpenRequest

    /// The placeholder attribute under which the reader records how many positions an object's array has.
    static let positionCountName = "\u{0}#"

    /// The model whose property order names the positions of the file's attribute values.
    struct PositionModel {
        let model: NSManagedObjectModel
        /// The model as messages name it.
        let name: String
        /// Whether the file's version hashes name this model (so a position count that differs from its entity's
        /// property count means the file contradicts itself) rather than `NSIgnorePersistentStoreVersioningOption`
        /// imposing it.
        let isRecordedByFile: Bool
    }

    func match(_ snapshot: AtomicStoreSnapshot) throws -> AtomicStoreSnapshot {
        var matched = snapshot
        if let generation = matched.primaryKeyHighWater.removeValue(forKey: AppleBinaryStoreReader.primaryKeyGenerationName) {
            for entity in request.entities where entity.superentity == nil {
                guard let name = entity.name else { continue }
                matched.primaryKeyHighWater[name] = max(matched.primaryKeyHighWater[name] ?? 0, generation)
            }
        }
        let positions = try positionModel(for: snapshot)
        var orders: [String: [NSPropertyDescription]] = [:]
        matched.objects = try snapshot.objects.map { object in
            let name = object.reference.entityName
            guard let entity = positions.model.entitiesByName[name] else {
                // The request's model refuses or drops an entity it lacks when the object is loaded; another model
                // was chosen because the file's hashes name it, and they name no such entity.
                guard positions.model !== request.model, object.attributes[Self.positionCountName] != nil else { return object }
                throw CoreDataError.corruptStore(request.url, type: NSBinaryStoreType, reason: "it holds an object of entity \(name), which \(positions.name), whose version hashes it records, does not have")
            }
            let order = orders[name] ?? ApplePropertyOrder.properties(of: entity)
            orders[name] = order
            return try resolved(object, entity: entity, order: order, positions: positions)
        }
        return matched
    }

    /// The model that names the positions of `snapshot`'s values (the request's model when no object has
    /// positional values).
    /// - Throws: 134100 when the file was saved with another model and the options allow no lightweight
    ///   migration; 134130 when they do and no model version with the file's hashes is found; 259/260 when a
    ///   version of the model's package cannot be read.
    private func positionModel(for snapshot: AtomicStoreSnapshot) throws -> PositionModel {
        // A file without version hashes (or opened ignoring them) does not say the coordinator's model saved it.
        let recordsHashes = snapshot.metadata[NSStoreModelVersionHashesKey] != nil
            && !storeOptionIsSet(request.options, NSIgnorePersistentStoreVersioningOption)
        let requestModel = PositionModel(model: request.model, name: "the coordinator's model", isRecordedByFile: recordsHashes)
        guard snapshot.objects.contains(where: { $0.attributes[Self.positionCountName] != nil }),
              !storeOptionIsSet(request.options, NSIgnorePersistentStoreVersioningOption) else { return requestModel }
        guard case .different(let reason) = ModelCompatibility.compare(metadata: snapshot.metadata, entities: request.entities) else {
            return requestModel
        }
        guard request.allowsLightweightMigration else {
            let saved = try? request.savedModelVersion(matching: snapshot.metadata)
            throw CoreDataError.incompatibleModel(request.url, reason: "\(reason); Apple's binary store keeps attribute values by position in the order of the model that saved it\(saved.map { " (\(Self.describe($0)))" } ?? ""), so it opens with another model only through a migration (NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption)")
        }
        guard let source = try request.savedModelVersion(matching: snapshot.metadata) else {
            let places = request.model.versionedPackageURL.map { "the versions of \($0.path)" }
                ?? "the coordinator's model was not loaded from a versioned package (.xcdatamodeld, .momd) whose versions could be searched"
            throw CoreDataError.make(NSMigrationMissingSourceModelError,
                                     "Can't find model for source store: the binary store at \(request.url?.path ?? "<no URL>") keeps attribute values by position in the order of the model that saved it, and no model whose version hashes are those the store records was found (\(places), and the places automatic migration searches).",
                                     userInfo: request.url.map { [NSURLErrorKey: $0] } ?? [:])
        }
        MigrationDebugLog.note("reading the values of the binary store at \(request.url?.path ?? "<no URL>") by the property order of \(Self.describe(source))")
        return PositionModel(model: source.model, name: Self.describe(source), isRecordedByFile: true)
    }

    /// A model version as messages name it ("version V1 of Notes.xcdatamodeld").
    private static func describe(_ version: ModelVersion) -> String {
        "version \(version.name) of \(version.model.versionedPackageURL?.lastPathComponent ?? version.url.lastPathComponent)"
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

    /// `object` with its values under `entity`'s property names (positions named by `order`, `entity`'s
    /// properties in Apple's order), its to-one relationships as references.
    /// - Throws: when the object has another number of positions than `order`: 259 when the file's hashes name
    ///   `positions`' model, else 134100; 134091 for a transformable value its transformer cannot turn into data.
    private func resolved(_ object: AtomicStoreSnapshot.Object, entity: NSEntityDescription, order: [NSPropertyDescription],
                         positions: PositionModel) throws -> AtomicStoreSnapshot.Object {
        var result = object
        result.attributes = [:]
        if let count = object.attributes[Self.positionCountName] as? Int, count != order.count {
            let reason = "objects of \(entity.name ?? "") hold \(count) values by position, but entity \(entity.name ?? "") of \(positions.name) has \(order.count) properties"
            guard positions.isRecordedByFile else { throw CoreDataError.incompatibleModel(request.url, reason: reason) }
            throw CoreDataError.corruptStore(request.url, type: NSBinaryStoreType, reason: reason + ", and the file's version hashes say it was saved with that model")
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

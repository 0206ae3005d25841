/// Decides whether a store's recorded model matches the coordinator's model.
public enum ModelCompatibility {
    /// The framework version this package writes into the metadata it saves (`NSPersistenceFrameworkVersion`).
    public static let frameworkVersion = "swift-coredata 1"

    /// How a store's model relates to the coordinator's.
    public enum Verdict {
        /// The store was saved with this model.
        case same
        /// The store was saved with another model; its data must be migrated by name.
        case different(reason: String)
    }

    /// Compares the version hashes in `metadata` with the model's for the store's entities.
    ///
    /// Stores written by this package are compared by hash. Apple computes version hashes with an algorithm
    /// that is not documented, so for stores written elsewhere (another `NSPersistenceFrameworkVersion`) the
    /// hashes are compared by entity name only, and the store's own reader checks its contents against the
    /// model. A store without hashes (written by Mac OS X 10.4) always counts as the same.
    public static func compare(metadata: [String: Any], entities: [NSEntityDescription]) -> Verdict {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return .same }
        let ours = (metadata[NSPersistenceFrameworkVersionKey] as? String) == frameworkVersion
        let names = Set(entities.compactMap(\.name))
        let storedNames = Set(stored.keys)
        if storedNames.subtracting(names).count > 0 {
            return .different(reason: "the store has entities the model lacks: \(storedNames.subtracting(names).sorted().joined(separator: ", "))")
        }
        guard ours else { return .same }
        for entity in entities {
            guard let name = entity.name else { continue }
            guard let hash = stored[name] as? Data else {
                return .different(reason: "the store has no entity \(name)")
            }
            if hash != entity.versionHash { return .different(reason: "entity \(name) has changed") }
        }
        return .same
    }

    /// The metadata a store records for a model: type, UUID, version hashes and identifiers.
    public static func metadata(storeType: String, uuid: String, entities: [NSEntityDescription],
                                model: NSManagedObjectModel, keeping existing: [String: Any] = [:]) -> [String: Any] {
        var metadata = existing
        metadata[NSStoreTypeKey] = storeType
        metadata[NSStoreUUIDKey] = uuid
        var hashes: [String: Data] = [:]
        for entity in entities { if let name = entity.name { hashes[name] = entity.versionHash } }
        metadata[NSStoreModelVersionHashesKey] = hashes
        metadata[NSStoreModelVersionHashesVersionKey] = 3
        metadata[NSStoreModelVersionIdentifiersKey] = model.versionIdentifiers.isEmpty ? [""] : model.versionIdentifiers.compactMap { $0.base as? String }.sorted()
        metadata[NSPersistenceFrameworkVersionKey] = frameworkVersion
        return metadata
    }
}

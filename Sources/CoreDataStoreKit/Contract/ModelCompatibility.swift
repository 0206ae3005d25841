/// Decides whether a store's recorded model matches the coordinator's model, and writes the metadata keys
/// that record a model, as Apple's Core Data writes them.
public enum ModelCompatibility {
    /// The `NSPersistenceFrameworkVersion` this package writes: Apple's framework version whose metadata
    /// (version hashes, `NSStoreModelVersionHashesDigest`, `NSStoreModelVersionChecksumKey`) it reproduces,
    /// the newest seen in Apple-written stores. Apple writes a number; so does this package.
    public static let frameworkVersion = 1344

    /// What earlier versions of this package wrote as `NSPersistenceFrameworkVersion`, with version hashes of
    /// their own scheme, not Apple's. Such a store's hashes are not compared (its schema still is).
    public static let legacyFrameworkVersion = "swift-coredata 1"

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over the entity names and hashes.
    public static let hashesDigestKey = "NSStoreModelVersionHashesDigest"
    /// `NSStoreModelVersionChecksumKey`: the model's `versionChecksum`.
    public static let checksumKey = "NSStoreModelVersionChecksumKey"

    /// The metadata keys that describe the store's model, which `metadata(storeType:uuid:entities:model:keeping:)`
    /// writes and a save keeps.
    public static let modelKeys = [NSStoreModelVersionHashesKey, NSStoreModelVersionHashesVersionKey,
                                   NSStoreModelVersionIdentifiersKey, hashesDigestKey, checksumKey,
                                   NSPersistenceFrameworkVersionKey]

    /// How a store's model relates to the coordinator's.
    public enum Verdict {
        /// The store was saved with this model.
        case same
        /// The store was saved with another model; its data must be migrated by name.
        case different(reason: String)
    }

    /// Compares the version hashes in `metadata` with the model's for the store's entities, as Apple does.
    ///
    /// Every store that records hashes, written by Apple's Core Data or by this package, is compared by hash:
    /// the store must have exactly the entities given, each with the hash the model computes. A hash that is
    /// not 32 bytes of data counts as a different model. Two kinds of store carry no comparable hashes and
    /// count as the same here, leaving the store's reader to check its contents against the model: a store
    /// without hashes (written by Mac OS X 10.4), and one written by an earlier version of this package
    /// (`legacyFrameworkVersion`), whose entity names are still compared.
    public static func compare(metadata: [String: Any], entities: [NSEntityDescription]) -> Verdict {
        guard let recorded = metadata[NSStoreModelVersionHashesKey] else { return .same }
        guard let stored = recorded as? [String: Any] else {
            return .different(reason: "the store's version hashes are not a dictionary")
        }
        let names = Set(entities.compactMap(\.name))
        let extra = Set(stored.keys).subtracting(names)
        if !extra.isEmpty {
            return .different(reason: "the store has entities the model lacks: \(extra.sorted().joined(separator: ", "))")
        }
        if isLegacy(metadata) { return .same }
        for entity in entities {
            guard let name = entity.name else { continue }
            guard let value = stored[name] else { return .different(reason: "the store has no entity \(name)") }
            guard let hash = value as? Data, hash.count == 32 else {
                return .different(reason: "the store's version hash of entity \(name) is not 32 bytes")
            }
            if hash != entity.versionHash { return .different(reason: "entity \(name) has changed") }
        }
        return .same
    }

    /// The metadata a store records for a model, as Apple's Core Data writes it: type, UUID, the entities'
    /// version hashes (`NSStoreModelVersionHashesVersion` 3), the model's version identifiers, the hashes'
    /// digest, the model checksum and the framework version. Other keys in `existing` (an app's own) are kept.
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
        metadata[hashesDigestKey] = VersionHashing.digest(of: hashes)
        metadata[checksumKey] = VersionHashing.checksum(of: hashes)
        metadata[NSPersistenceFrameworkVersionKey] = frameworkVersion
        return metadata
    }

    /// Whether `metadata` was written by an earlier version of this package, with hashes of its own scheme.
    public static func isLegacy(_ metadata: [String: Any]) -> Bool {
        (metadata[NSPersistenceFrameworkVersionKey] as? String) == legacyFrameworkVersion
    }

    /// `metadata` with Apple's model keys for `entities` when it is legacy (`isLegacy(_:)`), unchanged otherwise:
    /// a store opened with a model records that model's hashes from its next write on.
    public static func upgradingLegacy(_ metadata: [String: Any], storeType: String, entities: [NSEntityDescription],
                                       model: NSManagedObjectModel) -> [String: Any] {
        guard isLegacy(metadata) else { return metadata }
        return Self.metadata(storeType: storeType, uuid: (metadata[NSStoreUUIDKey] as? String) ?? UUID().uuidString,
                             entities: entities, model: model, keeping: metadata)
    }

    /// `replacement` (metadata an app set) with the model keys of `current` (what the store records now), so
    /// that a save never drops or changes the record of the store's model.
    public static func keepingModelKeys(of current: [String: Any], in replacement: [String: Any]) -> [String: Any] {
        var metadata = replacement
        for key in modelKeys { metadata[key] = current[key] }
        return metadata
    }
}

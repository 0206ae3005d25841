/// A model: the entities, the configurations that group them, and fetch request templates
/// (Apple's class of the same name).
///
/// Entities are numbered as Apple numbers them in a SQLite store (`Z_ENT`): root entities in case-insensitive
/// alphabetical order, each followed by its subentities, depth first, also alphabetically.
///
/// `@unchecked Sendable`: the model is frozen once a coordinator is created with it (a later change stops the
/// program, as Apple's "Can't modify an immutable model" does), so what threads share is only read; before that it is
/// configured on one thread.
open class NSManagedObjectModel: NSObject, NSCopying, @unchecked Sendable {
    /// The model's entities, subentities included. Setting it makes this model their owner.
    open var entities: [NSEntityDescription] = [] {
        willSet { willChange("entities") }
        didSet { entitiesDidChange() }
    }
    /// Identifiers of this model version (Xcode's "model version identifier").
    open var versionIdentifiers: Set<AnyHashable> = [] {
        willSet { willChange("versionIdentifiers") }
    }
    /// Strings the model editor localizes (recorded only).
    open var localizationDictionary: [String: String]? = nil {
        willSet { willChange("localizationDictionary") }
    }

    private var configurationEntities: [String: [NSEntityDescription]] = [:]
    private var configurationOrder: [String] = []
    private var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
    /// An addition to Apple's API: the predicates of fetch request templates as a model file writes them
    /// (predicate format text), by template name.
    public var fetchRequestTemplatePredicateFormats: [String: String] = [:] {
        willSet { willChange("fetchRequestTemplatePredicateFormats") }
    }
    /// An addition to Apple's API: the versioned package (`.xcdatamodeld` or `.momd`) this model was loaded
    /// from, or nil for a model built in code or read from a single file. A store saved with another version
    /// of the package finds its migration source among the package's versions (`ModelVersion`).
    public internal(set) var versionedPackageURL: URL?

    public override init() { super.init() }

    /// An addition to Apple's API: a model with these entities.
    public convenience init(entities: [NSEntityDescription]) {
        self.init()
        self.entities = entities
        entitiesDidChange()  // property observers do not run in an initializer of the same class
    }

    /// A model made of the entities of several models (Apple's `init(byMerging:)`); nil when two share a name.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        self.init()
        var merged: [NSEntityDescription] = []
        var names = Set<String>()
        for model in models ?? [] {
            for entity in model.entities {
                guard let name = entity.name, names.insert(name).inserted else { return nil }
                merged.append(entity)
            }
        }
        entities = merged
        entitiesDidChange()
    }

    /// A model made of those of `models` that a store with `metadata` was saved with (Apple's
    /// `init(byMerging:forStoreMetadata:)`): each model is taken when every one of its entities is recorded in
    /// the metadata with the model's version hash (of several versions with the same entities and hashes, the
    /// first). Nil when the models taken do not describe the store exactly (an entity of the metadata is
    /// missing), or two of them define an entity of the same name.
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        var matching: [NSManagedObjectModel] = []
        for model in models where !model.entities.isEmpty && model.entities.allSatisfy({ entity in
            entity.name.flatMap { stored[$0] as? Data } == entity.versionHash
        }) {
            let names = Set(model.entitiesByName.keys)
            if !matching.contains(where: { Set($0.entitiesByName.keys) == names }) { matching.append(model) }
        }
        self.init(byMerging: matching)
        guard Set(entitiesByName.keys) == Set(stored.keys) else { return nil }
    }

    /// The model's entities by name.
    open private(set) var entitiesByName: [String: NSEntityDescription] = [:]

    /// The entities in their `Z_ENT` order; `entitiesInStoreOrder[n - 1].entityNumber == n`.
    public private(set) var entitiesInStoreOrder: [NSEntityDescription] = []

    /// The entity with a given `Z_ENT` number, or nil.
    public func entity(withNumber number: Int32) -> NSEntityDescription? {
        let index = Int(number) - 1
        return entitiesInStoreOrder.indices.contains(index) ? entitiesInStoreOrder[index] : nil
    }

    /// Rebuilds `entitiesByName` and the entity numbers after the entities or their names changed.
    func entitiesDidChange() {
        var byName: [String: NSEntityDescription] = [:]
        for entity in entities {
            entity.managedObjectModel = self
            if let name = entity.name { byName[name] = entity }
        }
        entitiesByName = byName
        let inModel = Set(entities.map(ObjectIdentifier.init))
        func ordered(_ list: [NSEntityDescription]) -> [NSEntityDescription] {
            list.sorted { ($0.name ?? "").uppercased() < ($1.name ?? "").uppercased() }
        }
        var order: [NSEntityDescription] = []
        var seen = Set<ObjectIdentifier>()
        func visit(_ entity: NSEntityDescription) {
            guard inModel.contains(ObjectIdentifier(entity)), seen.insert(ObjectIdentifier(entity)).inserted else { return }
            order.append(entity)
            for sub in ordered(entity.subentities) { visit(sub) }
        }
        for root in ordered(entities.filter { $0.superentity == nil || !inModel.contains(ObjectIdentifier($0.superentity!)) }) {
            visit(root)
        }
        for entity in ordered(entities) { visit(entity) }
        for (index, entity) in order.enumerated() { entity.entityNumber = Int32(index + 1) }
        entitiesInStoreOrder = order
        for entity in entities { entity.invalidateCaches() }
    }

    // MARK: Freezing

    /// An addition to Apple's API (Apple keeps this flag private): whether the model may still change, true
    /// until a persistent store coordinator is made with it. As on Apple's platforms, a model in use must not
    /// change: from then on, changing the model, one of its entities or one of their properties stops the
    /// program with "Can't modify an immutable model" (Apple raises an exception with that reason). A frozen
    /// model is only read, which is what lets coordinators, contexts and stores on any thread share it. A copy
    /// (`copy()`) is editable again.
    public private(set) var isEditable = true

    /// Freezes the model (see `isEditable`) and builds each entity's layout afresh, so that nothing about the model
    /// is computed lazily once threads share it, and each layout reflects the properties as frozen (a layout built
    /// earlier, before a property's optionality or validation rules changed, is dropped). Called by the
    /// coordinator made with the model.
    package func freeze() {
        guard isEditable else { return }
        isEditable = false
        for entity in entities { entity.invalidateCaches() }
        for entity in entities { _ = entity.layout }
    }

    /// Stops the program when `model` is frozen; `change` says what was about to change.
    static func requireEditable(_ model: NSManagedObjectModel?, _ change: @autoclosure () -> String) {
        guard let model, !model.isEditable else { return }
        fatalError("Can't modify an immutable model: \(change()) was changed after a persistent store coordinator "
                   + "began using the model. Copy the model (copy()) to make a changed version.")
    }

    private func willChange(_ key: String) {
        Self.requireEditable(self, "the model's \(key)")
    }

    // MARK: Configurations

    /// The names of the model's configurations (not counting the default one).
    open var configurations: [String] { configurationOrder }

    /// The entities of a configuration; nil or an unknown name gives every entity, as Apple does for "Default".
    open func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, let list = configurationEntities[configuration] else {
            if let configuration, configuration != "Default", configurationEntities[configuration] == nil {
                return nil
            }
            return entities
        }
        return list
    }

    /// Makes a configuration of these entities.
    open func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        willChange("configuration \(configuration)")
        if configurationEntities[configuration] == nil { configurationOrder.append(configuration) }
        configurationEntities[configuration] = entities
    }

    // MARK: Version hashes

    /// Each entity's version hash, by entity name (what a store records in its metadata): Apple's hashes for
    /// the same definitions.
    open var entityVersionHashesByName: [String: Data] {
        var hashes: [String: Data] = [:]
        for entity in entities { if let name = entity.name { hashes[name] = entity.versionHash } }
        return hashes
    }

    /// Whether `object` is a model with the same entities, each with the same version hash: the same model to
    /// Core Data's versioning, as two loads of one model file are (apps match model versions they loaded
    /// separately with `isEqual` and `firstIndex(of:)`). Names, fetch request templates and user info, which
    /// version hashes leave out, are not compared.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectModel else { return false }
        return other === self || other.entityVersionHashesByName == entityVersionHashesByName
    }

    /// Equal for equal models (`isEqual(_:)`): the entities' names and version hashes.
    open override var hash: Int {
        var hasher = Hasher()
        for (name, versionHash) in entityVersionHashesByName.sorted(by: { $0.key < $1.key }) {
            hasher.combine(name)
            hasher.combine(versionHash)
        }
        return hasher.finalize()
    }

    /// The model's checksum (Apple's `versionChecksum`): base64 of SHA-256 over the entity version hashes in
    /// order of entity name, equal to what Apple's Core Data computes for the same model and records in a
    /// `.momd`'s `VersionInfo.plist` and in store metadata (`NSStoreModelVersionChecksumKey`).
    open var versionChecksum: String { VersionHashing.checksum(of: entityVersionHashesByName) }

    /// Whether a store whose metadata is `metadata` holds the entities of `configuration` as this model has them:
    /// every entity's version hash in the metadata equals this model's.
    open func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return false }
        for entity in entities(forConfigurationName: configuration) ?? [] {
            guard let name = entity.name, let hash = stored[name] as? Data, hash == entity.versionHash else { return false }
        }
        return true
    }

    // MARK: Fetch request templates

    /// The model's stored fetch requests, by name.
    open var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] { templates }

    /// The stored fetch request with this name, or nil.
    open func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? { templates[name] }

    /// Stores a fetch request under a name; nil removes it.
    open func setFetchRequestTemplate(_ fetchRequestTemplate: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        willChange("fetch request template \(name)")
        templates[name] = fetchRequestTemplate
    }

    // MARK: NSCopying

    /// A deep copy: new entities and properties with the same structure.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSManagedObjectModel()
        var copies: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in entities { copies[ObjectIdentifier(entity)] = entity.copy() as? NSEntityDescription }
        for entity in entities {
            guard let entityCopy = copies[ObjectIdentifier(entity)] else { continue }
            entityCopy.subentities = entity.subentities.compactMap { copies[ObjectIdentifier($0)] }
            for property in entityCopy.declaredProperties {
                guard let relationship = property as? NSRelationshipDescription,
                      let original = entity.declaredProperties.first(where: { $0.name == property.name }) as? NSRelationshipDescription
                else { continue }
                relationship.destinationEntity = original.destinationEntity.flatMap { copies[ObjectIdentifier($0)] }
                // The inverse may be inherited by the destination: it is looked up on the copy of its declaring entity.
                if let inverse = original.inverseRelationship, let inverseOwner = inverse.entity.flatMap({ copies[ObjectIdentifier($0)] }) {
                    relationship.inverseRelationship = inverseOwner.declaredProperties.first { $0.name == inverse.name } as? NSRelationshipDescription
                }
            }
        }
        copy.entities = entities.compactMap { copies[ObjectIdentifier($0)] }
        for name in configurationOrder {
            copy.setEntities((configurationEntities[name] ?? []).compactMap { copies[ObjectIdentifier($0)] }, forConfigurationName: name)
        }
        copy.versionIdentifiers = versionIdentifiers
        copy.templates = templates
        copy.fetchRequestTemplatePredicateFormats = fetchRequestTemplatePredicateFormats
        copy.versionedPackageURL = versionedPackageURL
        return copy
    }
}

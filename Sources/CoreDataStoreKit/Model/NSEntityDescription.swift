import Synchronization

/// An entity of a model: a name, a class name, properties, and a place in an inheritance tree
/// (Apple's class of the same name).
///
/// An entity's `properties`, like its `propertiesByName`, include the ones it inherits; setting `properties` sets
/// only the ones it declares (`declaredProperties`).
/// Once the entity's model is used by a coordinator, it must not change.
///
/// `@unchecked Sendable`: the model is frozen once a coordinator uses it (`NSManagedObjectModel`), so from then on it
/// is only read; `cachedLayout` and `retiredLayouts` are read and written only under `layoutLock`, and
/// `publishedLayout` is an atomic.
open class NSEntityDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The entity's name, unique in its model.
    open var name: String? {
        willSet { willChange("name") }
        didSet {
            invalidateCaches()
            managedObjectModel?.entitiesDidChange()  // names key `entitiesByName` and order entity numbers
        }
    }
    /// The name of the class whose instances represent the entity (`NSManagedObject` by default).
    open var managedObjectClassName: String! = "NSManagedObject" {
        willSet { willChange("managedObjectClassName") }
    }
    /// Whether the entity has no instances of its own (only its subentities do).
    open var isAbstract: Bool = false {
        willSet { willChange("isAbstract") }
    }
    /// Free-form information from the model editor: empty, not nil, when there is none (as Apple's).
    open var userInfo: [AnyHashable: Any]? = [:] {
        willSet { willChange("userInfo") }
    }
    /// A string mixed into the version hash.
    open var versionHashModifier: String? = nil {
        willSet { willChange("versionHashModifier") }
    }
    /// The name this entity had in a previous model version.
    open var renamingIdentifier: String? = nil {
        willSet { willChange("renamingIdentifier") }
    }
    /// Groups of property names whose values must be unique together, as `[[String]]`.
    open var uniquenessConstraints: [[Any]] = [] {
        willSet { willChange("uniquenessConstraints") }
    }
    /// Fetch indexes: each a name and the property names it covers, in order.
    open var indexes: [NSFetchIndexDescription] = [] {
        willSet { willChange("indexes") }
    }
    /// Groups of property names indexed together (Apple's deprecated `compoundIndexes`), as `[[String]]`.
    open var compoundIndexes: [[Any]] = [] {
        willSet { willChange("compoundIndexes") }
    }
    /// The model that holds the entity.
    open internal(set) weak var managedObjectModel: NSManagedObjectModel!

    /// The entity this one inherits from.
    open internal(set) weak var superentity: NSEntityDescription?

    /// The entities that inherit from this one. Setting it makes this entity their superentity.
    open var subentities: [NSEntityDescription] = [] {
        willSet { willChange("subentities") }
        didSet {
            for old in oldValue where old.superentity === self { old.superentity = nil }
            for sub in subentities { sub.superentity = self }
            invalidateCaches()
        }
    }

    /// The properties the entity declares itself, in the order they were set (what setting `properties` keeps).
    ///
    /// Not Apple's API: what model files record for the entity, what a class generator declares and what the SQL
    /// schema walks entity by entity. Each of these properties has this entity as its `entity`.
    package private(set) var declaredProperties: [NSPropertyDescription] = []

    /// Every property of the entity, as Apple's: the inherited ones first (the superentity's `properties`, in its
    /// order), then the ones it declares, in the order they were set.
    ///
    /// A name is listed once: when an entity redeclares an inherited name (which Apple's model editor refuses),
    /// the ancestor's property is listed, as `propertiesByName` holds it. An inherited property's `entity` is the
    /// entity that declares it (see Decisions.md, "Inherited properties").
    ///
    /// Setting it sets only the properties the entity declares, and makes this entity their owner, as Apple's
    /// setter does. Properties in the new value that the entity inherits (the very descriptions an ancestor
    /// declares) stay with their ancestor, so `sub.properties.append(p)` adds `p` to the sub-entity's own.
    open var properties: [NSPropertyDescription] {
        get {
            var seen = Set<String>()
            return Self.ancestry(of: self).reversed().flatMap(\.declaredProperties).filter { property in
                property.name.isEmpty || seen.insert(property.name).inserted
            }
        }
        set {
            willChange("properties")
            let inherited = Set((superentity?.properties ?? []).map(ObjectIdentifier.init))
            declaredProperties = newValue.filter { !inherited.contains(ObjectIdentifier($0)) }
            for property in declaredProperties { property.entity = self }
            invalidateCaches()
        }
    }

    /// `entity`, its superentity, and so on up to the root, each once (a cycle of superentities, which a model
    /// refuses when it is used, ends at the first entity seen again).
    private static func ancestry(of entity: NSEntityDescription) -> [NSEntityDescription] {
        var chain: [NSEntityDescription] = []
        var current: NSEntityDescription? = entity
        while let candidate = current, !chain.contains(where: { $0 === candidate }) {
            chain.append(candidate)
            current = candidate.superentity
        }
        return chain
    }

    public override init() { super.init() }

    /// An addition to Apple's API: an entity made in one line, with a class name equal to its name unless given.
    public convenience init(name: String, managedObjectClassName: String? = nil, properties: [NSPropertyDescription] = []) {
        self.init()
        self.name = name
        self.managedObjectClassName = managedObjectClassName ?? name
        self.properties = properties
    }

    // MARK: Looking up properties

    /// Every property, inherited ones first, by name.
    open var propertiesByName: [String: NSPropertyDescription] { layout.propertiesByName }
    /// Every attribute, inherited ones included, by name.
    open var attributesByName: [String: NSAttributeDescription] { layout.attributesByName }
    /// Every relationship, inherited ones included, by name.
    open var relationshipsByName: [String: NSRelationshipDescription] { layout.relationshipsByName }

    /// The relationships whose destination is `entity` (or one of its ancestors).
    open func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        layout.allProperties.compactMap { $0 as? NSRelationshipDescription }.filter { relationship in
            guard let destination = relationship.destinationEntity else { return false }
            return entity.isKindOf(entity: destination)
        }
    }

    /// Whether this entity is `entity` or inherits from it.
    open func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The entity at the top of this entity's inheritance tree.
    public var rootEntity: NSEntityDescription {
        var current = self
        while let parent = current.superentity { current = parent }
        return current
    }

    /// The entity's version hash: the 32-byte SHA-256 digest Apple's Core Data computes for the same definition,
    /// what a store records in `NSStoreModelVersionHashes` (see `VersionHashing`).
    open var versionHash: Data { VersionHashing.hash(of: self) }

    /// Stops the program when the entity's model is frozen (see `NSManagedObjectModel.isEditable`).
    private func willChange(_ key: String) {
        NSManagedObjectModel.requireEditable(managedObjectModel, "the \(key) of the entity \(name ?? "without a name")")
    }

    // MARK: The layout, computed once

    private var cachedLayout: EntityLayout?
    /// Layouts replaced since they were published (the model changed after a layout was read): kept, since a
    /// reader may have loaded `publishedLayout` just before it changed. Written only under `layoutLock`.
    private var retiredLayouts: [EntityLayout] = []
    /// `cachedLayout`, unretained (held by `cachedLayout` or `retiredLayouts` while the entity lives), published
    /// with release ordering once built, so that reading the layout of a used entity takes no lock.
    private let publishedLayout = Atomic<UnsafeRawPointer?>(nil)
    private let layoutLock = NSLock()

    /// The entity's property slots and lookup tables, built on first use.
    ///
    /// Once built, read without a lock (one acquiring load): every object made reads it, from any thread.
    public var layout: EntityLayout {
        if let published = publishedLayout.load(ordering: .acquiring) {
            return Unmanaged<EntityLayout>.fromOpaque(published).takeUnretainedValue()
        }
        layoutLock.lock()
        defer { layoutLock.unlock() }
        if let layout = cachedLayout { return layout }
        let layout = EntityLayout(entity: self)
        cachedLayout = layout
        publishedLayout.store(UnsafeRawPointer(Unmanaged.passUnretained(layout).toOpaque()), ordering: .releasing)
        return layout
    }

    func invalidateCaches() {
        layoutLock.lock()
        if let layout = cachedLayout { retiredLayouts.append(layout) }
        cachedLayout = nil
        publishedLayout.store(nil, ordering: .releasing)
        layoutLock.unlock()
        for sub in subentities { sub.invalidateCaches() }
    }

    /// The entity's number in its model (Apple's `Z_ENT`); 0 until the entity is in a model.
    public internal(set) var entityNumber: Int32 = 0

    // MARK: NSCopying

    /// A copy with copies of the properties the entity declares, outside any model and hierarchy.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSEntityDescription()
        copy.name = name
        copy.managedObjectClassName = managedObjectClassName
        copy.isAbstract = isAbstract
        copy.userInfo = userInfo
        copy.versionHashModifier = versionHashModifier
        copy.renamingIdentifier = renamingIdentifier
        copy.uniquenessConstraints = uniquenessConstraints
        copy.indexes = indexes
        copy.compoundIndexes = compoundIndexes
        copy.properties = declaredProperties.map { $0.copy() as! NSPropertyDescription }
        return copy
    }

    open override var description: String {
        "(\(type(of: self))) \(name ?? "<unnamed>"), managedObjectClassName \(managedObjectClassName ?? ""), abstract \(isAbstract), superentity \(superentity?.name ?? "nil"), properties \(properties.map(\.name))"
    }
}

/// A fetch index of an entity (Apple's `NSFetchIndexDescription`, reduced to what stores use).
///
/// `@unchecked Sendable`: configured before its entity's model is used by a coordinator, then only read
/// (`NSManagedObjectModel`).
open class NSFetchIndexDescription: NSObject, @unchecked Sendable {
    /// The index's name, unique in its entity.
    open var name: String
    /// The indexed properties, in order.
    open var elements: [NSFetchIndexElementDescription]
    /// A partial-index condition, if any.
    open var partialIndexPredicate: NSPredicate?

    /// An index named `name` on `elements` (nil for none yet); assign it to an entity's `indexes`.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
    }
}

/// One property of a fetch index (Apple's `NSFetchIndexElementDescription`).
///
/// `@unchecked Sendable`: configured before its entity's model is used by a coordinator, then only read
/// (`NSManagedObjectModel`).
open class NSFetchIndexElementDescription: NSObject, @unchecked Sendable {
    /// The kind of index, with Apple's raw values.
    public enum CollationType: UInt, Sendable {
        /// An ordinary index on the property's values (a B-tree in SQLite).
        case binary = 0
        /// A spatial index for ranges of numbers (an R-tree in Apple's SQLite store; the SQL stores of this
        /// package index such an element as an ordinary one).
        case rTree = 1
    }
    /// The indexed property.
    open var property: NSPropertyDescription?
    /// The name of the indexed property.
    open var propertyName: String?
    /// Whether the index is ascending.
    open var isAscending: Bool = true
    /// The kind of index.
    open var collationType: CollationType = .binary

    /// An ascending element on `property`, of the given kind.
    public init(property: NSPropertyDescription, collationType: CollationType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
        super.init()
    }

    /// An addition to Apple's API: an element known by name only (as a model file records it).
    public init(propertyName: String, isAscending: Bool = true) {
        self.propertyName = propertyName
        self.isAscending = isAscending
        super.init()
    }
}

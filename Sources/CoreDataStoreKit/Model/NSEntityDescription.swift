/// An entity of a model: a name, a class name, properties, and a place in an inheritance tree
/// (Apple's class of the same name).
///
/// An entity's `properties` are the ones it declares; `propertiesByName` also holds the inherited ones.
/// Once the entity's model is used by a coordinator, it must not change.
open class NSEntityDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The entity's name, unique in its model.
    open var name: String? {
        willSet { willChange("name") }
        didSet { invalidateCaches() }
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

    /// The properties the entity declares (not the inherited ones). Setting it makes this entity their owner.
    open var properties: [NSPropertyDescription] = [] {
        willSet { willChange("properties") }
        didSet {
            for property in properties { property.entity = self }
            invalidateCaches()
        }
    }

    public override init() { super.init() }

    /// An addition to Apple's API: an entity made in one line, with a class name equal to its name unless given.
    public convenience init(name: String, managedObjectClassName: String? = nil, properties: [NSPropertyDescription] = []) {
        self.init()
        self.name = name
        self.managedObjectClassName = managedObjectClassName ?? name
        self.properties = properties
        // Property observers do not run in an initializer of the same class.
        for property in properties { property.entity = self }
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
    private let layoutLock = NSLock()

    /// The entity's property slots and lookup tables, built on first use.
    public var layout: EntityLayout {
        layoutLock.lock()
        defer { layoutLock.unlock() }
        if let layout = cachedLayout { return layout }
        let layout = EntityLayout(entity: self)
        cachedLayout = layout
        return layout
    }

    func invalidateCaches() {
        layoutLock.lock()
        cachedLayout = nil
        layoutLock.unlock()
        for sub in subentities { sub.invalidateCaches() }
    }

    /// The entity's number in its model (Apple's `Z_ENT`); 0 until the entity is in a model.
    public internal(set) var entityNumber: Int32 = 0

    // MARK: NSCopying

    /// A copy with copied properties, outside any model and hierarchy.
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
        copy.properties = properties.map { $0.copy() as! NSPropertyDescription }
        return copy
    }

    open override var description: String {
        "(\(type(of: self))) \(name ?? "<unnamed>"), managedObjectClassName \(managedObjectClassName ?? ""), abstract \(isAbstract), superentity \(superentity?.name ?? "nil"), properties \(properties.map(\.name))"
    }
}

/// A fetch index of an entity (Apple's `NSFetchIndexDescription`, reduced to what stores use).
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

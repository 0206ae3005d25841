/// A property of an entity: an attribute, a relationship or a fetched property (Apple's class of the same name).
///
/// A property belongs to at most one entity. Once its model is used by a coordinator, it must not change.
open class NSPropertyDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The property's name, unique within its entity and the entity's ancestors.
    open var name: String = "" {
        willSet { willChange("name") }
    }
    /// The entity that declares the property.
    open internal(set) weak var entity: NSEntityDescription!
    /// Whether nil is a valid value when the owning object is saved. Apple's default is `true`.
    open var isOptional: Bool = true {
        willSet { willChange("isOptional") }
    }
    /// Whether the property is kept in memory only and never written to a store.
    open var isTransient: Bool = false {
        willSet { willChange("isTransient") }
    }
    /// An addition to Apple's API (Apple keeps this flag private): whether the property's value is computed
    /// rather than set, as for a derived attribute. It is part of the property's version hash (flag 4).
    open var isReadOnly: Bool = false {
        willSet { willChange("isReadOnly") }
    }
    /// Whether the store should index the property (Apple deprecated this in favour of fetch indexes).
    open var isIndexed: Bool = false {
        willSet { willChange("isIndexed") }
    }
    /// Free-form information from the model editor: empty, not nil, when there is none (as Apple's).
    open var userInfo: [AnyHashable: Any]? = [:] {
        willSet { willChange("userInfo") }
    }
    /// A string mixed into the version hash so that otherwise identical properties hash differently.
    open var versionHashModifier: String? = nil {
        willSet { willChange("versionHashModifier") }
    }
    /// The name this property had in a previous model version (Apple's renaming identifier).
    open var renamingIdentifier: String? = nil {
        willSet { willChange("renamingIdentifier") }
    }
    /// Predicates a value must satisfy when saved, with the matching warning messages.
    open private(set) var validationPredicates: [NSPredicate] = []
    /// The warnings that go with `validationPredicates`, index by index.
    open private(set) var validationWarnings: [Any] = []
    /// An addition to Apple's API: validation predicates as a model file writes them (predicate format text),
    /// kept until `NSPredicate(format:)` parses them into `validationPredicates`.
    open var validationPredicateFormats: [String] = [] {
        willSet { willChange("validationPredicateFormats") }
    }
    /// An addition to Apple's API: the warning of each of `validationPredicateFormats`, index by index.
    open var validationPredicateFormatWarnings: [String] = [] {
        willSet { willChange("validationPredicateFormatWarnings") }
    }

    public override init() { super.init() }

    /// Stops the program when the property's model is frozen (see `NSManagedObjectModel.isEditable`); `key`
    /// names what was about to change.
    func willChange(_ key: String) {
        NSManagedObjectModel.requireEditable(entity?.managedObjectModel,
                                             "the \(key) of the property \(entity?.name ?? "?").\(name)")
    }

    /// Sets the validation predicates and their warnings (Apple's `setValidationPredicates(_:withValidationWarnings:)`).
    open func setValidationPredicates(_ predicates: [NSPredicate]?, withValidationWarnings warnings: [String]?) {
        willChange("validationPredicates")
        validationPredicates = predicates ?? []
        validationWarnings = warnings ?? []
    }

    /// A copy that belongs to no entity.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = type(of: self).init(copying: self)
        return copy
    }

    /// Used by `copy(with:)`; subclasses copy their own fields.
    required public init(copying other: NSPropertyDescription) {
        name = other.name
        isOptional = other.isOptional
        isTransient = other.isTransient
        isReadOnly = other.isReadOnly
        isIndexed = other.isIndexed
        userInfo = other.userInfo
        versionHashModifier = other.versionHashModifier
        renamingIdentifier = other.renamingIdentifier
        validationPredicates = other.validationPredicates
        validationWarnings = other.validationWarnings
        validationPredicateFormats = other.validationPredicateFormats
        validationPredicateFormatWarnings = other.validationPredicateFormatWarnings
        super.init()
    }

    /// The property's version hash: the 32-byte SHA-256 digest Apple's Core Data computes for the same
    /// definition (see `VersionHashing`).
    open var versionHash: Data { VersionHashing.hash(of: self) }

    open override var description: String {
        "(\(type(of: self))) \(name), isOptional \(isOptional), isTransient \(isTransient)"
    }
}

/// What happens to the destination objects when the source object is deleted, with Apple's raw values.
public enum NSDeleteRule: UInt, Sendable {
    /// Leave the destination objects alone (they may point at a deleted object).
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destinations' inverse relationship.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion while the relationship has destination objects.
    case denyDeleteRule = 3
}

/// A relationship from one entity to another (Apple's class of the same name).
///
/// A relationship is to-many when `maxCount` is anything but 1. Its destination and inverse are held weakly:
/// the model owns its entities.
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    /// The entity the relationship points at.
    open weak var destinationEntity: NSEntityDescription? {
        willSet { willChange("destinationEntity") }
    }
    /// The relationship on the destination entity that points back, kept in step by contexts.
    open weak var inverseRelationship: NSRelationshipDescription? {
        willSet { willChange("inverseRelationship") }
    }
    /// The least number of destination objects a saved object may have (0 means no minimum).
    open var minCount: Int = 0 {
        willSet { willChange("minCount") }
    }
    /// The greatest number of destination objects (0, or any value below 1, means unbounded; 1 makes a to-one).
    ///
    /// Kept as given: a model file writes an unbounded to-many as 0, code often as -1, and Apple's version
    /// hash records the low 32 bits of the value, so the two hash differently.
    open var maxCount: Int = 1 {
        willSet { willChange("maxCount") }
    }
    /// What deleting the source object does to the destination objects.
    open var deleteRule: NSDeleteRule = .nullifyDeleteRule {
        willSet { willChange("deleteRule") }
    }
    /// Whether a to-many keeps its destinations in order (`NSOrderedSet`).
    open var isOrdered: Bool = false {
        willSet { willChange("isOrdered") }
    }

    public override init() { super.init() }

    /// Whether the relationship can hold more than one destination object.
    open var isToMany: Bool { maxCount != 1 }

    /// An addition to Apple's API: a relationship made in one line.
    public convenience init(name: String, destination: NSEntityDescription?, toMany: Bool, isOptional: Bool = true,
                            deleteRule: NSDeleteRule = .nullifyDeleteRule, isOrdered: Bool = false) {
        self.init()
        self.name = name
        self.destinationEntity = destination
        self.maxCount = toMany ? 0 : 1
        self.isOptional = isOptional
        self.deleteRule = deleteRule
        self.isOrdered = isOrdered
    }

    required public init(copying other: NSPropertyDescription) {
        if let other = other as? NSRelationshipDescription {
            destinationEntity = other.destinationEntity
            inverseRelationship = other.inverseRelationship
            minCount = other.minCount
            maxCount = other.maxCount
            deleteRule = other.deleteRule
            isOrdered = other.isOrdered
        }
        super.init(copying: other)
    }

    open override var description: String {
        super.description + ", destination \(destinationEntity?.name ?? "nil"), inverse \(inverseRelationship?.name ?? "nil"), toMany \(isToMany)"
    }
}

import Synchronization

/// Where each of an entity's properties lives in an object's or a row's value slots.
///
/// Slots run over every property of the entity, inherited ones first in their ancestors' order, so a slot
/// number means the same property in an entity and in all of its subentities. Built once per entity
/// (`NSEntityDescription.layout`) and immutable.
///
/// `@unchecked Sendable`: immutable: every field is a `let`, and the values it holds (default values, value types,
/// properties of a model frozen once a coordinator uses it) are not changed through it; `notedObjectClass` is an
/// atomic.
public final class EntityLayout: @unchecked Sendable {
    /// What a slot holds, so hot paths need no dynamic casts.
    public enum SlotKind: Equatable, Sendable {
        /// An attribute of this type.
        case attribute(NSAttributeType)
        /// A to-one relationship.
        case toOne
        /// A to-many relationship.
        case toMany
        /// A fetched property or another kind of property.
        case other
    }

    /// The kind of each slot.
    public let slotKinds: [SlotKind]
    /// Whether each slot's property is transient.
    public let transientSlots: [Bool]
    /// Whether any slot's property is transient.
    public let hasTransientSlots: Bool
    /// The non-transient slots whose property is not optional.
    public let requiredSlots: [Int]
    /// The default value of each attribute that has one, already in the attribute's storage type.
    public let defaultValues: [(slot: Int, value: Any)]

    /// Every property, the root entity's first, then each subentity's own, down to this entity.
    public let allProperties: [NSPropertyDescription]
    /// The slot of each property, by name.
    public let slotByName: [String: Int]
    /// Every property by name.
    public let propertiesByName: [String: NSPropertyDescription]
    /// Every attribute by name.
    public let attributesByName: [String: NSAttributeDescription]
    /// Every relationship by name.
    public let relationshipsByName: [String: NSRelationshipDescription]
    /// The slots a store keeps in a row: non-transient attributes and to-one relationships.
    public let storedSlots: [Int]
    /// The slots of non-transient to-many relationships (kept by stores apart from rows).
    public let toManySlots: [Int]
    /// Whether each slot is one of `storedSlots`.
    public let isStoredSlot: [Bool]
    /// The slots of non-transient transformable attributes (stored as data).
    public let transformableSlots: [Int]
    /// The Swift type each attribute slot stores its values in (`Int64` for Integer 64, `String`, …); nil for
    /// relationships and for attributes whose values keep their own type (transformable, undefined).
    public let storageTypes: [Any.Type?]
    /// For the object layer (an addition used inside this package): for each slot whose storage type is trivially
    /// copyable and small enough to sit in an existential container's inline buffer (the integers, `Double`, `Float`,
    /// `Bool`, `Date`, `Decimal`, `UUID`), that type's metadata, as the word an `Any?` holding such a value carries;
    /// nil for every other slot. A slot array whose every element is nil or holds a value of its slot's type named
    /// here can be copied bit for bit (`SlotArrayCopy`).
    package let bitwiseCopyableTypes: [UnsafeRawPointer?]
    /// A slot array with every slot empty, shared by new objects until they first write a slot.
    public let emptySlots: [Any?]
    /// A slot array holding the default values (`defaultValues`) and nil elsewhere, shared likewise.
    public let defaultSlots: [Any?]
    /// Whether every slot is a stored attribute that a store keeps as it is (none transformable), so an
    /// object's slot array is its row.
    public let slotsAreRow: Bool
    /// Whether the entity or an ancestor declares a uniqueness constraint.
    public let hasUniquenessConstraints: Bool
    /// The slots of composite attributes (`NSCompositeAttributeDescription`), whose elements are validated.
    public let compositeSlots: [Int]
    /// The attribute slots whose property has validation predicates (`NSPropertyDescription.validationPredicates`).
    public let validationRuleSlots: [Int]
    /// The to-many slots whose relationship bounds its count (a minimum above 0 or a maximum above 1).
    public let countedToManySlots: [Int]
    /// For the object layer's class registry (an addition used inside this package): the class, as the bits of
    /// its `ObjectIdentifier`, whose instances of this entity need no noting any more, or 0. A layout belongs to
    /// one entity and lives as long as it, and classes are never freed, so the bits name one class for good.
    package let notedObjectClass = Atomic<UInt>(0)

    init(entity: NSEntityDescription) {
        var chain: [NSEntityDescription] = []
        var current: NSEntityDescription? = entity
        while let candidate = current, !chain.contains(where: { $0 === candidate }) {
            chain.insert(candidate, at: 0)
            current = candidate.superentity
        }
        hasUniquenessConstraints = chain.contains { !$0.uniquenessConstraints.isEmpty }
        var all: [NSPropertyDescription] = []
        var slots: [String: Int] = [:]
        for ancestor in chain {
            for property in ancestor.declaredProperties where slots[property.name] == nil {
                slots[property.name] = all.count
                all.append(property)
            }
        }
        allProperties = all
        slotByName = slots
        var byName: [String: NSPropertyDescription] = [:]
        var attributes: [String: NSAttributeDescription] = [:]
        var relationships: [String: NSRelationshipDescription] = [:]
        var stored: [Int] = []
        var toMany: [Int] = []
        var transformable: [Int] = []
        for (slot, property) in all.enumerated() {
            byName[property.name] = property
            if let attribute = property as? NSAttributeDescription {
                attributes[property.name] = attribute
                if !attribute.isTransient { stored.append(slot) }
                if !attribute.isTransient, attribute.attributeType == .transformableAttributeType { transformable.append(slot) }
            } else if let relationship = property as? NSRelationshipDescription {
                relationships[property.name] = relationship
                if !relationship.isTransient {
                    if relationship.isToMany { toMany.append(slot) } else { stored.append(slot) }
                }
            }
        }
        slotKinds = all.map { property in
            if let attribute = property as? NSAttributeDescription { return .attribute(attribute.attributeType) }
            if let relationship = property as? NSRelationshipDescription { return relationship.isToMany ? .toMany : .toOne }
            return .other
        }
        compositeSlots = all.indices.filter { all[$0] is NSCompositeAttributeDescription }
        validationRuleSlots = all.indices.filter { all[$0] is NSAttributeDescription && !all[$0].validationPredicates.isEmpty }
        countedToManySlots = toMany.filter { slot in
            guard let relationship = all[slot] as? NSRelationshipDescription else { return false }
            return relationship.minCount > 0 || relationship.maxCount > 1
        }
        transientSlots = all.map(\.isTransient)
        hasTransientSlots = transientSlots.contains(true)
        defaultValues = all.indices.compactMap { slot in
            guard let attribute = all[slot] as? NSAttributeDescription, let value = attribute.defaultValue else { return nil }
            let converted = AttributeValueCoercion.coerce(value, to: attribute.attributeType) ?? value
            return converted.map { (slot, $0) }
        }
        requiredSlots = all.indices.filter { !all[$0].isTransient && !all[$0].isOptional && !(all[$0] is NSFetchedPropertyDescription) }
        propertiesByName = byName
        attributesByName = attributes
        relationshipsByName = relationships
        storedSlots = stored
        var isStored = [Bool](repeating: false, count: all.count)
        for slot in stored { isStored[slot] = true }
        isStoredSlot = isStored
        toManySlots = toMany
        transformableSlots = transformable
        let types = all.map { property in
            (property as? NSAttributeDescription).flatMap { AttributeValueCoercion.storageType(for: $0.attributeType) }
        }
        storageTypes = types
        bitwiseCopyableTypes = types.map { type in type.flatMap(Self.inlineTriviallyCopyableMetadata) }
        emptySlots = [Any?](repeating: nil, count: all.count)
        var defaults = emptySlots
        for (slot, value) in defaultValues { defaults[slot] = value }
        defaultSlots = defaults
        slotsAreRow = stored.count == all.count && transformable.isEmpty && all.allSatisfy { $0 is NSAttributeDescription }
    }

    /// The metadata of `type` when its values are trivially copyable (no references, nothing to do on a copy) and are
    /// stored in an existential container's three-word buffer; nil otherwise.
    private static func inlineTriviallyCopyableMetadata(_ type: Any.Type) -> UnsafeRawPointer? {
        func qualifies<T>(_: T.Type) -> Bool {
            _isPOD(T.self) && MemoryLayout<T>.size <= 3 * MemoryLayout<UnsafeRawPointer>.size
                && MemoryLayout<T>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment
        }
        return qualifies(type) ? unsafeBitCast(type, to: UnsafeRawPointer.self) : nil
    }

    /// The number of slots (every property of the entity).
    public var slotCount: Int { allProperties.count }
}

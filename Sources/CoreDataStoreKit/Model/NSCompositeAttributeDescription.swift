/// An attribute whose value is made of other attributes, its elements (Apple's class of the same name,
/// iOS 17 / macOS 14).
///
/// An object holds a composite's value as a dictionary, `[String: Any]`, keyed by element name; an element
/// without a value has no key. Elements may be composites themselves (the value then nests dictionaries).
/// Key paths through the composite (`location.latitude`) work in `value(forKeyPath:)`, predicates, sort
/// descriptors, uniqueness constraints and fetch indexes.
///
/// ```swift
/// let latitude = NSAttributeDescription(name: "latitude", type: .double)
/// let longitude = NSAttributeDescription(name: "longitude", type: .double)
/// let location = NSCompositeAttributeDescription()
/// location.name = "location"
/// location.elements = [latitude, longitude]
/// ```
///
/// Elements may be of every attribute type except undefined, object ID and binary data kept in external
/// storage (Apple's rule); a model with such an element is refused when a store is added (134060, naming
/// the entity, the composite and the element). The type is always `.compositeAttributeType`, and the
/// default value is built from the elements' default values (setting it changes nothing), as Apple's.
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// The composed attribute descriptions, in the order they were given. Names must be distinct.
    open var elements: [NSAttributeDescription] = []

    public override init() {
        super.init()
        super.attributeType = .compositeAttributeType
    }

    required public init(copying other: NSPropertyDescription) {
        super.init(copying: other)
        super.attributeType = .compositeAttributeType
        if let other = other as? NSCompositeAttributeDescription {
            elements = other.elements.map { $0.copy(with: nil) as? NSAttributeDescription ?? $0 }
        }
    }

    /// Always `.compositeAttributeType`; setting another type changes nothing.
    open override var attributeType: NSAttributeType {
        get { .compositeAttributeType }
        set {}
    }

    /// The elements' default values as a composite value (a dictionary of the elements that have one), or nil
    /// when no element has one. Setting it changes nothing: each element's `defaultValue` is the default.
    open override var defaultValue: Any? {
        get {
            var value: [String: Any] = [:]
            for element in elements {
                if let element = element as? NSCompositeAttributeDescription {
                    if let nested = element.defaultValue { value[element.name] = nested }
                } else if let given = element.defaultValue {
                    value[element.name] = AttributeValueCoercion.coerce(given, to: element.attributeType).flatMap { $0 } ?? given
                }
            }
            return value.isEmpty ? nil : value
        }
        set {}
    }

    /// The element named `name`, or nil.
    public func element(named name: String) -> NSAttributeDescription? {
        elements.first { $0.name == name }
    }

    /// Two composites are equal when their common attribute settings and their elements are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSCompositeAttributeDescription else { return false }
        if other === self { return true }
        return name == other.name && isOptional == other.isOptional && isTransient == other.isTransient
            && versionHashModifier == other.versionHashModifier && renamingIdentifier == other.renamingIdentifier
            && elements.count == other.elements.count
            && zip(elements, other.elements).allSatisfy { Self.sameElement($0, $1) }
    }

    open override var hash: Int { name.hashValue }

    /// Whether two elements describe the same attribute (nested composites compared the same way).
    private static func sameElement(_ lhs: NSAttributeDescription, _ rhs: NSAttributeDescription) -> Bool {
        if let lhs = lhs as? NSCompositeAttributeDescription { return lhs.isEqual(rhs) }
        if rhs is NSCompositeAttributeDescription { return false }
        return lhs.name == rhs.name && lhs.attributeType == rhs.attributeType && lhs.isOptional == rhs.isOptional
            && lhs.allowsExternalBinaryDataStorage == rhs.allowsExternalBinaryDataStorage
            && lhs.versionHash == rhs.versionHash
    }

    open override var description: String {
        super.description + ", elements (\(elements.map(\.name).joined(separator: ", ")))"
    }
}

/// An attribute of an entity: a named value of one `NSAttributeType` (Apple's class of the same name).
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// The attribute's type, with Apple's raw values.
    open var attributeType: NSAttributeType = .undefinedAttributeType {
        willSet { willChange("attributeType") }
    }
    /// The default value given to a newly inserted object, already in the attribute's Swift type.
    open var defaultValue: Any? = nil {
        willSet { willChange("defaultValue") }
    }
    /// The name of the class of the attribute's values (e.g. `NSString`), as Apple's models record it.
    open var attributeValueClassName: String? = nil {
        willSet { willChange("attributeValueClassName") }
    }
    /// The name of the value transformer of a transformable attribute; nil means Apple's default
    /// (`NSSecureUnarchiveFromData`).
    open var valueTransformerName: String? = nil {
        willSet { willChange("valueTransformerName") }
    }
    /// Whether large binary values may be kept outside the store file (recorded; stores here keep them inline).
    open var allowsExternalBinaryDataStorage: Bool = false {
        willSet { willChange("allowsExternalBinaryDataStorage") }
    }
    /// Whether the value is kept in persistent history after the object is deleted (recorded only).
    open var preservesValueInHistoryOnDeletion: Bool = false {
        willSet { willChange("preservesValueInHistoryOnDeletion") }
    }
    /// Whether the value is encrypted in CloudKit (recorded only).
    open var allowsCloudEncryption: Bool = false {
        willSet { willChange("allowsCloudEncryption") }
    }

    public override init() { super.init() }

    /// The attribute's type in its Swift spelling.
    open var type: AttributeType {
        get { AttributeType(rawValue: attributeType) }
        set { attributeType = newValue.rawValue }
    }

    /// An addition to Apple's API: an attribute made in one line.
    public convenience init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: Any? = nil) {
        self.init()
        self.name = name
        self.attributeType = type.rawValue
        self.isOptional = isOptional
        self.defaultValue = defaultValue
    }

    required public init(copying other: NSPropertyDescription) {
        if let other = other as? NSAttributeDescription {
            attributeType = other.attributeType
            defaultValue = other.defaultValue
            attributeValueClassName = other.attributeValueClassName
            valueTransformerName = other.valueTransformerName
            allowsExternalBinaryDataStorage = other.allowsExternalBinaryDataStorage
            preservesValueInHistoryOnDeletion = other.preservesValueInHistoryOnDeletion
            allowsCloudEncryption = other.allowsCloudEncryption
        }
        super.init(copying: other)
    }

    open override var description: String {
        super.description + ", attributeType \(attributeType.rawValue)"
    }
}

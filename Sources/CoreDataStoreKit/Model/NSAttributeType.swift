/// The type of an attribute's value, with Apple's raw values (which appear in compiled models).
public enum NSAttributeType: UInt, Sendable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    case transformableAttributeType = 1800
    case objectIDAttributeType = 2000
    case compositeAttributeType = 2100
}

extension NSAttributeDescription {
    /// The Swift spelling of an attribute type (Apple's `NSAttributeDescription.AttributeType`).
    public struct AttributeType: RawRepresentable, Hashable, Sendable {
        public var rawValue: NSAttributeType
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }

        public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
        public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
        public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
        public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
        public static let decimal = AttributeType(rawValue: .decimalAttributeType)
        public static let double = AttributeType(rawValue: .doubleAttributeType)
        public static let float = AttributeType(rawValue: .floatAttributeType)
        public static let string = AttributeType(rawValue: .stringAttributeType)
        public static let boolean = AttributeType(rawValue: .booleanAttributeType)
        public static let date = AttributeType(rawValue: .dateAttributeType)
        public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
        public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
        public static let uri = AttributeType(rawValue: .URIAttributeType)
        public static let transformable = AttributeType(rawValue: .transformableAttributeType)
        public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
        public static let composite = AttributeType(rawValue: .compositeAttributeType)
    }
}

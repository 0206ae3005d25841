/// The type of an attribute's value, with Apple's raw values (which appear in compiled models).
public enum NSAttributeType: UInt, Sendable {
    /// No type: Xcode writes it for transient attributes whose values the app manages itself; such an attribute
    /// cannot be stored.
    case undefinedAttributeType = 0
    /// A 16-bit signed integer (`Int16`).
    case integer16AttributeType = 100
    /// A 32-bit signed integer (`Int32`).
    case integer32AttributeType = 200
    /// A 64-bit signed integer (`Int64`).
    case integer64AttributeType = 300
    /// A decimal number (`Decimal`; `NSDecimalNumber` through `value(forKey:)`).
    case decimalAttributeType = 400
    /// A 64-bit floating-point number (`Double`).
    case doubleAttributeType = 500
    /// A 32-bit floating-point number (`Float`).
    case floatAttributeType = 600
    /// Text (`String`).
    case stringAttributeType = 700
    /// A Boolean (`Bool`; an `NSNumber` through `value(forKey:)`).
    case booleanAttributeType = 800
    /// A point in time (`Date`).
    case dateAttributeType = 900
    /// Bytes (`Data`).
    case binaryDataAttributeType = 1000
    /// A UUID (`UUID`).
    case UUIDAttributeType = 1100
    /// A URL (`URL`).
    case URIAttributeType = 1200
    /// Any value a `ValueTransformer` turns into data (by default `NSSecureUnarchiveFromDataTransformer`, a
    /// keyed archive); stores keep the transformed data.
    case transformableAttributeType = 1800
    /// An `NSManagedObjectID` as a value (Apple's type for expressions that produce object IDs).
    case objectIDAttributeType = 2000
    /// A composite attribute (several values under one name, iOS 17); model files that use it are refused with
    /// 3328 (see `Docs/Status.md`).
    case compositeAttributeType = 2100
}

extension NSAttributeDescription {
    /// The Swift spelling of an attribute type (Apple's `NSAttributeDescription.AttributeType`).
    public struct AttributeType: RawRepresentable, Hashable, Sendable {
        public var rawValue: NSAttributeType
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }

        /// The type of attributes without a type (`undefinedAttributeType`).
        public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
        /// The type of 16-bit integer attributes (`integer16AttributeType`).
        public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
        /// The type of 32-bit integer attributes (`integer32AttributeType`).
        public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
        /// The type of 64-bit integer attributes (`integer64AttributeType`).
        public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
        /// The type of decimal attributes (`decimalAttributeType`).
        public static let decimal = AttributeType(rawValue: .decimalAttributeType)
        /// The type of double-precision attributes (`doubleAttributeType`).
        public static let double = AttributeType(rawValue: .doubleAttributeType)
        /// The type of single-precision attributes (`floatAttributeType`).
        public static let float = AttributeType(rawValue: .floatAttributeType)
        /// The type of string attributes (`stringAttributeType`).
        public static let string = AttributeType(rawValue: .stringAttributeType)
        /// The type of Boolean attributes (`booleanAttributeType`).
        public static let boolean = AttributeType(rawValue: .booleanAttributeType)
        /// The type of date attributes (`dateAttributeType`).
        public static let date = AttributeType(rawValue: .dateAttributeType)
        /// The type of binary data attributes (`binaryDataAttributeType`).
        public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
        /// The type of UUID attributes (`UUIDAttributeType`).
        public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
        /// The type of URI attributes (`URIAttributeType`).
        public static let uri = AttributeType(rawValue: .URIAttributeType)
        /// The type of transformable attributes (`transformableAttributeType`).
        public static let transformable = AttributeType(rawValue: .transformableAttributeType)
        /// The type of object ID attributes (`objectIDAttributeType`).
        public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
        /// The type of composite attributes (`compositeAttributeType`).
        public static let composite = AttributeType(rawValue: .compositeAttributeType)
    }
}

/// Converts values to the Swift type an attribute stores, the way Apple's Core Data accepts them.
///
/// Storage types: integer 16/32/64 → `Int16`/`Int32`/`Int64`, decimal → `Decimal`, double → `Double`,
/// float → `Float`, string → `String`, boolean → `Bool`, date → `Date`, binary → `Data`, UUID → `UUID`,
/// URI → `URL`, object ID → `NSManagedObjectID`; transformable and undefined values are kept as they are.
/// Numbers convert across widths only when the value fits. `CGFloat` counts as a number, as on Apple's platforms,
/// where it bridges to `NSNumber` (geometry such as an image's `size.width` is stored this way).
public enum AttributeValueCoercion {
    /// The value in the attribute's storage type, or nil when it cannot be converted without loss.
    /// `NSNull` counts as nil.
    public static func coerce(_ value: Any?, to type: NSAttributeType) -> Any?? {
        guard let value else { return .some(nil) }
        if isStorageValue(value, for: type) { return .some(value) }
        if value is NSNull { return .some(nil) }
        switch type {
        case .integer16AttributeType: return integer(value).flatMap { Int16(exactly: $0) }.map { .some($0) }
        case .integer32AttributeType: return integer(value).flatMap { Int32(exactly: $0) }.map { .some($0) }
        case .integer64AttributeType: return integer(value).map { .some($0) }
        case .decimalAttributeType: return decimal(value).map { .some($0) }
        case .doubleAttributeType: return double(value).map { .some($0) }
        case .floatAttributeType: return double(value).map { .some(Float($0)) }
        case .booleanAttributeType: return boolean(value).map { .some($0) }
        case .stringAttributeType:
            if let string = value as? String { return .some(string) }
            if let string = value as? NSString { return .some(string as String) }
            return nil
        case .dateAttributeType:
            if let date = value as? Date { return .some(date) }
            if let date = value as? NSDate { return .some(date as Date) }
            return nil
        case .binaryDataAttributeType:
            if let data = value as? Data { return .some(data) }
            if let data = value as? NSData { return .some(data as Data) }
            if let bytes = value as? [UInt8] { return .some(Data(bytes)) }
            return nil
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return .some(uuid) }
            if let uuid = value as? NSUUID { return .some(uuid as UUID) }
            if let text = value as? String, let uuid = UUID(uuidString: text) { return .some(uuid) }
            if let data = value as? Data, data.count == 16 {
                return .some(data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
            }
            return nil
        case .URIAttributeType:
            if let url = value as? URL { return .some(url) }
            if let url = value as? NSURL { return .some(url as URL) }
            if let text = value as? String, let url = URL(string: text) { return .some(url) }
            return nil
        case .objectIDAttributeType:
            return (value as? NSManagedObjectID).map { .some($0) }
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType:
            return .some(value)
        }
    }

    /// The one Swift type values of an attribute of `type` are stored in, or nil for the types whose values
    /// keep their own type (transformable, undefined, composite) or have several (object IDs).
    public static func storageType(for type: NSAttributeType) -> Any.Type? {
        switch type {
        case .integer64AttributeType: return Int64.self
        case .integer32AttributeType: return Int32.self
        case .integer16AttributeType: return Int16.self
        case .doubleAttributeType: return Double.self
        case .floatAttributeType: return Float.self
        case .booleanAttributeType: return Bool.self
        case .stringAttributeType: return String.self
        case .dateAttributeType: return Date.self
        case .binaryDataAttributeType: return Data.self
        case .decimalAttributeType: return Decimal.self
        case .UUIDAttributeType: return UUID.self
        case .URIAttributeType: return URL.self
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType, .objectIDAttributeType: return nil
        }
    }

    /// Whether `value` already has the storage type of `type` (a cheap check, done before any conversion).
    @inline(__always)
    public static func isStorageValue(_ value: Any, for type: NSAttributeType) -> Bool {
        let valueType = Swift.type(of: value)
        switch type {
        case .integer64AttributeType: return valueType == Int64.self
        case .integer32AttributeType: return valueType == Int32.self
        case .integer16AttributeType: return valueType == Int16.self
        case .doubleAttributeType: return valueType == Double.self
        case .floatAttributeType: return valueType == Float.self
        case .booleanAttributeType: return valueType == Bool.self
        case .stringAttributeType: return valueType == String.self
        case .dateAttributeType: return valueType == Date.self
        case .binaryDataAttributeType: return valueType == Data.self
        case .decimalAttributeType: return valueType == Decimal.self
        case .UUIDAttributeType: return valueType == UUID.self
        case .URIAttributeType: return valueType == URL.self
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType: return true
        case .objectIDAttributeType: return value is NSManagedObjectID
        }
    }

    /// An integer value of any Swift or Foundation number type, when it is whole and fits in 64 bits.
    public static func integer(_ value: Any) -> Int64? {
        switch value {
        case let v as Int64: return v
        case let v as Int: return Int64(v)
        case let v as Int32: return Int64(v)
        case let v as Int16: return Int64(v)
        case let v as Int8: return Int64(v)
        case let v as UInt64: return Int64(exactly: v)
        case let v as UInt: return Int64(exactly: v)
        case let v as UInt32: return Int64(v)
        case let v as UInt16: return Int64(v)
        case let v as UInt8: return Int64(v)
        case let v as Bool: return v ? 1 : 0
        case let v as Double: return Int64(exactly: v)
        case let v as Float: return Int64(exactly: v)
        case let v as CGFloat: return Int64(exactly: Double(v))
        case let v as Decimal: return Int64(exactly: NSDecimalNumber(decimal: v).doubleValue)
        case let v as NSNumber:
            let whole = v.int64Value
            return NSNumber(value: whole) == v ? whole : nil
        default: return nil
        }
    }

    /// A floating-point value of any Swift or Foundation number type.
    public static func double(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as CGFloat: return Double(v)
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        case let v as Bool: return v ? 1 : 0
        case let v as NSNumber: return v.doubleValue
        default: return integer(value).map(Double.init)
        }
    }

    /// A decimal value of any Swift or Foundation number type, or of a decimal string.
    public static func decimal(_ value: Any) -> Decimal? {
        switch value {
        case let v as Decimal: return v
        case let v as NSDecimalNumber: return v.decimalValue
        case let v as Double: return v.isFinite ? Decimal(v) : nil
        case let v as Float: return v.isFinite ? Decimal(Double(v)) : nil
        case let v as CGFloat: return v.isFinite ? Decimal(Double(v)) : nil
        case let v as String: return Decimal(string: v, locale: Locale(identifier: "en_US_POSIX"))
        case let v as NSNumber:
            if let exact = integer(v) { return Decimal(exact) }
            return v.doubleValue.isFinite ? Decimal(v.doubleValue) : nil
        default: return integer(value).map { Decimal($0) }
        }
    }

    /// A Boolean from a Bool or a number (zero is false).
    public static func boolean(_ value: Any) -> Bool? {
        switch value {
        case let v as Bool: return v
        case let v as NSNumber: return v.boolValue
        default: return integer(value).map { $0 != 0 }
        }
    }
}

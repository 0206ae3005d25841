/// The `attributeType` strings of Xcode's `contents` XML, and the class names Apple's compiled models record
/// for each type.
package enum XCDataModelAttributeType {
    /// The attribute type written as `name` in a `contents` file, or nil for an unknown name.
    static func type(named name: String) -> NSAttributeType? {
        switch name {
        case "Undefined": return .undefinedAttributeType
        case "Integer 16": return .integer16AttributeType
        case "Integer 32": return .integer32AttributeType
        case "Integer 64": return .integer64AttributeType
        case "Decimal": return .decimalAttributeType
        case "Double": return .doubleAttributeType
        case "Float": return .floatAttributeType
        case "String": return .stringAttributeType
        case "Boolean": return .booleanAttributeType
        case "Date": return .dateAttributeType
        case "Binary": return .binaryDataAttributeType
        case "UUID": return .UUIDAttributeType
        case "URI": return .URIAttributeType
        case "Transformable": return .transformableAttributeType
        case "ObjectID", "Object ID": return .objectIDAttributeType
        case "Composite": return .compositeAttributeType
        default: return nil
        }
    }

    /// The name Xcode writes for `type`.
    package static func name(of type: NSAttributeType) -> String {
        switch type {
        case .undefinedAttributeType: return "Undefined"
        case .integer16AttributeType: return "Integer 16"
        case .integer32AttributeType: return "Integer 32"
        case .integer64AttributeType: return "Integer 64"
        case .decimalAttributeType: return "Decimal"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .stringAttributeType: return "String"
        case .booleanAttributeType: return "Boolean"
        case .dateAttributeType: return "Date"
        case .binaryDataAttributeType: return "Binary"
        case .UUIDAttributeType: return "UUID"
        case .URIAttributeType: return "URI"
        case .transformableAttributeType: return "Transformable"
        case .objectIDAttributeType: return "Object ID"
        case .compositeAttributeType: return "Composite"
        }
    }

    /// The value class Apple's model compiler records for an attribute of `type` (nil for transformable,
    /// undefined, object ID and composite).
    static func valueClassName(of type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
             .floatAttributeType, .booleanAttributeType: return "NSNumber"
        case .decimalAttributeType: return "NSDecimalNumber"
        case .stringAttributeType: return "NSString"
        case .dateAttributeType: return "NSDate"
        case .binaryDataAttributeType: return "NSData"
        case .UUIDAttributeType: return "NSUUID"
        case .URIAttributeType: return "NSURL"
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType: return nil
        }
    }
}

import CoreDataStoreKit

/// How attribute values are stored in PostgreSQL columns, both ways (the column types are in
/// `PostgreSQLDialect.columnType(of:)`; the mapping is documented in Docs/PostgreSQLStore.md).
///
/// Every value travels as libpq text: integers as `smallint`/`integer`/`bigint`, Booleans as `boolean`,
/// doubles and floats as `double precision`/`real` (exact: the session sets `extra_float_digits`), decimals as
/// `numeric` (exact), dates as `timestamptz` (to the microsecond), strings and URIs as `text`, UUIDs as
/// `uuid`, binary data and transformed values as `bytea`. Reading never traps: text that does not parse as
/// the column's type reads as nil.
enum PostgreSQLValueCoding {
    /// The parameter text for an attribute value: `.some(nil)` for NULL, nil when the value cannot be stored
    /// in that type (a string for an integer attribute, a date outside PostgreSQL's range).
    static func encode(_ value: Any?, as type: NSAttributeType) -> String?? {
        guard let value, !(value is NSNull) else { return .some(nil) }
        switch (type, value) {
        case (.integer64AttributeType, let v as Int64): return String(v)
        case (.integer32AttributeType, let v as Int32): return String(v)
        case (.integer16AttributeType, let v as Int16): return String(v)
        case (.booleanAttributeType, let v as Bool): return v ? "true" : "false"
        case (.doubleAttributeType, let v as Double): return PostgreSQLText.format(v)
        case (.floatAttributeType, let v as Float): return PostgreSQLText.format(Double(v))
        case (.dateAttributeType, let v as Date):
            guard let text = PostgreSQLText.format(v) else { return nil }
            return text
        case (.stringAttributeType, let v as String): return v
        case (.decimalAttributeType, let v as Decimal): return v.isNaN ? "NaN" : v.description
        case (.URIAttributeType, let v as URL): return v.absoluteString
        case (.UUIDAttributeType, let v as UUID): return v.uuidString
        case (.binaryDataAttributeType, let v as Data), (.transformableAttributeType, let v as Data): return PostgreSQLText.format(v)
        case (.objectIDAttributeType, _): return String(describing: value)
        default:
            guard let coerced = AttributeValueCoercion.coerce(value, to: type), let plain = coerced else { return nil }
            if type == .transformableAttributeType || type == .undefinedAttributeType { return nil }
            return encode(plain, as: type)
        }
    }

    /// The attribute value in column `column` of row `row` of `result`: integers read in place from
    /// libpq's text, other types through `decode(_:as:)`.
    static func decode(_ result: PostgreSQLResult, _ row: Int, _ column: Int, as type: NSAttributeType) -> Any? {
        guard let text = result.cString(row, column) else { return nil }
        switch type {
        case .integer16AttributeType: return PostgreSQLText.int64(text).map { Int16(truncatingIfNeeded: $0) }
        case .integer32AttributeType: return PostgreSQLText.int64(text).map { Int32(truncatingIfNeeded: $0) }
        case .integer64AttributeType: return PostgreSQLText.int64(text)
        default: return decode(String(cString: text), as: type)
        }
    }

    /// The attribute value of a column's text (nil text is NULL).
    static func decode(_ text: String?, as type: NSAttributeType) -> Any? {
        guard let text else { return nil }
        switch type {
        case .integer16AttributeType: return Int64(text).map { Int16(truncatingIfNeeded: $0) }
        case .integer32AttributeType: return Int64(text).map { Int32(truncatingIfNeeded: $0) }
        case .integer64AttributeType: return Int64(text)
        case .booleanAttributeType: return text == "t" || text == "true" || text == "1"
        case .doubleAttributeType: return PostgreSQLText.double(text)
        case .floatAttributeType: return PostgreSQLText.double(text).map { Float($0) }
        case .dateAttributeType: return PostgreSQLText.date(text)
        case .decimalAttributeType: return PostgreSQLText.decimal(text)
        case .stringAttributeType: return text
        case .URIAttributeType: return URL(string: text)
        case .UUIDAttributeType: return UUID(uuidString: text)
        case .binaryDataAttributeType, .transformableAttributeType: return PostgreSQLText.bytes(text)
        case .objectIDAttributeType: return text
        default: return nil
        }
    }
}

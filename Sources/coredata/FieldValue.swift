import CoreData
import Foundation

/// A property value as `coredata query` shows it, the same in every output format: numbers as numbers,
/// Booleans as true/false, dates in ISO 8601 (UTC), UUIDs in their usual form, URIs and object IDs as
/// text, binary data as its length and first bytes, transformable values as the JSON of their property
/// list (other objects by their one-line description), to-one relationships as the destination's object ID
/// and to-many ones as the destinations' IDs.
indirect enum FieldValue: Sendable {
    case null
    case bool(Bool)
    /// A number, as the JSON text that spells it (integers, decimals and doubles keep their digits).
    case number(String)
    case string(String)
    /// An object ID, as its URI.
    case objectID(String)
    case array([FieldValue])
    /// Members in order.
    case object([(String, FieldValue)])

    /// How many bytes of binary data are shown.
    static let dataPrefixLength = 16

    /// The value of an attribute of `type` as `value(forKey:)` returns it (a Boolean attribute's `NSNumber`
    /// as true/false).
    init(attributeValue value: Any?, type: NSAttributeType) {
        guard let value, !(value is NSNull) else { self = .null; return }
        if type == .booleanAttributeType, let bool = Self.bool(from: value) {
            self = .bool(bool)
        } else {
            self = Self(propertyList: value)
        }
    }

    /// A value of a property list, or of an attribute: dictionaries (keys sorted) and arrays become JSON
    /// objects and arrays, dates, UUIDs, URLs and data strings; any other object its one-line description.
    init(propertyList value: Any) {
        switch value {
        case is NSNull: self = .null
        case let number as NSNumber: self = Self.number(number)
        case let bool as Bool: self = .bool(bool)
        case let string as String: self = .string(string)
        case let decimal as Decimal: self = decimal.isNaN ? .string("NaN") : .number("\(decimal)")
        case let date as Date: self = .string(Self.iso8601(date))
        case let uuid as UUID: self = .string(uuid.uuidString)
        case let url as URL: self = .string(url.absoluteString)
        case let id as NSManagedObjectID: self = .objectID(id.uriRepresentation().absoluteString)
        case let data as Data: self = .string(Self.describe(data))
        case let object as NSManagedObject: self = .objectID(object.objectID.uriRepresentation().absoluteString)
        case let dictionary as NSDictionary: self = Self.object(from: dictionary)
        case let dictionary as [String: Any]: self = Self.object(from: dictionary as NSDictionary)
        case let array as NSArray: self = .array(array.map { Self(propertyList: $0) })
        case let array as [Any]: self = .array(array.map { Self(propertyList: $0) })
        default: self = Self.integer(value) ?? Self.floating(value) ?? .string(Self.oneLine(String(describing: value)))
        }
    }

    /// `NSNumber` as a Boolean when it holds one (`objCType` "c" or "B" with 0 or 1), else as its number.
    private static func number(_ number: NSNumber) -> FieldValue {
        if number is NSDecimalNumber { return number.description == "NaN" ? .string("NaN") : .number(number.description) }
        let kind = String(cString: number.objCType)
        if (kind == "c" || kind == "B"), number.int64Value == 0 || number.int64Value == 1 { return .bool(number.boolValue) }
        if kind == "f" { return floating(Double(number.floatValue), text: "\(number.floatValue)") }
        if kind == "d" { return floating(number.doubleValue, text: "\(number.doubleValue)") }
        let unsigned = ["Q", "L", "I", "S", "C"].contains(kind)
        return .number(unsigned ? "\(number.uint64Value)" : "\(number.int64Value)")
    }

    /// A floating-point number as JSON number text (Swift's shortest form that reads back the same); NaN and
    /// infinities, which JSON cannot hold, as strings.
    private static func floating(_ value: Double, text: String) -> FieldValue {
        guard value.isFinite else { return .string(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity") }
        return .number(text)
    }

    private static func integer(_ value: Any) -> FieldValue? {
        switch value {
        case let v as Int: return .number("\(v)")
        case let v as Int16: return .number("\(v)")
        case let v as Int32: return .number("\(v)")
        case let v as Int64: return .number("\(v)")
        default: return nil
        }
    }

    private static func floating(_ value: Any) -> FieldValue? {
        switch value {
        case let v as Double: return floating(v, text: "\(v)")
        case let v as Float: return floating(Double(v), text: "\(v)")
        default: return nil
        }
    }

    /// A Boolean attribute's value, whatever form holds it.
    private static func bool(from value: Any) -> Bool? {
        switch value {
        case let bool as Bool: return bool
        case let number as NSNumber: return number.boolValue
        default: return nil
        }
    }

    private static func object(from dictionary: NSDictionary) -> FieldValue {
        let members = dictionary.map { (key: "\($0.key)", value: Self(propertyList: $0.value)) }
        return .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// A date in ISO 8601, UTC, with milliseconds when it has a fraction of a second.
    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        let seconds = date.timeIntervalSinceReferenceDate
        if seconds != seconds.rounded() { formatter.formatOptions.insert(.withFractionalSeconds) }
        return formatter.string(from: date)
    }

    /// Binary data as `N bytes` and its first bytes in hexadecimal, with an ellipsis when there are more.
    static func describe(_ data: Data) -> String {
        let hex = data.prefix(dataPrefixLength).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        let unit = data.count == 1 ? "byte" : "bytes"
        return data.isEmpty ? "0 bytes" : "\(data.count) \(unit): \(hex)\(data.count > dataPrefixLength ? "…" : "")"
    }

    /// A description on one line: runs of white space, line breaks included, become one space.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
    }
}

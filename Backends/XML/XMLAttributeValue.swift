import CoreDataStoreKit

/// Converts attribute values to and from the text of an `<attribute type=…>` element.
///
/// Types Apple's files show: `string`, `int16`, `int32`, `int64`, `bool` (0/1), `double`, `float`, `decimal`,
/// `date` (seconds since 2001-01-01 with 20 fractional digits) and `binary` (base64 in 76-character lines).
/// Not seen in any fixture, so spelled by us: `transformable` (base64 of the transformed data), `uuid` (the
/// UUID string) and `uri` (the absolute URL string).
enum XMLAttributeValue {
    /// A value that cannot be read: the reason, for a corrupt-store error.
    struct Invalid: Error {
        var reason: String
    }

    /// The Swift value of an attribute's text, in the storage type its `type` names.
    /// - Throws: `Invalid` when the type is unknown or the text is not a value of that type.
    static func decode(type: String, text: String) throws -> Any {
        func number<T>(_ parse: (String) -> T?) throws -> T {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let value = parse(trimmed) else { throw Invalid(reason: "\"\(trimmed.prefix(40))\" is not a valid \(type)") }
            return value
        }
        switch type {
        case "string": return text
        case "int16": return try number { Int16($0) }
        case "int32": return try number { Int32($0) }
        case "int64": return try number { Int64($0) }
        case "double": return try number { Double($0) }
        case "float": return try number { Float($0) }
        case "decimal":
            return try number { text -> Decimal? in
                guard !text.isEmpty, text.allSatisfy({ "0123456789+-.eE".contains($0) }) else { return nil }
                return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            }
        case "bool":
            return try number { text -> Bool? in
                switch text.lowercased() {
                case "1", "yes", "true": return true
                case "0", "no", "false": return false
                default: return nil
                }
            }
        case "date":
            let seconds = try number { Double($0) }
            guard seconds.isFinite else { throw Invalid(reason: "the date \(seconds) is not finite") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case "binary", "transformable":
            let compact = text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) else { throw Invalid(reason: "a \(type) value is not valid base64") }
            return data
        case "uuid": return try number { UUID(uuidString: $0) }
        case "uri": return try number { URL(string: $0) }
        default: throw Invalid(reason: "the attribute type \"\(type)\" is unknown")
        }
    }

    /// The `type` name and text for a value, or nil when the XML store has no way to write it.
    /// `modelType` tells binary data from transformed data, which both arrive as `Data`.
    static func encode(_ value: Any, modelType: NSAttributeType?) -> (type: String, text: String)? {
        switch value {
        case let v as String: return ("string", v)
        case let v as Int16: return ("int16", String(v))
        case let v as Int32: return ("int32", String(v))
        case let v as Int64: return ("int64", String(v))
        case let v as Bool: return ("bool", v ? "1" : "0")
        case let v as Double: return ("double", text(v))
        case let v as Float: return ("float", text(v))
        case let v as Decimal: return ("decimal", v.description)
        case let v as Date: return ("date", dateText(v.timeIntervalSinceReferenceDate))
        case let v as Data:
            let name = modelType == .transformableAttributeType ? "transformable" : "binary"
            return (name, v.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]) + "\n")
        case let v as UUID: return ("uuid", v.uuidString)
        case let v as URL: return ("uri", v.absoluteString)
        default: return nil
        }
    }

    /// Whole numbers without a fraction ("2", as Apple writes them), others in Swift's shortest exact form.
    private static func text<T: BinaryFloatingPoint & LosslessStringConvertible>(_ value: T) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15, !(value == 0 && value.sign == .minus) { return String(Int64(value)) }
        return value.description
    }

    /// Seconds with 20 fractional digits, as Apple writes dates, when that text reads back exactly.
    private static func dateText(_ seconds: Double) -> String {
        let fixed = String(format: "%.20f", seconds)
        return Double(fixed) == seconds ? fixed : seconds.description
    }
}

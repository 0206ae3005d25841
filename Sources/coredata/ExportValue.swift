import CoreData
import CoreDataStoreKit
import Foundation

/// How `coredata export` writes an attribute's value as JSON, and how `coredata import` reads it back:
/// losslessly, by the attribute's type, so that export → import → export gives the same bytes.
///
/// | type | JSON |
/// |---|---|
/// | Integer 16/32/64 | a number: `-3`, `9007199254740993` |
/// | Double, Float | the shortest number that reads back the same (`4.5`, `0.1`, `1e-05`); `"NaN"`, `"Infinity"`, `"-Infinity"` |
/// | Decimal | a number with every digit (`19.99`); `"NaN"` |
/// | Boolean | `true` / `false` |
/// | Date | seconds since 2001-01-01T00:00:00Z (Core Data's reference date) as a number: `-978307200.0` |
/// | Binary data | Base64 |
/// | UUID | `"0F4A6C02-86D2-4F3C-9B1E-5D3A2B1C0E9F"` |
/// | URI | the URI text |
/// | Transformable | its property list, tagged (below), or `{"archive": "<Base64>"}`: the data its transformer makes |
///
/// A transformable value that is a property list is written as a tree: strings, Booleans, arrays and
/// numbers as JSON's (an integer without a point, a real always with a point or an exponent), and tagged
/// objects for the rest: `{"dictionary": {…}}` (keys sorted), `{"date": <seconds>}`, `{"data": "<Base64>"}`,
/// `{"real": "NaN"}`. nil is `null` for every type.
enum ExportValue {
    /// The JSON of `value`, a value of `attribute` as `value(forKey:)` gives it.
    /// - Throws: 134091 for a value of an object ID or composite attribute (not exported); 1550 when a
    ///   transformable value's transformer cannot turn it into data.
    static func encode(_ value: Any?, attribute: NSAttributeDescription, owner: String) throws -> FieldValue {
        guard let value, !(value is NSNull) else { return .null }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if let integer = AttributeValueCoercion.integer(value) { return .number("\(integer)") }
        case .doubleAttributeType:
            if let double = AttributeValueCoercion.double(value) { return real(double) }
        case .floatAttributeType:
            if let float = float(value) { return float.isFinite ? .number("\(float)") : real(Double(float)) }
        case .decimalAttributeType:
            if let decimal = AttributeValueCoercion.decimal(value) { return decimalJSON(decimal) }
        case .booleanAttributeType:
            if let bool = value as? Bool { return .bool(bool) }
            if let number = value as? NSNumber { return .bool(number.boolValue) }
        case .dateAttributeType:
            if let date = value as? Date { return real(date.timeIntervalSinceReferenceDate) }
        case .binaryDataAttributeType:
            if let data = value as? Data { return .string(data.base64EncodedString()) }
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return .string(uuid.uuidString) }
            if let uuid = value as? NSUUID { return .string(uuid.uuidString) }
        case .URIAttributeType:
            if let url = value as? URL { return .string(url.absoluteString) }
        case .stringAttributeType:
            if let string = value as? String { return .string(string) }
        case .transformableAttributeType:
            if let tree = propertyListTree(value) { return tree }
            guard let data = try TransformableStorage.data(for: value, attribute: attribute) else { return .null }
            return .object([("archive", .string(data.base64EncodedString()))])
        default:
            throw CoreDataError.unsupported("\(owner).\(attribute.name) is an attribute of type \(XCDataModelAttributeType.name(of: attribute.attributeType)), whose values the export format does not hold")
        }
        throw CoreDataError.make(NSManagedObjectValidationError,
                                 "\(owner).\(attribute.name) holds \(type(of: value)), not a value of its type \(XCDataModelAttributeType.name(of: attribute.attributeType)).")
    }

    /// The value the JSON `json` gives `attribute`, in the attribute's Swift type.
    /// - Throws: an `ExportValueProblem` saying what is wrong with it.
    static func decode(_ json: FieldValue, attribute: NSAttributeDescription) throws(ExportValueProblem) -> Any? {
        if case .null = json { return nil }
        let value: Any?
        switch (attribute.attributeType, json) {
        case (.integer16AttributeType, .number(let text)): value = Int16(text)
        case (.integer32AttributeType, .number(let text)): value = Int32(text)
        case (.integer64AttributeType, .number(let text)): value = Int64(text)
        case (.doubleAttributeType, _): value = realValue(json)
        case (.floatAttributeType, .number(let text)): value = Float(text)
        case (.floatAttributeType, _): value = realValue(json).map { Float($0) }
        case (.decimalAttributeType, .number(let text)), (.decimalAttributeType, .string(let text)):
            value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case (.booleanAttributeType, .bool(let bool)): value = bool
        case (.dateAttributeType, .number(let text)): value = Double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
        case (.binaryDataAttributeType, .string(let text)): value = Data(base64Encoded: text)
        case (.UUIDAttributeType, .string(let text)): value = UUID(uuidString: text)
        case (.URIAttributeType, .string(let text)): value = URL(string: text)
        case (.stringAttributeType, .string(let text)): value = text
        case (.transformableAttributeType, .object(let members)) where members.count == 1 && members[0].0 == "archive":
            guard case .string(let text) = members[0].1, let data = Data(base64Encoded: text) else {
                throw ExportValueProblem("its \"archive\" is not Base64")
            }
            value = TransformableStorage.value(from: data, attribute: attribute)
        case (.transformableAttributeType, _): value = try propertyList(json)
        default: value = nil
        }
        guard let value else { throw ExportValueProblem("\(json.json) is not a value of type \(XCDataModelAttributeType.name(of: attribute.attributeType))") }
        return value
    }

    // MARK: Numbers

    /// A double as JSON: its shortest text, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
    static func real(_ double: Double) -> FieldValue {
        guard double.isFinite else { return .string(double.isNaN ? "NaN" : double < 0 ? "-Infinity" : "Infinity") }
        return .number("\(double)")
    }

    /// The double a number or one of the three names gives.
    static func realValue(_ json: FieldValue) -> Double? {
        switch json {
        case .number(let text): return Double(text)
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        default: return nil
        }
    }

    private static func decimalJSON(_ decimal: Decimal) -> FieldValue {
        if decimal.isNaN { return .string("NaN") }
        let text = "\(decimal)"
        let isJSONNumber = text.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$"#, options: .regularExpression) != nil
        return isJSONNumber ? .number(text) : .string(text)
    }

    private static func float(_ value: Any) -> Float? {
        switch value {
        case let v as Float: return v
        case let v as Double: return Float(v)
        case let v as NSNumber: return v.floatValue
        default: return nil
        }
    }

    // MARK: Property lists

    /// The tagged tree of a property list value, or nil when `value` (or a part of it) is no property list.
    static func propertyListTree(_ value: Any) -> FieldValue? {
        switch value {
        case let string as String: return .string(string)
        case let number as NSNumber: return numberTree(number)
        case let bool as Bool: return .bool(bool)
        case let date as Date: return .object([("date", real(date.timeIntervalSinceReferenceDate))])
        case let data as Data: return .object([("data", .string(data.base64EncodedString()))])
        case let dictionary as NSDictionary:
            var members: [(String, FieldValue)] = []
            for (key, item) in dictionary {
                guard let key = key as? String, let tree = propertyListTree(item) else { return nil }
                members.append((key, tree))
            }
            return .object([("dictionary", .object(members.sorted { $0.0 < $1.0 }))])
        case let array as NSArray:
            var items: [FieldValue] = []
            for item in array {
                guard let tree = propertyListTree(item) else { return nil }
                items.append(tree)
            }
            return .array(items)
        default:
            return nil
        }
    }

    /// An `NSNumber` as a Boolean (`objCType` c or B holding 0 or 1), a real (f, d) or an integer.
    private static func numberTree(_ number: NSNumber) -> FieldValue {
        let kind = String(cString: number.objCType)
        if (kind == "c" || kind == "B"), number.int64Value == 0 || number.int64Value == 1 { return .bool(number.boolValue) }
        if kind == "f" || kind == "d" {
            let double = number.doubleValue
            return double.isFinite ? .number("\(double)") : .object([("real", real(double))])
        }
        if ["Q", "L", "I", "S", "C"].contains(kind), number.uint64Value > UInt64(Int64.max) { return .number("\(number.uint64Value)") }
        return .number("\(number.int64Value)")
    }

    /// The property list a tagged tree gives (Foundation's classes, as the archiver expects them).
    static func propertyList(_ json: FieldValue) throws(ExportValueProblem) -> Any {
        switch json {
        case .string(let text): return NSString(string: text)
        case .bool(let bool): return NSNumber(value: bool)
        case .number(let text):
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                if let integer = Int64(text) { return NSNumber(value: integer) }
                if let unsigned = UInt64(text) { return NSNumber(value: unsigned) }
            }
            guard let double = Double(text) else { throw ExportValueProblem("\(text) is not a number") }
            return NSNumber(value: double)
        case .array(let items):
            var values: [Any] = []
            for item in items { values.append(try propertyList(item)) }
            return NSArray(array: values)
        case .object(let members):
            guard members.count == 1, let (tag, inner) = members.first else {
                throw ExportValueProblem("an object in a property list must have one tag (dictionary, date, data, real), not \(members.count) members")
            }
            return try tagged(tag, inner)
        case .null, .objectID:
            throw ExportValueProblem("a property list holds no null")
        }
    }

    private static func tagged(_ tag: String, _ inner: FieldValue) throws(ExportValueProblem) -> Any {
        switch (tag, inner) {
        case ("dictionary", .object(let members)):
            let dictionary = NSMutableDictionary()
            for (key, item) in members { dictionary[NSString(string: key)] = try propertyList(item) }
            return dictionary.copy()
        case ("date", _):
            guard let seconds = realValue(inner) else { throw ExportValueProblem("a date must be a number of seconds") }
            return NSDate(timeIntervalSinceReferenceDate: seconds)
        case ("data", .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw ExportValueProblem("\"data\" must be Base64") }
            return NSData(data: data)
        case ("real", _):
            guard let double = realValue(inner) else { throw ExportValueProblem("\"real\" must be a number, \"NaN\", \"Infinity\" or \"-Infinity\"") }
            return NSNumber(value: double)
        default:
            throw ExportValueProblem("unknown tag \"\(tag)\" with \(inner.json)")
        }
    }
}

/// What is wrong with a value in an export file, said in a few words (the caller names the object and key).
struct ExportValueProblem: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

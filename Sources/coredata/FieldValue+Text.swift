import Foundation

/// The text forms of a `FieldValue`: JSON (RFC 8259), and a cell of a table or of CSV.
extension FieldValue {
    /// The value as compact JSON; object IDs as their URIs.
    var json: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return text
        case .string(let text), .objectID(let text): return Self.jsonString(text)
        case .array(let items): return "[" + items.map(\.json).joined(separator: ",") + "]"
        case .object(let members): return "{" + members.map { Self.jsonString($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
        }
    }

    /// The value as one cell: nil empty, strings as they are, collections as compact JSON. With
    /// `shortIDs`, object IDs read `Entity/p3` (the part of the URI after the store's UUID), for tables.
    func cell(shortIDs: Bool) -> String {
        switch self {
        case .null: return ""
        case .string(let text): return text
        case .objectID(let uri): return shortIDs ? Self.shortID(uri) : uri
        case .array, .object: return (shortIDs ? shortened : self).json
        default: return json
        }
    }

    /// The value with every object ID in its short form.
    private var shortened: FieldValue {
        switch self {
        case .objectID(let uri): return .string(Self.shortID(uri))
        case .array(let items): return .array(items.map(\.shortened))
        case .object(let members): return .object(members.map { ($0.0, $0.1.shortened) })
        default: return self
        }
    }

    /// `x-coredata://<UUID>/Book/p3` as `Book/p3`; anything else unchanged.
    static func shortID(_ uri: String) -> String {
        guard let url = URL(string: uri), url.scheme == "x-coredata", url.pathComponents.count >= 3 else { return uri }
        return url.pathComponents.suffix(2).joined(separator: "/")
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

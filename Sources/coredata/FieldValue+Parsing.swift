import CoreData
import Foundation

/// Reading JSON text (RFC 8259) into a `FieldValue`, for `coredata import`.
///
/// Numbers keep their text (`.number("9007199254740993")`, `.number("0.1")`), so integers beyond 2^53,
/// decimals and floats read back exactly as they were written; object members keep their order. Nothing is
/// read as an object ID (`.objectID` is only written).
extension FieldValue {
    /// The JSON value `data` holds.
    /// - Throws: `JSONSyntaxError` naming the line and column of the first mistake.
    static func parseJSON(_ data: Data) throws -> FieldValue {
        var reader = JSONReader(bytes: [UInt8](data))
        reader.skipWhiteSpace()
        let value = try reader.value(depth: 0)
        reader.skipWhiteSpace()
        guard reader.atEnd else { throw reader.error("text after the end of the JSON value") }
        return value
    }

    /// The members of an object by name (the last one when a name repeats), or nil for another value.
    var members: [String: FieldValue]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members, uniquingKeysWith: { _, last in last })
    }
}

/// A mistake in JSON text, at a line and column (both from 1).
struct JSONSyntaxError: Error, CustomStringConvertible {
    let problem: String
    let line: Int
    let column: Int
    var description: String { "\(problem) at line \(line), column \(column)" }
}

/// A reader of JSON text, byte by byte (UTF-8).
private struct JSONReader {
    let bytes: [UInt8]
    var position = 0
    /// Arrays and objects nested deeper than this are refused, so hostile input cannot exhaust the stack.
    static let maximumDepth = 512

    init(bytes: [UInt8]) {
        // A UTF-8 byte-order mark is allowed before the value.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    var atEnd: Bool { position >= bytes.count }

    func error(_ problem: String) -> JSONSyntaxError {
        let before = bytes[..<min(position, bytes.count)]
        let line = before.filter { $0 == 0x0A }.count + 1
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = String(decoding: bytes[lineStart..<min(position, bytes.count)], as: UTF8.self).count + 1
        return JSONSyntaxError(problem: problem, line: line, column: column)
    }

    mutating func skipWhiteSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func value(depth: Int) throws -> FieldValue {
        guard position < bytes.count else { throw error("the text ends where a value was expected") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character \"\(String(decoding: [bytes[position]], as: UTF8.self))\"")
        }
    }

    private mutating func word(_ text: String) throws {
        let expected = Array(text.utf8)
        guard bytes[position...].starts(with: expected) else { throw error("expected \(text)") }
        position += expected.count
    }

    private mutating func object(depth: Int) throws -> FieldValue {
        guard depth <= Self.maximumDepth else { throw error("values nested more than \(Self.maximumDepth) deep") }
        position += 1
        var members: [(String, FieldValue)] = []
        skipWhiteSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhiteSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let name = try string()
            skipWhiteSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected \":\" after member \"\(name)\"") }
            position += 1
            skipWhiteSpace()
            members.append((name, try value(depth: depth)))
            skipWhiteSpace()
            guard position < bytes.count else { throw error("the text ends inside an object") }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected \",\" or \"}\" in an object") }
            position += 1
        }
    }

    private mutating func array(depth: Int) throws -> FieldValue {
        guard depth <= Self.maximumDepth else { throw error("values nested more than \(Self.maximumDepth) deep") }
        position += 1
        var items: [FieldValue] = []
        skipWhiteSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            skipWhiteSpace()
            items.append(try value(depth: depth))
            skipWhiteSpace()
            guard position < bytes.count else { throw error("the text ends inside an array") }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected \",\" or \"]\" in an array") }
            position += 1
        }
    }

    /// A number's text, checked against JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws -> String {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - first
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let leading = position
        guard digits() > 0 else { throw error("a number needs digits") }
        if bytes[leading] == UInt8(ascii: "0"), position - leading > 1 { throw error("a number cannot start with 0") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("a number needs digits after \".\"") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// A string literal, its escapes resolved (surrogate pairs joined; a lone surrogate is an error).
    private mutating func string() throws -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var run = position
        func flush() { scalars.append(contentsOf: String(decoding: bytes[run..<position], as: UTF8.self).unicodeScalars) }
        while true {
            guard position < bytes.count else { throw error("the text ends inside a string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flush()
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a control character inside a string must be escaped") }
            guard byte == UInt8(ascii: "\\") else { position += 1; continue }
            flush()
            position += 1
            guard position < bytes.count else { throw error("the text ends inside a string") }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
            default: throw error("unknown escape \"\\\(String(decoding: [escape], as: UTF8.self))\"")
            }
            run = position
        }
    }

    /// The scalar of `\uXXXX` (the `\u` read), or of a surrogate pair `\uD83D\uDE00`.
    private mutating func unicodeEscape() throws -> Unicode.Scalar {
        let first = try hexQuad()
        if (0xD800...0xDBFF).contains(first) {
            guard bytes[position...].starts(with: Array("\\u".utf8)) else { throw error("a high surrogate without its low surrogate") }
            position += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second), let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else {
                throw error("a high surrogate without its low surrogate")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("a lone low surrogate") }
        return scalar
    }

    private mutating func hexQuad() throws -> UInt32 {
        let quad = position + 4 <= bytes.count ? String(decoding: bytes[position..<position + 4], as: UTF8.self) : ""
        guard quad.count == 4, quad.allSatisfy(\.isHexDigit), let value = UInt32(quad, radix: 16) else {
            throw error("\\u needs four hexadecimal digits")
        }
        position += 4
        return value
    }
}

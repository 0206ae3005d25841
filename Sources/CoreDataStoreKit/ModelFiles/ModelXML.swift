/// A strict, small XML reader for model `contents` files: elements and attributes, with comments,
/// processing instructions, a DOCTYPE and character data skipped.
///
/// Written because Foundation's `XMLDocument` and `XMLParser` on Linux recover from malformed input
/// silently. Any well-formedness error (unclosed or mismatched tag, bad attribute, bad entity reference,
/// trailing content) throws `ModelXML.SyntaxError` with the line, column, and the innermost open
/// `entity` and property element names.
enum ModelXML {
    /// One element: its name, attributes in order, and child elements.
    final class Element {
        let name: String
        let attributes: [(String, String)]
        var children: [Element] = []

        init(name: String, attributes: [(String, String)]) {
            self.name = name
            self.attributes = attributes
        }

        /// The value of an attribute, or nil.
        func string(_ key: String) -> String? { attributes.first { $0.0 == key }?.1 }

        /// An attribute read as Xcode's "YES"/"NO"; `defaultValue` when absent.
        func bool(_ key: String, default defaultValue: Bool = false) -> Bool {
            guard let text = string(key) else { return defaultValue }
            return text == "YES" || text == "1" || text.lowercased() == "true"
        }

        /// Child elements, in order.
        var childElements: [Element] { children }
    }

    /// Where and why the XML is malformed.
    struct SyntaxError: Error {
        let line: Int
        let column: Int
        let message: String
        let entity: String?
        let property: String?
    }

    /// The root element of `data`.
    static func parse(_ data: Data) throws -> Element {
        var parser = Parser(bytes: [UInt8](data))
        return try parser.document()
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0
        var stack: [Element] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        }

        func error(_ message: String) -> SyntaxError {
            var line = 1
            var column = 1
            for byte in bytes[..<min(position, bytes.count)] {
                if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
            }
            let entity = stack.last { $0.name == "entity" }?.string("name")
            let property = stack.last { ["attribute", "relationship", "fetchedProperty"].contains($0.name) }?.string("name")
            return SyntaxError(line: line, column: column, message: message, entity: entity, property: property)
        }

        var atEnd: Bool { position >= bytes.count }
        func peek(_ offset: Int = 0) -> UInt8? { position + offset < bytes.count ? bytes[position + offset] : nil }
        func starts(with text: String) -> Bool {
            let pattern = Array(text.utf8)
            return position + pattern.count <= bytes.count && Array(bytes[position..<position + pattern.count]) == pattern
        }

        mutating func skipSpace() {
            while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        mutating func skip(past terminator: String, what: String) throws {
            let pattern = Array(terminator.utf8)
            while !atEnd {
                if starts(with: terminator) { position += pattern.count; return }
                position += 1
            }
            throw error("unterminated \(what)")
        }

        /// Skips comments, processing instructions and a DOCTYPE; returns whether it skipped anything.
        mutating func skipMisc() throws -> Bool {
            if starts(with: "<!--") { try skip(past: "-->", what: "comment"); return true }
            if starts(with: "<?") { try skip(past: "?>", what: "processing instruction"); return true }
            if starts(with: "<!DOCTYPE") {
                var depth = 0
                while let byte = peek() {
                    position += 1
                    if byte == UInt8(ascii: "[") { depth += 1 }
                    if byte == UInt8(ascii: "]") { depth -= 1 }
                    if byte == UInt8(ascii: ">") && depth <= 0 { return true }
                }
                throw error("unterminated DOCTYPE")
            }
            return false
        }

        mutating func document() throws -> Element {
            while true {
                skipSpace()
                if try !skipMisc() { break }
            }
            guard peek() == UInt8(ascii: "<") else { throw error(atEnd ? "no root element" : "content before the root element") }
            let root = try element()
            while true {
                skipSpace()
                if atEnd { return root }
                if try !skipMisc() { throw error("content after the root element") }
            }
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }

        mutating func name() throws -> String {
            let start = position
            while let byte = peek(), Self.isNameByte(byte) { position += 1 }
            guard position > start, let text = String(bytes: bytes[start..<position], encoding: .utf8) else { throw error("expected a name") }
            return text
        }

        /// Parses one element, starting at its `<`.
        mutating func element() throws -> Element {
            position += 1 // "<"
            let tag = try name()
            var attributes: [(String, String)] = []
            while true {
                let hadSpace = peek().map { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } ?? false
                skipSpace()
                guard let byte = peek() else { throw error("unterminated start tag <\(tag)>") }
                if byte == UInt8(ascii: "/") {
                    guard peek(1) == UInt8(ascii: ">") else { throw error("expected /> in <\(tag)>") }
                    position += 2
                    let element = Element(name: tag, attributes: attributes)
                    stack.last?.children.append(element)
                    return element
                }
                if byte == UInt8(ascii: ">") { position += 1; break }
                guard hadSpace else { throw error("expected a space before an attribute in <\(tag)>") }
                let key = try name()
                skipSpace()
                guard peek() == UInt8(ascii: "=") else { throw error("expected = after attribute \(key) in <\(tag)>") }
                position += 1
                skipSpace()
                guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw error("expected a quoted value for attribute \(key) in <\(tag)>")
                }
                position += 1
                let value = try text(until: quote)
                position += 1
                guard !attributes.contains(where: { $0.0 == key }) else { throw error("attribute \(key) repeated in <\(tag)>") }
                attributes.append((key, value))
            }
            let element = Element(name: tag, attributes: attributes)
            stack.last?.children.append(element)
            stack.append(element)
            while true {
                _ = try text(until: UInt8(ascii: "<"))
                guard !atEnd else { throw error("<\(tag)> is not closed") }
                if starts(with: "</") {
                    position += 2
                    let closing = try name()
                    skipSpace()
                    guard peek() == UInt8(ascii: ">") else { throw error("expected > after </\(closing)") }
                    guard closing == tag else { throw error("</\(closing)> closes <\(tag)>") }
                    position += 1
                    stack.removeLast()
                    return element
                }
                if starts(with: "<![CDATA[") { try skip(past: "]]>", what: "CDATA section"); continue }
                if try skipMisc() { continue }
                _ = try self.element()
            }
        }

        /// Reads character data up to (not including) `terminator` or the end, decoding entity references.
        mutating func text(until terminator: UInt8) throws -> String {
            var out: [UInt8] = []
            while let byte = peek(), byte != terminator {
                if byte == UInt8(ascii: "<") { throw error("< inside an attribute value") }
                if byte == UInt8(ascii: "&") {
                    guard let end = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")),
                          let reference = String(bytes: bytes[(position + 1)..<end], encoding: .utf8) else {
                        throw error("unterminated entity reference")
                    }
                    let decoded: String?
                    switch reference {
                    case "lt": decoded = "<"
                    case "gt": decoded = ">"
                    case "amp": decoded = "&"
                    case "quot": decoded = "\""
                    case "apos": decoded = "'"
                    default:
                        if reference.hasPrefix("#x"), let code = UInt32(reference.dropFirst(2), radix: 16) {
                            decoded = Unicode.Scalar(code).map { String(Character($0)) }
                        } else if reference.hasPrefix("#"), let code = UInt32(reference.dropFirst()) {
                            decoded = Unicode.Scalar(code).map { String(Character($0)) }
                        } else {
                            decoded = nil
                        }
                    }
                    guard let decoded else { throw error("unknown entity reference &\(reference);") }
                    out.append(contentsOf: Array(decoded.utf8))
                    position = end + 1
                    continue
                }
                out.append(byte)
                position += 1
            }
            guard let text = String(bytes: out, encoding: .utf8) else { throw error("text is not UTF-8") }
            return text
        }
    }
}

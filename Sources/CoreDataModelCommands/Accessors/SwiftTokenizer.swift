/// Splits Swift source into the tokens the `@NSManaged` scanner needs: identifiers and keywords, punctuation,
/// and line breaks. Comments (nested block comments included) are dropped; string literals (single-line,
/// multi-line, raw, with interpolations) become one `.literal` token, so braces and keywords inside them are never
/// read as code. Numbers and operators are kept as `.other`; nothing here fails on unusual input: an unterminated
/// literal or comment runs to the end of the file.
struct SwiftTokenizer {
    enum Kind: Equatable {
        case identifier
        case punctuation
        case literal
        case newline
        case other
    }

    struct Token: Equatable {
        let kind: Kind
        let text: String
        /// Offsets of the token's first and past-the-end byte in the file's UTF-8.
        let start: Int
        let end: Int
        /// The 1-based line the token starts on.
        let line: Int
    }

    private let bytes: [UInt8]
    private var position = 0
    private var line = 1

    init(_ source: String) { bytes = Array(source.utf8) }

    /// Every token of the source, in order.
    static func tokens(of source: String) -> [Token] {
        var tokenizer = SwiftTokenizer(source)
        var tokens: [Token] = []
        while let token = tokenizer.next() { tokens.append(token) }
        return tokens
    }

    /// The text between two byte offsets of a source's UTF-8.
    static func text(_ utf8: [UInt8], from start: Int, to end: Int) -> String {
        guard start >= 0, end <= utf8.count, start <= end else { return "" }
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }

    private mutating func next() -> Token? {
        skipSpaceAndComments()
        guard position < bytes.count else { return nil }
        let start = position, startLine = line
        let byte = bytes[position]
        let kind: Kind
        if byte == UInt8(ascii: "\n") {
            position += 1
            line += 1
            kind = .newline
        } else if Self.isIdentifierStart(byte) {
            while position < bytes.count, Self.isIdentifierBody(bytes[position]) { position += 1 }
            kind = .identifier
        } else if byte == UInt8(ascii: "`") {
            position += 1
            while position < bytes.count, bytes[position] != UInt8(ascii: "`"), bytes[position] != UInt8(ascii: "\n") { position += 1 }
            if position < bytes.count, bytes[position] == UInt8(ascii: "`") { position += 1 }
            kind = .identifier
        } else if byte == UInt8(ascii: "\"") || (byte == UInt8(ascii: "#") && rawStringOpens()) {
            skipStringLiteral()
            kind = .literal
        } else if Self.punctuation.contains(byte) {
            position += 1
            if byte == UInt8(ascii: "-"), position < bytes.count, bytes[position] == UInt8(ascii: ">") { position += 1 }
            kind = .punctuation
        } else {
            position += 1
            kind = .other
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        return Token(kind: kind, text: text, start: start, end: position, line: startLine)
    }

    private static let punctuation: Set<UInt8> = Set("{}()[]<>:,.?!=@;-&".utf8)

    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_") || byte >= 0x80
            || byte == UInt8(ascii: "$")
    }

    private static func isIdentifierBody(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (byte >= 0x30 && byte <= 0x39)
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    /// Spaces, tabs, carriage returns and comments; a line break is a token and stops the skip.
    private mutating func skipSpaceAndComments() {
        while let byte = peek() {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                position += 1
            } else if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "/") {
                while let next = peek(), next != UInt8(ascii: "\n") { position += 1 }
            } else if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                skipBlockComment()
            } else {
                return
            }
        }
    }

    /// A `/* … */` comment, which may nest.
    private mutating func skipBlockComment() {
        var depth = 0
        while let byte = peek() {
            if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                depth += 1
                position += 2
            } else if byte == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                depth -= 1
                position += 2
                if depth == 0 { return }
            } else {
                if byte == UInt8(ascii: "\n") { line += 1 }
                position += 1
            }
        }
    }

    /// Whether the `#`s at the position open a raw string (`#"`, `##"`, …).
    private func rawStringOpens() -> Bool {
        var offset = 0
        while peek(offset) == UInt8(ascii: "#") { offset += 1 }
        return peek(offset) == UInt8(ascii: "\"")
    }

    /// A string literal from its opening delimiter to its closing one, interpolations included.
    private mutating func skipStringLiteral() {
        var hashes = 0
        while peek() == UInt8(ascii: "#") {
            hashes += 1
            position += 1
        }
        let multiline = peek() == UInt8(ascii: "\"") && peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
        position += multiline ? 3 : 1
        while let byte = peek() {
            if byte == UInt8(ascii: "\n") {
                line += 1
                position += 1
                if !multiline { return }
            } else if byte == UInt8(ascii: "\\"), escapeMatches(hashes) {
                position += 1 + hashes
                if peek() == UInt8(ascii: "(") {
                    skipInterpolation()
                } else if peek() != nil {
                    position += 1
                }
            } else if byte == UInt8(ascii: "\""), closes(multiline: multiline, hashes: hashes) {
                position += (multiline ? 3 : 1) + hashes
                return
            } else {
                position += 1
            }
        }
    }

    /// Whether a backslash at the position is followed by the literal's number of `#`s (so it escapes).
    private func escapeMatches(_ hashes: Int) -> Bool {
        (0..<hashes).allSatisfy { peek(1 + $0) == UInt8(ascii: "#") }
    }

    /// Whether the quote at the position, with what follows, closes the literal.
    private func closes(multiline: Bool, hashes: Int) -> Bool {
        let quotes = multiline ? 3 : 1
        guard (0..<quotes).allSatisfy({ peek($0) == UInt8(ascii: "\"") }) else { return false }
        return (0..<hashes).allSatisfy { peek(quotes + $0) == UInt8(ascii: "#") }
    }

    /// `\( … )` inside a string literal: balanced parentheses, with nested literals and comments skipped.
    private mutating func skipInterpolation() {
        var depth = 0
        while let byte = peek() {
            if byte == UInt8(ascii: "(") {
                depth += 1
                position += 1
            } else if byte == UInt8(ascii: ")") {
                depth -= 1
                position += 1
                if depth == 0 { return }
            } else if byte == UInt8(ascii: "\"") || (byte == UInt8(ascii: "#") && rawStringOpens()) {
                skipStringLiteral()
            } else if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "/") || peek(1) == UInt8(ascii: "*") {
                skipSpaceAndComments()
            } else {
                if byte == UInt8(ascii: "\n") { line += 1 }
                position += 1
            }
        }
    }
}

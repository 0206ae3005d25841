/// One token of a predicate format string, with its character offset.
struct PredicateFormatToken: Equatable {
    enum Kind: Equatable {
        /// A word: a key, or a reserved word (`AND`, `ANY`, …) unless `escaped` (written with `#`).
        case word(String, escaped: Bool)
        /// A quoted string, unescaped.
        case string(String)
        /// A number literal, as written (`12`, `0x1F`, `1.5e3`).
        case number(String)
        /// `$name`.
        case variable(String)
        /// `@count`, `@sum`, …, as written without the `@`.
        case collectionOperator(String)
        /// A selector name with its colons, naming a built-in function: `count:`, `modulus:by:`.
        case functionName(String)
        /// `%@`, `%K`, `%d`, …: the conversion letter(s) after `%` and any length modifier (`@`, `K`, `d`, `f`).
        case argument(Character)
        /// Punctuation and operators: `(`, `)`, `{`, `}`, `[`, `]`, `,`, `.`, `==`, `!=`, `<`, `<=`, `>`,
        /// `>=`, `&&`, `||`, `!`, `+`, `-`, `*`, `/`, `**`.
        case symbol(String)
        /// The end of the format.
        case end
    }

    var kind: Kind
    /// Offset in characters from the start of the format.
    var offset: Int

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .word(let w, let escaped): return escaped ? "\"#\(w)\"" : "\"\(w)\""
        case .string(let s): return "string \"\(s)\""
        case .number(let n): return "number \(n)"
        case .variable(let v): return "\"$\(v)\""
        case .collectionOperator(let o): return "\"@\(o)\""
        case .functionName(let n): return "\"\(n)\""
        case .argument(let c): return "\"%\(c)\""
        case .symbol(let s): return "\"\(s)\""
        case .end: return "end of input"
        }
    }
}

/// Splits a predicate format into tokens.
///
/// Guarantees: never traps; an unknown character, an unterminated string or a bad number is a thrown
/// positioned `NSError` (see ``PredicateFormatError``).
struct PredicateFormatLexer {
    private let format: String
    private let chars: [Character]
    private var i = 0

    init(format: String) {
        self.format = format
        self.chars = Array(format)
    }

    static func tokenize(_ format: String) throws -> [PredicateFormatToken] {
        var lexer = PredicateFormatLexer(format: format)
        var tokens: [PredicateFormatToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func fail(_ offset: Int, _ problem: String) -> NSError {
        PredicateFormatError.parse(format: format, offset: offset, problem: problem)
    }

    private func peek(_ k: Int = 0) -> Character? {
        i + k < chars.count ? chars[i + k] : nil
    }

    private static func isWordStart(_ c: Character) -> Bool {
        c == "_" || c.isLetter
    }

    private static func isWordPart(_ c: Character) -> Bool {
        c == "_" || c.isLetter || c.isNumber
    }

    private mutating func word() -> String {
        var w = ""
        while let c = peek(), Self.isWordPart(c) {
            w.append(c)
            i += 1
        }
        return w
    }

    mutating func next() throws -> PredicateFormatToken {
        while let c = peek(), c.isWhitespace { i += 1 }
        let start = i
        guard let c = peek() else { return PredicateFormatToken(kind: .end, offset: start) }
        func token(_ kind: PredicateFormatToken.Kind) -> PredicateFormatToken {
            PredicateFormatToken(kind: kind, offset: start)
        }
        if Self.isWordStart(c) {
            let name = word()
            guard peek() == ":" else { return token(.word(name, escaped: false)) }
            return token(.functionName(selectorName(startingWith: name)))
        }
        if c.isASCII, c.isNumber {
            return token(.number(try number()))
        }
        switch c {
        case "\"", "'":
            return token(.string(try quoted()))
        case "#":
            i += 1
            guard let n = peek(), Self.isWordStart(n) else {
                throw fail(start, "expected a word after \"#\"")
            }
            return token(.word(word(), escaped: true))
        case "$":
            i += 1
            guard let n = peek(), Self.isWordStart(n) else {
                throw fail(start, "expected a variable name after \"$\"")
            }
            return token(.variable(word()))
        case "@":
            i += 1
            guard let n = peek(), Self.isWordStart(n) else {
                throw fail(start, "expected a collection operator name after \"@\"")
            }
            return token(.collectionOperator(word()))
        case "%":
            i += 1
            // Length modifiers (h, l, ll, q, z, t, j) are accepted and ignored.
            while let m = peek(), "hlqztj".contains(m) { i += 1 }
            guard let conversion = peek() else { throw fail(start, "incomplete format specifier \"%\"") }
            guard "@KdiuDUoxXfFeEgGc".contains(conversion) else {
                throw fail(start, "unsupported format specifier \"%\(conversion)\"")
            }
            i += 1
            return token(.argument(conversion))
        default:
            break
        }
        let two: String = peek(1).map { String(c) + String($0) } ?? ""
        let twoSymbols: [String: String] = [
            "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", "=<": "<=", ">=": ">=", "=>": ">=",
            "&&": "&&", "||": "||", "**": "**",
        ]
        if let s = twoSymbols[two] {
            i += 2
            return token(.symbol(s))
        }
        let oneSymbols: [Character: String] = [
            "(": "(", ")": ")", "{": "{", "}": "}", "[": "[", "]": "]", ",": ",", ".": ".",
            "=": "==", "<": "<", ">": ">", "!": "!", "+": "+", "-": "-", "*": "*", "/": "/",
        ]
        if let s = oneSymbols[c] {
            i += 1
            return token(.symbol(s))
        }
        throw fail(start, "unexpected character \"\(c)\"")
    }

    /// Reads a number literal: decimal with optional fraction and exponent, or `0x`, `0o`, `0b` integers.
    /// The rest of a selector name after its first word, at a colon: `:`, `:by:`, `:with:` (a word
    /// after a colon belongs to the name only when a colon follows it too).
    private mutating func selectorName(startingWith first: String) -> String {
        var name = first
        while peek() == ":" {
            name.append(":")
            i += 1
            let mark = i
            guard let c = peek(), Self.isWordStart(c) else { break }
            let part = word()
            if peek() != ":" {
                i = mark
                break
            }
            name += part
        }
        return name
    }

    private mutating func number() throws -> String {
        let start = i
        var text = ""
        if peek() == "0", let p = peek(1), "xXoObB".contains(p) {
            text = "0" + String(p)
            i += 2
            while let c = peek(), c.isHexDigit || c == "_" {
                text.append(c)
                i += 1
            }
            if text.count == 2 { throw fail(start, "expected digits after \"\(text)\"") }
        } else {
            while let c = peek(), c.isASCII, c.isNumber {
                text.append(c)
                i += 1
            }
            if peek() == ".", let n = peek(1), n.isASCII, n.isNumber {
                text.append(".")
                i += 1
                while let c = peek(), c.isASCII, c.isNumber {
                    text.append(c)
                    i += 1
                }
            }
            if let e = peek(), e == "e" || e == "E" {
                var look = 1
                if let s = peek(1), s == "+" || s == "-" { look = 2 }
                if let d = peek(look), d.isASCII, d.isNumber {
                    text.append(e)
                    if look == 2, let s = peek(1) { text.append(s) }
                    i += look
                    while let c = peek(), c.isASCII, c.isNumber {
                        text.append(c)
                        i += 1
                    }
                }
            }
        }
        if let c = peek(), Self.isWordStart(c) {
            throw fail(i, "unexpected \"\(c)\" in number \(text)")
        }
        return text
    }

    /// Reads a quoted string with backslash escapes (`\n`, `\t`, `\r`, `\0`, `\\`, `\"`, `\'`, `\uXXXX`);
    /// any other escape keeps its backslash.
    private mutating func quoted() throws -> String {
        let start = i
        guard let quote = peek() else { throw fail(start, "expected a string") }
        i += 1
        var s = ""
        while true {
            guard let c = peek() else { throw fail(start, "unterminated string") }
            i += 1
            if c == quote { return s }
            if c != "\\" {
                s.append(c)
                continue
            }
            let escapeStart = i - 1
            guard let e = peek() else { throw fail(start, "unterminated string") }
            i += 1
            switch e {
            case "n": s.append("\n")
            case "t": s.append("\t")
            case "r": s.append("\r")
            case "0": s.append("\0")
            case "u":
                var hex = ""
                while hex.count < 4, let h = peek(), h.isHexDigit {
                    hex.append(h)
                    i += 1
                }
                guard hex.count == 4, let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
                    throw fail(escapeStart, "bad \\u escape in string")
                }
                s.unicodeScalars.append(scalar)
            case "\\", "\"", "'": s.append(e)
            default:
                // Unknown escapes keep their backslash, so regular expressions such as '\d+' survive.
                s.append("\\")
                s.append(e)
            }
        }
    }
}

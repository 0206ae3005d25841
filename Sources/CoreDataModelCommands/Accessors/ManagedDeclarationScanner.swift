import Foundation

/// Reads the declarations the accessor generator needs from Swift source files: `@NSManaged` properties and
/// methods (in class bodies and in extensions, as Xcode writes them), every type the files declare (with its
/// nesting, kind and generic parameter names), every type alias and every imported module.
///
/// It reads declarations, not expressions: bodies of functions, computed properties and closures are skipped
/// whole. Both branches of `#if` are read. A file it cannot follow (unbalanced braces, say) yields what it
/// read before the trouble; the compile that follows reports the file's own errors.
struct ManagedDeclarationScanner {
    private(set) var declarations = ManagedDeclarations()

    /// Keywords that may follow `class` when it is a modifier (`class func`) rather than a declaration.
    private static let memberKeywords: Set<String> = ["func", "var", "let", "subscript", "override", "final", "static",
                                                      "public", "private", "internal", "fileprivate", "open", "package",
                                                      "required", "convenience", "dynamic", "nonisolated"]
    private static let typeKeywords: Set<String> = ["class", "struct", "enum", "actor", "protocol", "extension"]
    private static let accessKeywords: Set<String> = ["open", "public", "package", "internal", "fileprivate", "private"]

    /// Reads one file; `path` is what error messages and the probe's source locations name.
    mutating func scan(_ source: String, path: String) {
        var reader = FileReader(tokens: SwiftTokenizer.tokens(of: source), utf8: Array(source.utf8), path: path)
        reader.read(into: &declarations)
    }

    /// The reading of one file: a cursor over its tokens and a stack of the scopes it is in.
    private struct FileReader {
        enum Scope {
            /// A type body or extension (the path of the type), or the file itself (an empty path).
            case declarations([String])
            /// A function, accessor or closure body: nothing inside is read.
            case body
        }

        let tokens: [SwiftTokenizer.Token]
        /// The file's text, which token offsets index.
        let utf8: [UInt8]
        let path: String
        var index = 0
        var scopes: [Scope] = [.declarations([])]
        /// Attributes and modifiers read since the last declaration.
        var attributes: [String: String] = [:]
        var modifiers: [String] = []
        /// The access level of a pending `private(set)`-style modifier, which limits only a property's setter.
        var setterModifier: String?

        init(tokens: [SwiftTokenizer.Token], utf8: [UInt8], path: String) {
            self.tokens = tokens
            self.utf8 = utf8
            self.path = path
        }

        mutating func read(into declarations: inout ManagedDeclarations) {
            while index < tokens.count {
                let token = tokens[index]
                guard case .declarations(let typePath)? = scopes.last else {
                    skipInBody()
                    continue
                }
                if token.kind == .newline || token.kind == .literal || token.kind == .other {
                    index += 1
                    continue
                }
                if token.text == "}" {
                    if scopes.count > 1 { scopes.removeLast() }
                    resetPending()
                    index += 1
                } else if token.text == "{" || token.text == ";" {
                    if token.text == "{" { scopes.append(.body) }
                    resetPending()
                    index += 1
                } else if token.text == "@" {
                    readAttribute()
                } else if token.kind == .identifier {
                    readWord(token.text, in: typePath, into: &declarations)
                } else {
                    index += 1
                }
            }
        }

        private mutating func resetPending() {
            attributes = [:]
            modifiers = []
            setterModifier = nil
        }

        /// Inside a body: only braces matter.
        private mutating func skipInBody() {
            let token = tokens[index]
            if token.text == "{" && token.kind == .punctuation { scopes.append(.body) }
            if token.text == "}" && token.kind == .punctuation { scopes.removeLast() }
            index += 1
        }

        /// `@name` or `@name(arguments)`; the arguments are kept (for `@objc(selector)`).
        private mutating func readAttribute() {
            index += 1
            guard index < tokens.count, tokens[index].kind == .identifier else { return }
            let name = tokens[index].text
            index += 1
            var arguments = ""
            if index < tokens.count, tokens[index].text == "(" {
                let close = matching(from: index, open: "(", close: ")")
                arguments = text(from: index + 1, to: close)
                index = close + 1
            }
            attributes[name] = arguments
        }

        private mutating func readWord(_ word: String, in typePath: [String], into declarations: inout ManagedDeclarations) {
            if ManagedDeclarationScanner.typeKeywords.contains(word), let next = nextSignificant(after: index),
               tokens[next].kind == .identifier, !(word == "class" && ManagedDeclarationScanner.memberKeywords.contains(tokens[next].text)) {
                readTypeHeader(word, nameAt: next, in: typePath, into: &declarations)
            } else if word == "var", attributes["NSManaged"] != nil {
                readManagedProperty(in: typePath, into: &declarations)
            } else if word == "var", !typePath.isEmpty, !modifiers.contains("static"), !modifiers.contains("class") {
                readComputedProperty(in: typePath, into: &declarations)
            } else if word == "func", attributes["NSManaged"] != nil {
                readManagedMethod(in: typePath, into: &declarations)
            } else if word == "typealias" {
                readTypeAlias(in: typePath, into: &declarations)
            } else if word == "import", typePath.isEmpty {
                readImport(into: &declarations)
            } else if ["var", "let", "func", "init", "deinit", "subscript", "case", "import", "associatedtype", "operator",
                       "precedencegroup", "macro"].contains(word) {
                resetPending()
                index += 1
            } else {
                index += 1
                // `private(set)` and the like: the parenthesized part belongs to the modifier, which then limits
                // the setter only.
                if index < tokens.count, tokens[index].text == "(" {
                    let close = matching(from: index, open: "(", close: ")")
                    if text(from: index + 1, to: close) == "set" { setterModifier = word } else { modifiers.append(word) }
                    index = close + 1
                } else {
                    modifiers.append(word)
                }
            }
        }

        /// `class Name<T>: Base where … {` (or struct, enum, actor, protocol, extension): opens the type's scope.
        private mutating func readTypeHeader(_ kind: String, nameAt nameIndex: Int, in typePath: [String],
                                             into declarations: inout ManagedDeclarations) {
            var name = [tokens[nameIndex].text]
            index = nameIndex + 1
            while index + 1 < tokens.count, tokens[index].text == ".", tokens[index + 1].kind == .identifier {
                name.append(tokens[index + 1].text)
                index += 2
            }
            var genericClause = ""
            if index < tokens.count, tokens[index].text == "<" {
                let close = matching(from: index, open: "<", close: ">")
                genericClause = text(from: index + 1, to: close)
                index = close + 1
            }
            guard let brace = nextOpeningBrace(from: index) else {
                index = tokens.count
                return
            }
            let inheritance = text(from: index, to: brace)
            let access = access(default: .internal)
            let path = kind == "extension" ? name.map { $0.trimmingBackticks } : typePath + name.map { $0.trimmingBackticks }
            if kind != "extension" {
                let classBound = kind == "protocol" && (inheritance.contains("AnyObject") || Self.words(inheritance).contains("class"))
                let (inherited, whereClause) = Self.inheritanceParts(inheritance)
                declarations.types.append(.init(kind: kind, path: path, genericParameters: Self.parameterNames(genericClause),
                                                genericClause: genericClause, whereClause: whereClause,
                                                firstInherited: inherited.first, isClassBound: classBound, access: access))
            }
            scopes.append(.declarations(path))
            resetPending()
            index = brace + 1
        }

        /// `import Module`, `import Module.Submodule` or `import struct Module.Name` (after any attributes and
        /// modifiers: `@testable`, `@_exported`, `internal`): records the module.
        private mutating func readImport(into declarations: inout ManagedDeclarations) {
            let testable = attributes["testable"] != nil
            resetPending()
            index += 1
            let kinds: Set<String> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
            if index < tokens.count, kinds.contains(tokens[index].text) { index += 1 }
            guard index < tokens.count, tokens[index].kind == .identifier else { return }
            declarations.noteImport(of: tokens[index].text.trimmingBackticks, testable: testable)
            index += 1
        }

        /// At `var`: reads `var name: Type` and leaves the cursor past the type (a property without a type
        /// annotation gives nil, past the name). The pending attributes and modifiers stay for the caller.
        private mutating func readPropertyHead() -> (name: String, type: String, line: Int, typeEnd: Int)? {
            let line = tokens[index].line
            index += 1
            guard index + 1 < tokens.count, tokens[index].kind == .identifier, tokens[index + 1].text == ":" else { return nil }
            let name = tokens[index].text.trimmingBackticks
            let typeStart = index + 2
            let typeEnd = endOfType(from: typeStart)
            index = typeEnd
            return (name, text(from: typeStart, to: typeEnd), line, typeEnd)
        }

        /// `var name: Type`, after `@NSManaged` and modifiers.
        private mutating func readManagedProperty(in typePath: [String], into declarations: inout ManagedDeclarations) {
            if let head = readPropertyHead() {
                declarations.members.append(.init(classPath: typePath, name: head.name, shape: .property(type: head.type),
                                                  access: access(default: .internal), objcSelector: objcSelector,
                                                  file: path, line: head.line))
            }
            resetPending()
        }

        /// `var name: Type {` in a type's scope, not `@NSManaged`: recorded when the brace opens a getter (not a
        /// stored property's `willSet`/`didSet`), with its setter's access when the body has a `set` block; left at
        /// the brace, whose body the reader then skips.
        private mutating func readComputedProperty(in typePath: [String], into declarations: inout ManagedDeclarations) {
            if let head = readPropertyHead(), head.typeEnd < tokens.count, tokens[head.typeEnd].text == "{",
               let first = nextSignificant(after: head.typeEnd), !["willSet", "didSet"].contains(tokens[first].text) {
                let access = access(default: .internal)
                let setterAccess = hasSetBlock(bodyAt: head.typeEnd)
                    ? min(access, setterModifier.flatMap(ManagedDeclarations.AccessLevel.init(rawValue:)) ?? access) : nil
                declarations.computedProperties.append(.init(classPath: typePath, name: head.name, type: head.type,
                                                             access: access, setterAccess: setterAccess))
            }
            resetPending()
        }

        /// Whether the accessor block whose `{` is at `open` has a `set` block: `set {` or `set(name) {` directly
        /// inside it (a `get`-only or implicit getter has none).
        private func hasSetBlock(bodyAt open: Int) -> Bool {
            let close = matching(from: open, open: "{", close: "}")
            var depth = 0
            var position = open + 1
            while position < close {
                let token = tokens[position]
                if token.kind == .punctuation, token.text == "{" { depth += 1 }
                if token.kind == .punctuation, token.text == "}" { depth -= 1 }
                if depth == 0, token.text == "set", let next = nextSignificant(after: position), ["{", "("].contains(tokens[next].text) {
                    return true
                }
                position += 1
            }
            return false
        }

        /// `func name(parameters) [effects] [-> Result]`, after `@NSManaged` and modifiers.
        private mutating func readManagedMethod(in typePath: [String], into declarations: inout ManagedDeclarations) {
            let line = tokens[index].line
            index += 1
            guard index + 1 < tokens.count, tokens[index].kind == .identifier, tokens[index + 1].text == "(" else {
                resetPending()
                return
            }
            let name = tokens[index].text.trimmingBackticks
            let close = matching(from: index + 1, open: "(", close: ")")
            let parameters = Self.split(text(from: index + 2, to: close)).map(Self.parameter)
            index = close + 1
            var effects: [String] = []
            while index < tokens.count, ["throws", "async", "rethrows"].contains(tokens[index].text) {
                effects.append(tokens[index].text)
                index += 1
            }
            var result: String?
            if index < tokens.count, tokens[index].text == "->" {
                let end = endOfType(from: index + 1)
                result = text(from: index + 1, to: end)
                index = end
            }
            declarations.members.append(.init(classPath: typePath, name: name,
                                              shape: .method(parameters: parameters, effects: effects.joined(separator: " "), result: result),
                                              access: access(default: .internal), objcSelector: objcSelector, file: path, line: line))
            resetPending()
        }

        /// `typealias Name = Type`, kept whole.
        private mutating func readTypeAlias(in typePath: [String], into declarations: inout ManagedDeclarations) {
            let start = index
            var end = index + 1
            var depth = 0
            while end < tokens.count {
                let text = tokens[end].text
                if text == "(" || text == "[" || text == "<" { depth += 1 }
                if text == ")" || text == "]" || text == ">" { depth -= 1 }
                if depth <= 0, tokens[end].kind == .newline || text == ";" || text == "}" || text == "{" { break }
                end += 1
            }
            declarations.typeAliases.append(.init(path: typePath, text: text(from: start, to: end), access: access(default: .internal)))
            index = end
            resetPending()
        }

        /// The access level among the pending modifiers.
        private func access(default level: ManagedDeclarations.AccessLevel) -> ManagedDeclarations.AccessLevel {
            modifiers.compactMap(ManagedDeclarations.AccessLevel.init(rawValue:)).first ?? level
        }

        private var objcSelector: String? {
            guard let arguments = attributes["objc"], !arguments.isEmpty else { return nil }
            return arguments.filter { !$0.isWhitespace }
        }

        /// The index past a type that starts at `start`: it ends at a line break, `;`, `{`, `}`, `=` or `where` outside
        /// brackets.
        private func endOfType(from start: Int) -> Int {
            var position = start
            var depth = 0
            while position < tokens.count {
                let token = tokens[position]
                if token.text == "(" || token.text == "[" || token.text == "<" { depth += 1 }
                if token.text == ")" || token.text == "]" || token.text == ">" {
                    if depth == 0 { break }
                    depth -= 1
                }
                if depth == 0, token.kind == .newline || token.text == ";" || token.text == "{" || token.text == "}"
                    || token.text == "=" || token.text == "where" {
                    break
                }
                position += 1
            }
            return position
        }

        /// The index of the bracket closing the one at `start`; the last token when it is never closed.
        private func matching(from start: Int, open: String, close: String) -> Int {
            var depth = 0
            var position = start
            while position < tokens.count {
                let text = tokens[position].text
                if tokens[position].kind == .punctuation {
                    if text == open { depth += 1 }
                    if text == close {
                        depth -= 1
                        if depth == 0 { return position }
                    }
                }
                position += 1
            }
            return max(start, tokens.count - 1)
        }

        /// The `{` that opens a type's body, skipping bracketed parts of its header.
        private func nextOpeningBrace(from start: Int) -> Int? {
            var position = start
            var depth = 0
            while position < tokens.count {
                let text = tokens[position].text
                if text == "(" || text == "[" || text == "<" { depth += 1 }
                if text == ")" || text == "]" || text == ">" { depth -= 1 }
                if text == "{", depth <= 0 { return position }
                if text == "}" { return nil }
                position += 1
            }
            return nil
        }

        private func nextSignificant(after position: Int) -> Int? {
            var next = position + 1
            while next < tokens.count, tokens[next].kind == .newline { next += 1 }
            return next < tokens.count ? next : nil
        }

        /// The source text of the tokens from `start` up to (not including) `end`, line breaks folded to spaces.
        private func text(from start: Int, to end: Int) -> String {
            guard start < end, start < tokens.count else { return "" }
            let raw = SwiftTokenizer.text(utf8, from: tokens[start].start, to: tokens[min(end, tokens.count) - 1].end)
            return raw.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .joined(separator: " ").trimmingCharacters(in: .whitespaces)
        }

        /// `: Base<T>, Proto where T: Hashable` → (`["Base<T>", "Proto"]`, `where T: Hashable`); an empty header
        /// gives no types and no clause.
        static func inheritanceParts(_ header: String) -> (types: [String], whereClause: String) {
            var list = header.trimmingCharacters(in: .whitespaces)
            var whereClause = ""
            if let range = topLevelWhere(in: list) {
                whereClause = String(list[range.lowerBound...]).trimmingCharacters(in: .whitespaces)
                list = String(list[..<range.lowerBound])
            }
            guard list.hasPrefix(":") else { return ([], whereClause) }
            return (split(String(list.dropFirst())), whereClause)
        }

        /// The range of the word `where` outside angle brackets and parentheses, if any.
        private static func topLevelWhere(in text: String) -> Range<String.Index>? {
            var depth = 0
            var position = text.startIndex
            while position < text.endIndex {
                let character = text[position]
                if "([<".contains(character) { depth += 1 }
                if ")]>".contains(character) { depth -= 1 }
                if depth == 0, text[position...].hasPrefix("where"),
                   position == text.startIndex || !Self.isIdentifierCharacter(text[text.index(before: position)]) {
                    let end = text.index(position, offsetBy: 5)
                    if end == text.endIndex || !Self.isIdentifierCharacter(text[end]) { return position..<end }
                }
                position = text.index(after: position)
            }
            return nil
        }

        private static func isIdentifierCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_"
        }

        /// `T, U: Equatable` → `["T", "U"]`.
        static func parameterNames(_ list: String) -> [String] {
            split(list).compactMap { part in
                words(part).first { $0 != "each" }
            }
        }

        /// Splits a list at its top-level commas.
        static func split(_ list: String) -> [String] {
            var parts: [String] = []
            var current = ""
            var depth = 0
            for character in list {
                if "([<".contains(character) { depth += 1 }
                if ")]>".contains(character) { depth -= 1 }
                if character == ",", depth == 0 {
                    parts.append(current.trimmingCharacters(in: .whitespaces))
                    current = ""
                } else {
                    current.append(character)
                }
            }
            let last = current.trimmingCharacters(in: .whitespaces)
            if !last.isEmpty { parts.append(last) }
            return parts
        }

        /// `at idx: Int` → label `at`, name `idx`; `_ value: Book` → `_`, `value`; `value: Book` → `value`, `value`.
        static func parameter(_ text: String) -> ManagedDeclarations.Parameter {
            guard let colon = text.firstIndex(of: ":") else { return .init(label: "_", name: "_", type: text) }
            let names = words(String(text[..<colon]))
            var type = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if let equals = type.firstIndex(of: "=") { type = String(type[..<equals]).trimmingCharacters(in: .whitespaces) }
            let label = names.first ?? "_"
            return .init(label: label, name: names.count > 1 ? names[1] : label, type: type)
        }

        /// The identifiers in a piece of text.
        static func words(_ text: String) -> [String] {
            text.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "`") }.map { String($0).trimmingBackticks }
        }
    }
}

extension String {
    /// The identifier without the backticks that escape a keyword.
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

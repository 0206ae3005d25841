// Lists the public symbols without a doc comment in symbol graph files, and exits 1 when there is one.
//
//     swift Scripts/undocumented-symbols.swift <symbol graph directory>…
//
// Run by Scripts/build-docs, which says what the symbol graphs hold and why a symbol counts as documented.
// A symbol counts as undocumented when all of these hold:
//   - its access level is public or open (the extractor is run with -minimum-access-level public);
//   - it is a declaration, not an extension block (`swift.extension`, which only groups members);
//   - the symbol graph gives it no doc comment with a line of text: neither its own, nor the one the extractor
//     copies from the member it overrides or the protocol requirement it implements.
// A symbol found in several files (a module's graph that re-exports another module) is reported once.
import Foundation

/// One undocumented symbol, as the report prints it.
struct UndocumentedSymbol: Hashable, Comparable {
    let file: String
    let line: Int
    let kind: String
    let path: String

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.file, lhs.line, lhs.path) < (rhs.file, rhs.line, rhs.path) }
}

/// The undocumented symbols of one symbol graph file, keyed by the symbol's precise identifier.
func undocumentedSymbols(in file: URL) throws -> [String: UndocumentedSymbol] {
    let data = try Data(contentsOf: file)
    guard let graph = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let symbols = graph["symbols"] as? [[String: Any]] else {
        throw NSError(domain: "undocumented-symbols", code: 1,
                      userInfo: [NSLocalizedDescriptionKey: "\(file.path) is not a symbol graph"])
    }
    var found: [String: UndocumentedSymbol] = [:]
    for symbol in symbols {
        let access = symbol["accessLevel"] as? String ?? ""
        let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? ""
        guard access == "public" || access == "open", kind != "swift.extension", !hasText(symbol["docComment"]) else { continue }
        let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? ""
        let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
        let (file, line) = place(of: symbol)
        found[identifier] = UndocumentedSymbol(file: file, line: line, kind: kind.replacingOccurrences(of: "swift.", with: ""), path: path)
    }
    return found
}

/// Whether a doc comment has at least one line that is not blank.
func hasText(_ docComment: Any?) -> Bool {
    let lines = (docComment as? [String: Any])?["lines"] as? [[String: Any]] ?? []
    return lines.contains { ($0["text"] as? String)?.trimmingCharacters(in: .whitespaces).isEmpty == false }
}

/// The file (relative to the working directory when inside it) and line of a symbol's declaration.
func place(of symbol: [String: Any]) -> (file: String, line: Int) {
    guard let location = symbol["location"] as? [String: Any], let uri = location["uri"] as? String,
          let url = URL(string: uri) else { return ("(no source location)", 0) }
    let line = ((location["position"] as? [String: Any])?["line"] as? Int).map { $0 + 1 } ?? 0
    let root = FileManager.default.currentDirectoryPath + "/"
    return (url.path.hasPrefix(root) ? String(url.path.dropFirst(root.count)) : url.path, line)
}

let directories = CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) }
guard !directories.isEmpty else {
    FileHandle.standardError.write(Data("usage: swift Scripts/undocumented-symbols.swift <symbol graph directory>…\n".utf8))
    exit(64)
}
var undocumented: [String: UndocumentedSymbol] = [:]
do {
    for directory in directories {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix(".symbols.json") }
        for file in files { undocumented.merge(try undocumentedSymbols(in: file)) { first, _ in first } }
    }
} catch {
    FileHandle.standardError.write(Data("undocumented-symbols: \(error.localizedDescription)\n".utf8))
    exit(1)
}
for symbol in Set(undocumented.values).sorted() {
    print("\(symbol.file):\(symbol.line): public \(symbol.kind) \(symbol.path) has no doc comment")
}
if !undocumented.isEmpty {
    print("\(undocumented.count) public symbols have no doc comment")
    exit(1)
}

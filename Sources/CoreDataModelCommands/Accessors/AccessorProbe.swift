import Foundation

/// Asks the Swift compiler of the toolchain that builds the target for the symbol names and calling conventions
/// of `@NSManaged` accessors, so that generated accessors never rest on a guess.
///
/// Swift on Linux declares an `@NSManaged` member's accessors (the getter and setter of a property, the method
/// itself) and never defines them. The probe compiles a small module with the target's module name that
/// re-declares the target's types (empty, same names, kinds, nesting, generic parameters and constraints, and for
/// classes a superclass: see `ProbeSource`), its type aliases and its `@NSManaged` members, importing Foundation and those of the target's imports whose compiled modules
/// (`<Name>.swiftmodule`) are in `dependencies.importPaths` (the target's dependencies, built before it), and
/// reads the compiler's SIL: each class's vtable names the symbol of every accessor, in declaration order, and
/// the declaration of each symbol gives its SIL function type. Mangled names depend only on names, kinds, nesting
/// and the modules that declare the types, which the re-declarations and the imports keep.
///
/// The probe then compiles the generated accessors' signatures against the same declarations and checks that
/// every one has exactly the SIL function type of the accessor it defines; any difference stops generation.
struct AccessorProbe {
    /// The symbol and lowered type of one accessor, as the compiler gave them.
    struct Accessor: Equatable {
        let symbol: String
        /// The SIL function type: `$@convention(method) (@guaranteed Person) -> @owned Optional<String>`.
        let silType: String
    }

    /// The accessors of one member: getter and setter of a property, or the method.
    enum MemberAccessors {
        case property(getter: Accessor, setter: Accessor)
        case method(Accessor)
    }

    /// Where the probe finds the target's dependency modules.
    struct Dependencies {
        /// Folders holding the dependencies' compiled Swift modules (SwiftPM's `Modules` folder).
        var importPaths: [URL] = []
        /// Module maps of the C modules the dependencies import (system library targets).
        var moduleMaps: [URL] = []
        /// Further flags for the C compiler (a system library's `pkg-config` include folders).
        var clangFlags: [String] = []
    }

    let swiftc: URL
    let moduleName: String
    let workDirectory: URL
    var dependencies = Dependencies()
    /// Whether the re-declared types keep their generic constraints, `where` clauses and class inheritance
    /// (`ProbeSource.isFaithful`).
    var isFaithful = true

    /// The modules among `imports` that the probe can import: Foundation and the standard library's are imported
    /// anyway; of the others, those with a compiled module in an import path. The target itself is left out.
    func importable(_ imports: [ManagedDeclarations.ImportedModule]) -> [ManagedDeclarations.ImportedModule] {
        imports.filter { module in
            module.name != moduleName && !["Foundation", "Swift"].contains(module.name) && dependencies.importPaths.contains { folder in
                FileManager.default.fileExists(atPath: folder.appendingPathComponent(module.name + ".swiftmodule").path)
            }
        }
    }

    /// The accessors of every member, in the order of `declarations.members`.
    func accessors(of declarations: ManagedDeclarations) throws -> [MemberAccessors] {
        let source = ProbeSource(declarations: declarations, imports: importable(declarations.imports), isFaithful: isFaithful)
            .text(includingMembers: true, extensions: "")
        let sil = try compile(source, named: Self.probeFileName)
        let table = SILListing(sil)
        var overloadsSeen: [String: Int] = [:]
        return try declarations.members.map { member in
            let overloadIndex = overloadsSeen[member.silDescription, default: 0]
            overloadsSeen[member.silDescription] = overloadIndex + 1
            let entries = table.vtableEntries(for: member, overloadIndex: overloadIndex)
            switch member.shape {
            case .property:
                guard let getter = entries.first(where: { $0.reference.hasSuffix("!getter") }),
                      let setter = entries.first(where: { $0.reference.hasSuffix("!setter") }),
                      let getterType = table.types[getter.symbol], let setterType = table.types[setter.symbol] else {
                    throw missing(member)
                }
                return .property(getter: .init(symbol: getter.symbol, silType: getterType),
                                 setter: .init(symbol: setter.symbol, silType: setterType))
            case .method:
                guard let method = entries.first, let type = table.types[method.symbol] else { throw missing(member) }
                return .method(.init(symbol: method.symbol, silType: type))
            }
        }
    }

    /// Compiles the generated accessors' signatures (with empty bodies) against the probe's declarations and
    /// returns the SIL type of each symbol they define.
    func definedTypes(declarations: ManagedDeclarations, signatures: String) throws -> [String: String] {
        let source = ProbeSource(declarations: declarations, imports: importable(declarations.imports), isFaithful: isFaithful)
            .text(includingMembers: false, extensions: signatures)
        return SILListing(try compile(source, named: "NSManagedAccessorCheck.swift")).definedTypes
    }

    private func missing(_ member: ManagedDeclarations.Member) -> AccessorGenerationError {
        AccessorGenerationError(file: member.file, line: member.line,
                                message: "the compiler did not declare accessors for @NSManaged \(member.silDescription); is it a member of a class?")
    }

    /// The private discriminator the compiler gives declarations of each file name (`Book.swift`) in this
    /// module (`_` and 32 hexadecimal digits, part of the symbol name of every `private` or `fileprivate`
    /// declaration), and the one of the probe's own file, under `probeFileName`. Read from the compiler: one
    /// whole-module compile of an empty private function per file name.
    func privateDiscriminators(ofFiles names: [String]) throws -> [String: String] {
        let names = Array(Set(names + [Self.probeFileName])).sorted()
        let marker = "__coreDataDiscriminatorProbe"
        let files = names.enumerated().map { index, name in (name: name, text: "private func \(marker)\(index)x() {}\n") }
        let sil = try compile(files, in: workDirectory.appendingPathComponent("discriminators"), output: "discriminators")
        // Each function's SIL follows a comment naming it (`// __coreDataDiscriminatorProbe0x()`); the mangled name
        // itself may abbreviate words it shares with the module's name.
        var result: [String: String] = [:]
        var current: Int?
        for line in sil.split(separator: "\n") {
            if line.hasPrefix("// \(marker)") {
                current = Int(line.dropFirst(3 + marker.count).prefix { $0.isNumber })
            } else if line.hasPrefix("sil "), let index = current, names.indices.contains(index) {
                current = nil
                guard let range = line.range(of: #"33_[0-9A-F]{32}LL"#, options: .regularExpression) else { continue }
                result[names[index]] = String(line[range].dropFirst(2).dropLast(2))
            }
        }
        return result
    }

    /// The name of the file the probe's declarations are compiled in.
    static let probeFileName = "NSManagedProbe.swift"

    /// Runs `swiftc -emit-sil` on `source`; throws the compiler's messages when it fails.
    private func compile(_ source: String, named name: String) throws -> String {
        try compile([(name, source)], in: workDirectory, output: name)
    }

    /// Runs `swiftc -emit-sil` on `files`, written into `directory` (several as one whole module); throws the
    /// compiler's messages when it fails.
    private func compile(_ files: [(name: String, text: String)], in directory: URL, output name: String) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var inputs: [URL] = []
        for file in files {
            let input = directory.appendingPathComponent(file.name)
            try Data(file.text.utf8).write(to: input, options: .atomic)
            inputs.append(input)
        }
        let output = directory.appendingPathComponent(name + ".sil")
        let errors = directory.appendingPathComponent(name + ".errors")
        let process = Process()
        process.executableURL = swiftc
        var arguments = ["-parse-as-library", "-module-name", moduleName, "-package-name", "CoreDataAccessorProbe",
                         "-swift-version", "5", "-suppress-warnings", "-emit-sil", "-o", output.path]
        arguments += dependencies.importPaths.flatMap { ["-I", $0.path] }
        arguments += dependencies.moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=" + $0.path] }
        arguments += dependencies.clangFlags.flatMap { ["-Xcc", $0] }
        if inputs.count > 1 { arguments.append("-wmo") }
        process.arguments = arguments + inputs.map(\.path)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: errors)
        defer { try? errorHandle.close() }
        process.standardError = errorHandle
        process.standardOutput = errorHandle
        try process.run()
        guard Self.exitStatus(of: process) == 0 else {
            let messages = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw ProbeFailure(messages: messages)
        }
        return try String(contentsOf: output, encoding: .utf8)
    }

    /// Waits for a child with `waitpid` itself (Foundation's `waitUntilExit()` was seen never to return for a
    /// child that had exited, under load) and returns its exit status; -1 when it did not exit normally. When
    /// Foundation reaped the child first, its own record of the status is used.
    private static func exitStatus(of process: Process) -> Int32 {
        var status: Int32 = 0
        while waitpid(process.processIdentifier, &status, 0) == -1 {
            guard errno == EINTR else {
                process.waitUntilExit()
                return process.terminationReason == .exit ? process.terminationStatus : -1
            }
        }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }

    /// The compiler refused the probe: usually a type of an `@NSManaged` member that is declared neither in the
    /// target nor in Foundation, the standard library or a dependency whose compiled module the probe was given
    /// (a binary-only module, say).
    struct ProbeFailure: SourceDiagnostic {
        let messages: String

        var description: String {
            let errors = messages.split(separator: "\n").filter { $0.contains(": error: ") }.map(String.init)
            return (errors.isEmpty ? [messages] : errors).joined(separator: "\n") + """

                note: @NSManaged accessors are generated from the target's own declarations, the standard library, \
                Foundation and the modules the target imports that are built in the same package graph (their \
                .swiftmodule is found in the build's Modules folder); a member whose type comes from another module \
                (a binary-only one, say) cannot get them. Declare such a property with ➕ @Managed instead (see \
                Docs/Decisions.md, "@NSManaged on Linux").
                """
        }
    }
}

/// The probe module's source: the target's importable imports, its types re-declared empty, with its type
/// aliases, and either its `@NSManaged` members (inside their classes, in the target's order) or the generated
/// accessors' signatures.
struct ProbeSource {
    let declarations: ManagedDeclarations
    /// The target's imports the probe imports too (their types keep their module in mangled names).
    var imports: [ManagedDeclarations.ImportedModule] = []
    /// Whether types keep their generic constraints, `where` clauses and (for classes) a superclass, which
    /// members' types may need (`Set<Tag>`, an alias `Set<T>` in `Page<T: Hashable>`); when not, types are
    /// re-declared with their generic parameters' names alone, for a target whose constraints name something the
    /// probe cannot see.
    var isFaithful = true

    func text(includingMembers: Bool, extensions: String) -> String {
        var lines = ["import Foundation"]
        lines += imports.map { ($0.isTestable ? "@testable " : "") + "import \($0.name)" }
        lines.append("")
        lines += aliases(at: [])
        for type in declarations.types where type.path.count == 1 {
            lines += stub(type, includingMembers: includingMembers)
        }
        lines.append(extensions)
        return lines.joined(separator: "\n") + "\n"
    }

    private func stub(_ type: ManagedDeclarations.DeclaredType, includingMembers: Bool) -> [String] {
        let name = type.path.last ?? ""
        let parameters = isFaithful ? type.genericClause : type.genericParameters.joined(separator: ", ")
        let generics = parameters.isEmpty ? "" : "<\(parameters)>"
        // A protocol's `where` clause may name associated types the empty stub does not declare.
        let whereClause = !isFaithful || type.whereClause.isEmpty || type.kind == "protocol" ? "" : " \(type.whereClause)"
        var lines = ["public \(type.kind) \(name)\(generics)\(inheritance(of: type))\(whereClause) {"]
        if type.kind == "protocol" {  // primary associated types (`protocol Store<Item>`) are declared in the body
            lines += type.genericParameters.map { "associatedtype \($0)" }
        }
        lines += aliases(at: type.path)
        for nested in declarations.types where nested.path.count == type.path.count + 1 && Array(nested.path.dropLast()) == type.path {
            lines += stub(nested, includingMembers: includingMembers)
        }
        if includingMembers, type.kind == "class" {
            for member in declarations.members where member.classPath == type.path {
                lines.append("#sourceLocation(file: \(Self.literal(member.file)), line: \(member.line))")
                lines.append(member.probeDeclaration)
                lines.append("#sourceLocation()")
            }
        }
        lines.append("}")
        return lines
    }

    /// A class-bound protocol stays class-bound. A class keeps its superclass when that is a class of the target
    /// (re-declared here too); any other class stub inherits `NSObject`, as every managed object class does
    /// through `NSManagedObject`: an `@NSManaged` member may need its class's inherited conformances (`Set<Tag>`
    /// needs `Tag` to be `Hashable`), and which class a class inherits from changes no accessor's symbol or type.
    private func inheritance(of type: ManagedDeclarations.DeclaredType) -> String {
        switch type.kind {
        case "protocol":
            return type.isClassBound ? ": AnyObject" : ""
        case "class" where isFaithful:
            if let inherited = type.firstInherited, isTargetClass(named: inherited, seenFrom: type.path) { return ": \(inherited)" }
            return ": NSObject"
        default:
            return ""
        }
    }

    /// Whether `written` (`Base`, `Outer.Base`, `Base<T>`) names a class the target declares, looked up as Swift
    /// does from inside the type at `path`: nested in the enclosing types first, innermost first, then at file scope.
    private func isTargetClass(named written: String, seenFrom path: [String]) -> Bool {
        let bare = written.prefix { $0 != "<" }.split(separator: ".").map { String($0).trimmingBackticks }
        guard !bare.isEmpty else { return false }
        for depth in stride(from: path.count - 1, through: 0, by: -1) {
            if let found = declarations.type(at: Array(path.prefix(depth)) + bare) { return found.kind == "class" }
        }
        return false
    }

    private func aliases(at path: [String]) -> [String] {
        declarations.typeAliases.filter { $0.path == path }.map { alias in
            alias.access == .internal ? alias.text : "\(alias.access.rawValue) \(alias.text)"
        }
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// What the accessor generator reads from the compiler's SIL: vtable entries and the types of functions.
struct SILListing {
    struct VTableEntry {
        /// `#Person.name!getter`, `#Person.addToBooks`.
        let reference: String
        let symbol: String
        /// The compiler's comment: `Person.name.getter`, `Person.addToBooks(_:)`.
        let comment: String
    }

    private(set) var entries: [VTableEntry] = []
    /// The SIL function type of every function the listing declares or defines, by symbol.
    private(set) var types: [String: String] = [:]
    /// The same, for the functions it defines (with a body).
    private(set) var definedTypes: [String: String] = [:]

    init(_ sil: String) {
        var inVTable = false
        for line in sil.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("sil_vtable ") {
                inVTable = true
            } else if inVTable, line.hasPrefix("}") {
                inVTable = false
            } else if inVTable {
                if let entry = Self.vtableEntry(line) { entries.append(entry) }
            } else if line.hasPrefix("sil "), let (symbol, type, isDefinition) = Self.function(line) {
                types[symbol] = type
                if isDefinition { definedTypes[symbol] = type }
            }
        }
    }

    /// The vtable entries of a member, in order: getter, setter and modify of a property; the method, for a
    /// method whose argument labels match. `overloadIndex` is the member's place among the members of its class
    /// with the same name and labels.
    func vtableEntries(for member: ManagedDeclarations.Member, overloadIndex: Int) -> [VTableEntry] {
        let owner = "#" + member.classPath.joined(separator: ".") + "." + member.name
        switch member.shape {
        case .property:
            return entries.filter { $0.reference.hasPrefix(owner + "!") }
        case .method:
            // Overloads share a reference and a comment (Xcode's addToBooks(_:) for one object and for a set): the
            // compiler lists them in declaration order, and the probe declares them in the target's order.
            let candidates = entries.filter { $0.reference == owner && $0.comment == member.silDescription }
            return Array(candidates.dropFirst(overloadIndex))
        }
    }

    /// `  #Person.name!getter: (Person) -> () -> String? : @$s…vg	// Person.name.getter`
    private static func vtableEntry(_ line: Substring) -> VTableEntry? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("#"), let at = trimmed.range(of: " : @", options: .backwards) else { return nil }
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let reference = String(trimmed[..<colon])
        let afterAt = trimmed[at.upperBound...]
        let symbol = String(afterAt.prefix { !$0.isWhitespace && $0 != "\t" })
        var comment = ""
        if let slashes = afterAt.range(of: "// ") {
            comment = String(afterAt[slashes.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        return VTableEntry(reference: reference, symbol: symbol, comment: comment)
    }

    /// `sil [attributes] @$s… : $type` (a declaration) or `… {` (a definition).
    private static func function(_ line: Substring) -> (String, String, Bool)? {
        guard let at = line.range(of: " @$") else { return nil }
        let rest = line[line.index(after: at.lowerBound)...]
        guard let separator = rest.range(of: " : ") else { return nil }
        let symbol = String(rest[rest.index(after: rest.startIndex)..<separator.lowerBound])
        var type = String(rest[separator.upperBound...]).trimmingCharacters(in: .whitespaces)
        let isDefinition = type.hasSuffix("{")
        if isDefinition { type = String(type.dropLast()).trimmingCharacters(in: .whitespaces) }
        return (symbol, type, isDefinition)
    }
}

import Foundation

/// `coredata accessors`: generates the accessors that Swift on Linux declares for `@NSManaged` members and never
/// defines (what the build plugin runs for every target with `@NSManaged` members).
package enum AccessorsCommand: Command {
    package static let name = "accessors"
    package static let summary = "generate the accessors of @NSManaged properties and relationship methods (the build plugin runs it)"
    package static let usage = """
        usage: coredata accessors <file.swift>... --module <Name> --output <Accessors.swift> [--swiftc <path>] [--work <dir>]
                                  [--import-path <dir>]... [--module-map <module.modulemap>]... [--Xcc <flag>]...

          <file.swift>  every Swift source of the module (its types are re-declared to ask the compiler)
          --module      the module's name (the symbol names depend on it)
          --output      the Swift file to write; rewritten only when its text changes
          --swiftc      the compiler to ask for symbol names (default: $SWIFT_EXEC, else swiftc on PATH); use the
                        one that builds the module
          --work        a folder for the compiler's probe files (default: a temporary folder, removed afterwards)
          --import-path a folder of compiled modules (<Name>.swiftmodule) the module's imports may be found in;
                        an import found there is imported by the probe, so members may use its types
          --module-map  a C module map the imported modules need (a system library's module.modulemap)
          --Xcc         a flag for the C compiler those need (a system library's -I<folder>)
        A member that cannot get accessors (a private one, a class of another module, a type from a module that is
        neither Foundation, the standard library nor found in an import path) is reported as file:line: error:, and
        nothing is written.
        See Docs/Decisions.md, "@NSManaged on Linux".
        """

    package static func run(_ arguments: [String]) throws {
        let repeatable: Set = ["--import-path", "--module-map", "--Xcc"]
        let parsed = try ParsedArguments(arguments, valued: Set(["--module", "--output", "--swiftc", "--work"]).union(repeatable),
                                         repeatable: repeatable)
        guard !parsed.positional.isEmpty else { throw UsageError("expected the module's Swift files") }
        guard let module = parsed.options["--module"] else { throw UsageError("--module is required") }
        guard let output = parsed.options["--output"] else { throw UsageError("--output is required") }
        let swiftc = try compiler(parsed.options["--swiftc"])
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-accessors-\(UUID().uuidString)")
        let work = parsed.options["--work"].map { URL(fileURLWithPath: $0) } ?? temporary
        defer { try? FileManager.default.removeItem(at: temporary) }
        let sources = try parsed.positional.map { path in (path: path, text: try String(contentsOfFile: path, encoding: .utf8)) }
        let dependencies = AccessorProbe.Dependencies(
            importPaths: parsed.repeated["--import-path", default: []].map { URL(fileURLWithPath: $0, isDirectory: true) },
            moduleMaps: parsed.repeated["--module-map", default: []].map { URL(fileURLWithPath: $0) },
            clangFlags: parsed.repeated["--Xcc", default: []])
        let generator = AccessorGenerator(moduleName: module, swiftc: swiftc, workDirectory: work, dependencies: dependencies)
        let generated = try generator.generate(sources: sources)
        let target = URL(fileURLWithPath: output)
        let data = Data(generated.utf8)
        if (try? Data(contentsOf: target)) == data { return }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target, options: .atomic)
    }

    /// The compiler named on the command line, by `SWIFT_EXEC`, or found on `PATH`.
    private static func compiler(_ given: String?) throws -> URL {
        if let given { return URL(fileURLWithPath: given) }
        let environment = ProcessInfo.processInfo.environment
        if let exec = environment["SWIFT_EXEC"], !exec.isEmpty { return URL(fileURLWithPath: exec) }
        for folder in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw UsageError("no swiftc on PATH; give the compiler with --swiftc")
    }
}

import CoreData
import CoreDataStoreKit
import Foundation

/// `coredata compile <model.xcdatamodeld> --output X.momd`: writes the compiled form of a model.
enum CompileCommand: Command {
    static let name = "compile"
    static let summary = "compile a .xcdatamodeld or .xcdatamodel into a .momd that loads faster"
    static let usage = """
        usage: coredata compile <model.xcdatamodeld> --output <Name.momd>

          Every version is compiled; VersionInfo.plist names the current one. The format is described in
          Docs/ModelFiles.md. An existing output is replaced only after the new one is complete.
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--output"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one model") }
        guard let output = parsed.options["--output"] else { throw UsageError("--output is required") }
        try ModelCompiler.compile(URL(fileURLWithPath: path), to: URL(fileURLWithPath: output))
    }
}

import CoreData
import CoreDataStoreKit
import Foundation

/// `coredata compile <model.xcdatamodeld> --output X.momd`: compiles a model as Xcode's `momc` does.
enum CompileCommand: Command {
    static let name = "compile"
    static let summary = "compile a .xcdatamodeld or .xcdatamodel into a .momd, as Xcode's momc does"
    static let usage = """
        usage: coredata compile <model.xcdatamodeld> --output <Name.momd>

          Every version is compiled into Apple's .mom format, with a VersionInfo.plist that names the current
          one, as Xcode writes them: the .momd loads with NSManagedObjectModel(contentsOf:) here and on iOS and
          macOS (Docs/ModelFiles.md). A model holding something the writer does not write yet (a SUBQUERY in
          a predicate, …) fails with error 3328 naming the entity and property. An existing output is
          replaced only after the new one is complete.
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--output"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one model") }
        guard let output = parsed.options["--output"] else { throw UsageError("--output is required") }
        try ModelCompiler.compile(URL(fileURLWithPath: path), to: URL(fileURLWithPath: output))
    }
}

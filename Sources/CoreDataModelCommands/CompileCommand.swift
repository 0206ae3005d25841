import CoreDataModelTools
import CoreDataStoreKit
import Foundation

/// `coredata compile <model.xcdatamodeld | mapping.xcmappingmodel> [--output <path>]`: compiles a model as
/// Xcode's `momc` does, or a mapping model as Xcode's mapping model compiler does.
package enum CompileCommand: Command {
    package static let name = "compile"
    package static let summary = "compile a .xcdatamodeld into a .momd, or a .xcmappingmodel into a .cdm, as Xcode does"
    package static let usage = """
        usage: coredata compile <model.xcdatamodeld> [--output <Name.momd>] [--module <Module>]
               coredata compile <mapping.xcmappingmodel> [--output <Name.cdm>]

          A model (.xcdatamodeld, or one .xcdatamodel): every version is compiled into Apple's .mom format, with a
          VersionInfo.plist that names the current one, as Xcode writes them: the .momd loads with
          NSManagedObjectModel(contentsOf:) here and on iOS and macOS (Docs/ModelFiles.md). A model holding
          something the writer does not write yet (a SUBQUERY in a predicate, …) fails with error 3328 naming the
          entity and property.

          A mapping model (.xcmappingmodel): compiled into Apple's .cdm (a keyed archive of NSMappingModel), with
          the mapping names, types, source expressions, generated value expressions and entity version hashes
          Xcode's compiler writes; NSMappingModel(contentsOf:) and NSMappingModel(from:forSourceModel:
          destinationModel:) read it here and on iOS and macOS (Docs/Migration.md). An expression the archive
          cannot hold fails with error 3328 naming the mapping and property.

          --module  the module the model's generated classes are built into (as momc's --module): each Class
                    Definition entity's class is named <Module>.<Class> in the compiled model, so it is found
                    without @objc (the build plugin passes the target's module).
          --output  where to write; default: the source's name with .momd or .cdm, in the current directory.
                    An existing output is replaced only once the new one is complete.
        """

    package static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--output", "--module"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one model or mapping model") }
        let source = URL(fileURLWithPath: path)
        let output = self.output(for: source, given: parsed.options["--output"])
        if isMappingModel(source) {
            try MappingModelCompiler.compile(source, to: output)
        } else {
            try ModelCompiler.compile(source, to: output, productModule: parsed.options["--module"])
        }
    }

    /// Whether `source` is a mapping model: Xcode's package, or a compiled `.cdm` (which the mapping compiler
    /// refuses as already compiled); else a model.
    static func isMappingModel(_ source: URL) -> Bool {
        ["xcmappingmodel", "cdm"].contains(source.pathExtension)
    }

    /// `--output`'s path, else the source's name with `.cdm` (a mapping model) or `.momd` (a model), in the
    /// current directory.
    static func output(for source: URL, given path: String?) -> URL {
        if let path { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: source.deletingPathExtension().lastPathComponent + (isMappingModel(source) ? ".cdm" : ".momd"))
    }
}

import CoreData
import CoreDataStoreKit
import Foundation

/// `coredata generate <model> --output <dir>`: writes one Swift file per entity class.
enum GenerateCommand: Command {
    static let name = "generate"
    static let summary = "write Swift classes (@Managed properties) for a model's entities"
    static let usage = """
        usage: coredata generate <model> --output <directory> [--access public|internal] [--single-file <Name.swift>]
                                 [--follow-codegen]

          <model>     a .xcdatamodeld, .xcdatamodel, .momd or .mom
          --output    the folder to write <Class>.swift files into (created if needed)
          --access    access level of the generated declarations (default: public)
          --single-file  write every class into this one file inside --output (what the build plugin uses,
                         since it must name its outputs before reading the model)
          --follow-codegen  only entities whose Codegen setting is Class Definition (codeGenerationType="class"),
                            as Xcode's build does; what the build plugin uses. Without it, every entity.
        Files are rewritten only when their text changes.
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--output", "--access", "--single-file"],
                                         flags: ["--follow-codegen"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one model") }
        guard let output = parsed.options["--output"] else { throw UsageError("--output is required") }
        let access = parsed.options["--access"] ?? "public"
        guard access == "public" || access == "internal" else { throw UsageError("--access must be public or internal") }
        let url = URL(fileURLWithPath: path)
        let model = try NSManagedObjectModel.load(contentsOf: url)
        var generator = EntityClassGenerator(model: model, hints: try ModelFileLoader.codegenHints(contentsOf: url),
                                             sourceName: url.lastPathComponent)
        generator.accessLevel = access
        generator.followsCodegenSetting = parsed.flags.contains("--follow-codegen")
        let folder = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files = generator.files()
        if let single = parsed.options["--single-file"] {
            guard !single.contains("/"), single.hasSuffix(".swift") else { throw UsageError("--single-file must be a file name ending in .swift") }
            files = [EntityClassGenerator.File(name: single, contents: generator.singleFile())]
        }
        for file in files {
            let target = folder.appendingPathComponent(file.name)
            let data = Data(file.contents.utf8)
            if (try? Data(contentsOf: target)) == data { continue }
            try data.write(to: target, options: .atomic)
        }
    }
}

import CoreDataModelTools
import CoreDataStoreKit
import Foundation

/// `coredata generate <model> --output <dir>`: writes one Swift file per entity class.
package enum GenerateCommand: Command {
    package static let name = "generate"
    package static let summary = "write Swift classes (@Managed properties) for a model's entities"
    package static let usage = """
        usage: coredata generate <model> --output <directory> [--access public|internal] [--single-file <Name.swift>]
                                 [--follow-codegen] [--style managed|xcode]

          <model>     a .xcdatamodeld, .xcdatamodel, .momd or .mom
          --output    the folder to write <Class>.swift files into (created if needed)
          --access    access level of the generated declarations (default: public)
          --single-file  write every class into this one file inside --output (what the build plugin uses,
                         since it must name its outputs before reading the model)
          --follow-codegen  as Xcode's build does: a class for entities whose Codegen setting is Class Definition,
                            an extension with the @NSManaged properties for Category/Extension, nothing for
                            Manual/None; what the build plugin uses. Without it, a class for every entity.
          --style       managed (default): one <Class>.swift per class, with @Managed properties;
                        xcode: Xcode's <Class>+CoreDataClass.swift and <Class>+CoreDataProperties.swift, with
                        @NSManaged properties, NSSet?/NSOrderedSet? relationships and Xcode's relationship
                        methods (their accessors come from the build plugin, or `coredata accessors`). The build
                        plugin uses xcode, unless the target's coredata.json says {"classStyle": "managed"}
        Files are rewritten only when their text changes.
        """

    package static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--output", "--access", "--single-file", "--style"],
                                         flags: ["--follow-codegen"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one model") }
        guard let output = parsed.options["--output"] else { throw UsageError("--output is required") }
        let access = parsed.options["--access"] ?? "public"
        guard access == "public" || access == "internal" else { throw UsageError("--access must be public or internal") }
        let url = URL(fileURLWithPath: path)
        let style = parsed.options["--style"] ?? "managed"
        guard style == "managed" || style == "xcode" else { throw UsageError("--style must be managed or xcode") }
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let hints = try ModelFileLoader.codegenHints(contentsOf: url)
        var generator = EntityClassGenerator(model: model, hints: hints, sourceName: url.lastPathComponent)
        generator.accessLevel = access
        generator.followsCodegenSetting = parsed.flags.contains("--follow-codegen")
        var xcode = XcodeClassGenerator(model: model, hints: hints)
        xcode.accessLevel = access
        let classFiles = style == "xcode" ? xcodeFiles(xcode, generator) : generator.files()
        // Category/Extension entities: the user writes the class, the build writes an extension, which only
        // @NSManaged properties can live in.
        let categories = generator.followsCodegenSetting
            ? model.entities.filter { hints.entities[$0.name ?? ""]?.codeGenerationType == "category" } : []
        let categoryFiles = categories.flatMap { xcode.files(for: $0, propertiesOnly: true) }
        var files = classFiles + categoryFiles
        let folder = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let single = parsed.options["--single-file"] {
            guard !single.contains("/"), single.hasSuffix(".swift") else { throw UsageError("--single-file must be a file name ending in .swift") }
            let classes = style == "managed" ? [generator.singleFile()] : classFiles.map(\.contents)
            files = [EntityClassGenerator.File(name: single, contents: (classes + categoryFiles.map(\.contents)).joined(separator: "\n"))]
        }
        for file in files.sorted(by: { $0.name < $1.name }) {
            let target = folder.appendingPathComponent(file.name)
            let data = Data(file.contents.utf8)
            if (try? Data(contentsOf: target)) == data { continue }
            try data.write(to: target, options: .atomic)
        }
    }

    /// Xcode's pair of files for every entity with a class of its own (with `--follow-codegen`, for Class
    /// Definition entities; Category/Extension ones are added by the caller).
    private static func xcodeFiles(_ xcode: XcodeClassGenerator, _ generator: EntityClassGenerator) -> [EntityClassGenerator.File] {
        generator.model.entities.filter { generator.isGenerated($0) }.flatMap { xcode.files(for: $0, propertiesOnly: false) }
    }
}

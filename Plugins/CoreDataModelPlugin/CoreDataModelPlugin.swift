import Foundation
import PackagePlugin

/// Build-tool plugin: for every `.xcdatamodeld` (or loose `.xcdatamodel`) in a target, runs
/// `coredata generate --follow-codegen` (one Swift file compiled into the target with what Xcode's build
/// generates: for each entity whose Codegen setting is Class Definition, the class and its `@NSManaged`
/// properties extension, as Xcode's `Entity+CoreDataClass.swift` and `Entity+CoreDataProperties.swift`; for
/// Category/Extension, the extension alone; for Manual/None, nothing) and
/// `coredata compile` (a `<Model>.momd` in Apple's compiled form, as Xcode's momc writes it, that SwiftPM copies
/// into the target's resource bundle, so `Bundle.module` and `NSPersistentContainer(name:)` find it).
///
/// A target may ask for the package's own class style instead, `@Managed` properties with `Set`/`NSOrderedSet`
/// relationships, with a `coredata.json` file in its folder holding `{"classStyle": "managed"}` (`"xcode"` is
/// the default); exclude the file from the target as the model is excluded.
///
/// Every `.xcmappingmodel` in the target is compiled likewise (`coredata compile`) into `<Name>.cdm`, named after
/// the mapping model as Xcode names it, at the top of the resource bundle, where
/// `NSMappingModel(from: [Bundle.module], forSourceModel:destinationModel:)` finds it.
///
/// The model may be excluded from the target (`exclude: ["Model.xcdatamodeld"]`, the quiet choice), listed as
/// a resource (`.copy`, which also ships the source), or left unlisted (SwiftPM then warns it is unhandled).
///
/// When the target's Swift files declare `@NSManaged` members, it also runs `coredata accessors`, which writes
/// the accessors Swift on Linux declares for them and never defines (Docs/Decisions.md, "@NSManaged on Linux").
/// Members may use types of the target's dependencies: the command is given the build's compiled modules and
/// runs after the dependencies are built.
///
/// The commands run in `coredata-modelc`, a tool with only these three of the `coredata` tool's commands (the same
/// code, `CoreDataModelCommands`): SwiftPM builds a plugin's tool and everything it links apart from the targets,
/// and this one needs neither the `CoreData` module nor the stores, so a build compiles the library once.
@main
struct CoreDataModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "coredata-modelc")
        var commands: [Command] = []
        var generatedSources: [URL] = []
        let settings = try PluginSettings(target: target)
        for model in Self.models(of: target) {
            let name = model.deletingPathExtension().lastPathComponent
            let work = context.pluginWorkDirectoryURL.appendingPathComponent(name)
            let inputs = Self.files(in: model)
            let generated = work.appendingPathComponent("Generated")
            let swiftFile = generated.appendingPathComponent("\(name)+Entities.swift")
            commands.append(.buildCommand(
                displayName: "Generating entity classes for \(model.lastPathComponent)",
                executable: tool.url,
                arguments: ["generate", model.path, "--output", generated.path, "--single-file", swiftFile.lastPathComponent,
                            "--follow-codegen", "--style", settings.classStyle.rawValue],
                inputFiles: inputs + settings.files,
                outputFiles: [swiftFile]))
            generatedSources.append(swiftFile)
            // An output that is not source is a resource of the target: SwiftPM copies it to the top of the bundle.
            let compiled = work.appendingPathComponent("Resources").appendingPathComponent("\(name).momd")
            commands.append(.buildCommand(
                displayName: "Compiling \(model.lastPathComponent)",
                executable: tool.url,
                arguments: ["compile", model.path, "--output", compiled.path, "--module", target.moduleName],
                inputFiles: inputs,
                outputFiles: [compiled]))
        }
        for mapping in Self.mappingModels(of: target) {
            let name = mapping.deletingPathExtension().lastPathComponent
            let compiled = context.pluginWorkDirectoryURL.appendingPathComponent("MappingModels").appendingPathComponent("\(name).cdm")
            commands.append(.buildCommand(
                displayName: "Compiling \(mapping.lastPathComponent)",
                executable: tool.url,
                arguments: ["compile", mapping.path, "--output", compiled.path],
                inputFiles: Self.files(in: mapping),
                outputFiles: [compiled]))
        }
        if let accessors = accessorCommand(context: context, target: target, tool: tool.url, generatedSources: generatedSources) {
            commands.append(accessors)
        }
        return commands
    }

    /// `coredata accessors` over the target's Swift files and those generated from its models (Class Definition
    /// and Category/Extension entities get `@NSManaged` properties), when a model or a file may declare an
    /// `@NSManaged` member. The compiler it asks for symbol names is the toolchain's `swiftc` (found by SwiftPM;
    /// else the tool looks on `PATH`); it finds the target's dependencies where SwiftPM builds them (see
    /// `DependencyModules`).
    func accessorCommand(context: PluginContext, target: SourceModuleTarget, tool: URL, generatedSources: [URL]) -> Command? {
        let written = target.sourceFiles.map(\.url).filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
        let declaresManaged = written.contains { url in
            (try? String(contentsOf: url, encoding: .utf8))?.contains("@NSManaged") == true
        }
        guard declaresManaged || !generatedSources.isEmpty else { return nil }
        let sources = written + generatedSources
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("Accessors")
            .appendingPathComponent("\(target.moduleName)+NSManagedAccessors.swift")
        var arguments = ["accessors"] + sources.map(\.path) + ["--module", target.moduleName, "--output", output.path,
                                               "--work", context.pluginWorkDirectoryURL.appendingPathComponent("AccessorProbe").path]
        if let swiftc = try? context.tool(named: "swiftc") { arguments += ["--swiftc", swiftc.url.path] }
        let dependencies = DependencyModules(of: target, tool: tool)
        arguments += dependencies.arguments
        return .buildCommand(displayName: "Generating @NSManaged accessors for \(target.name)", executable: tool,
                             arguments: arguments, inputFiles: sources + dependencies.compiledModules, outputFiles: [output])
    }

    /// The target's model packages, sorted: those SwiftPM lists (resources, unhandled files) and those in its
    /// folder that it does not (excluded ones). Two models with the same name would share outputs: the first wins.
    static func models(of target: SourceModuleTarget) -> [URL] {
        var found = target.sourceFiles.map(\.url).filter(isModel)
        found += models(in: directory(of: target))
        var names = Set<String>()
        return found.map(\.standardizedFileURL).sorted { $0.path < $1.path }.filter { model in
            names.insert(model.deletingPathExtension().lastPathComponent).inserted
        }
    }

    /// The target's mapping model packages (`.xcmappingmodel`), sorted, found as `models(of:)` finds models; of
    /// two with the same name (which would compile to the same `.cdm`), the first.
    static func mappingModels(of target: SourceModuleTarget) -> [URL] {
        let isMapping = { (url: URL) in url.pathExtension == "xcmappingmodel" }
        var found = target.sourceFiles.map(\.url).filter(isMapping)
        if let walker = FileManager.default.enumerator(at: directory(of: target), includingPropertiesForKeys: nil) {
            for case let url as URL in walker where isMapping(url) {
                found.append(url)
                walker.skipDescendants()
            }
        }
        var names = Set<String>()
        return found.map(\.standardizedFileURL).sorted { $0.path < $1.path }.filter { mapping in
            names.insert(mapping.deletingPathExtension().lastPathComponent).inserted
        }
    }

    /// A `.xcdatamodeld` package or a `.xcdatamodel` outside one.
    static func isModel(_ url: URL) -> Bool {
        let ext = url.pathExtension
        return ext == "xcdatamodeld" || (ext == "xcdatamodel" && url.deletingLastPathComponent().pathExtension != "xcdatamodeld")
    }

    /// The target's folder. `Target.directoryURL` needs tools version 6.1 and this package declares 6.0, and
    /// `Path`'s accessors are deprecated, so the path is read through its `CustomStringConvertible` conformance
    /// (its description is the path), which builds without a warning.
    static func directory(of target: SourceModuleTarget) -> URL {
        URL(fileURLWithPath: String(describing: target.directory), isDirectory: true)
    }

    /// The model packages under `folder`; a `.xcdatamodel` inside a `.xcdatamodeld` is not listed apart.
    static func models(in folder: URL) -> [URL] {
        var found: [URL] = []
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in walker where isModel(url) {
            found.append(url)
            walker.skipDescendants()
        }
        return found
    }

    /// Every file inside a model package (the commands rerun when one changes).
    static func files(in package: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: package, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}

import Foundation
import PackagePlugin

/// Build-tool plugin: for every `.xcdatamodeld` (or loose `.xcdatamodel`) in a target, runs
/// `coredata generate` (one Swift file of entity classes, compiled into the target) and `coredata compile`
/// (a `.momd` bundled as a resource). Adding the model to the target and this plugin to its `plugins:` is
/// all a user does.
@main
struct CoreDataModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "coredata")
        var commands: [Command] = []
        // `directoryURL` needs tools version 6.1; this package declares 6.0.
        for model in Self.models(in: URL(fileURLWithPath: target.directory.string)) {
            let name = model.deletingPathExtension().lastPathComponent
            let work = context.pluginWorkDirectoryURL.appendingPathComponent(name)
            let inputs = Self.files(in: model)
            let generated = work.appendingPathComponent("Generated")
            let swiftFile = generated.appendingPathComponent("\(name)+Entities.swift")
            commands.append(.buildCommand(
                displayName: "Generating entity classes for \(model.lastPathComponent)",
                executable: tool.url,
                arguments: ["generate", model.path, "--output", generated.path, "--single-file", swiftFile.lastPathComponent],
                inputFiles: inputs,
                outputFiles: [swiftFile]))
            let compiled = work.appendingPathComponent("Resources").appendingPathComponent("\(name).momd")
            commands.append(.buildCommand(
                displayName: "Compiling \(model.lastPathComponent)",
                executable: tool.url,
                arguments: ["compile", model.path, "--output", compiled.path],
                inputFiles: inputs,
                outputFiles: [compiled]))
        }
        return commands
    }

    /// The model packages under `folder`, sorted; a `.xcdatamodel` inside a `.xcdatamodeld` is not listed apart.
    static func models(in folder: URL) -> [URL] {
        var found: [URL] = []
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in walker {
            let ext = url.pathExtension
            if ext == "xcdatamodeld" || ext == "xcdatamodel" {
                found.append(url)
                walker.skipDescendants()
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// Every file inside a model package (the command reruns when one changes).
    static func files(in package: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: package, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}

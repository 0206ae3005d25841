import Foundation
import PackagePlugin

/// Where the compiled modules of a target's dependencies are, for `coredata accessors`, whose probe compile
/// imports the ones the target imports so `@NSManaged` members may use their types.
///
/// SwiftPM writes every Swift module of a build into `Modules/` beside the products, where the plugin's own tool
/// (`coredata-modelc`, built in the same folder) is: `<build>/<triple>/<configuration>/Modules/<Module>.swiftmodule`. Those
/// files are the accessors command's inputs, so it runs after the dependencies are built and again when one of
/// them changes. C modules the dependencies import are passed on as system library targets declare them (their
/// `module.modulemap` and `pkg-config` flags). Binary targets have no module there; a member using their types
/// stops the build with the compiler's message.
struct DependencyModules {
    /// The `.swiftmodule` of every Swift target the target depends on, directly or not.
    private(set) var compiledModules: [URL] = []
    /// The arguments for `coredata accessors`: `--import-path`, `--module-map`, `--Xcc`.
    private(set) var arguments: [String] = []

    init(of target: SourceModuleTarget, tool: URL) {
        let modules = tool.deletingLastPathComponent().appendingPathComponent("Modules", isDirectory: true)
        var mapsAndFlags: [String] = []
        for dependency in target.recursiveTargetDependencies {
            switch dependency {
            case let swift as SwiftSourceModuleTarget where swift.kind != .macro:
                // A macro is built for the host, elsewhere, and its module is not imported by source.
                compiledModules.append(modules.appendingPathComponent("\(swift.moduleName).swiftmodule"))
            case let system as SystemLibraryTarget:
                let folder = URL(fileURLWithPath: String(describing: system.directory), isDirectory: true)
                mapsAndFlags += ["--module-map", folder.appendingPathComponent("module.modulemap").path]
                mapsAndFlags += system.compilerFlags.flatMap { ["--Xcc", $0] }
            default:
                continue
            }
        }
        guard !compiledModules.isEmpty else { return }
        arguments = ["--import-path", modules.path] + mapsAndFlags
    }
}

import Foundation
import PackagePlugin

/// A target's choices for the plugin, read from `coredata.json` in the target's folder when there is one:
///
/// ```json
/// {"classStyle": "managed"}
/// ```
///
/// `classStyle` is `"xcode"` (the default: what Xcode's build generates, `@NSManaged` properties with Xcode's
/// types) or `"managed"` (the package's `@Managed` classes, `coredata generate --style managed`). A file that is
/// not such an object, or names another key or style, stops the build with a message naming the file.
struct PluginSettings {
    /// The form of the entity classes `coredata generate` writes.
    enum ClassStyle: String, CaseIterable {
        case xcode
        case managed
    }

    private(set) var classStyle = ClassStyle.xcode
    /// The settings file, when the target has one (an input of the commands it changes).
    private(set) var files: [URL] = []

    /// The file's name in a target's folder.
    static let fileName = "coredata.json"

    /// The target's settings; the defaults when its folder has no `coredata.json`.
    init(target: SourceModuleTarget) throws {
        let file = CoreDataModelPlugin.directory(of: target).appendingPathComponent(Self.fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        files = [file]
        func failure(_ problem: String) -> PluginSettingsError { PluginSettingsError(file: file, problem: problem) }
        let data = try Data(contentsOf: file)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw failure("it is not a JSON object")
        }
        for key in object.keys where key != "classStyle" { throw failure("unknown key \"\(key)\" (known: classStyle)") }
        if let value = object["classStyle"] {
            guard let name = value as? String, let style = ClassStyle(rawValue: name) else {
                let known = ClassStyle.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
                throw failure("classStyle must be \(known)")
            }
            classStyle = style
        }
    }
}

/// A `coredata.json` the plugin cannot use.
struct PluginSettingsError: Error, CustomStringConvertible {
    let file: URL
    let problem: String

    var description: String { "\(file.path): error: \(problem)" }
}

import Foundation

/// Where the shared fixtures are: `$COREDATA_FIXTURES`, or `../shared/fixtures` beside the package root.
enum Fixtures {
    static let root: URL? = {
        if let path = ProcessInfo.processInfo.environment["COREDATA_FIXTURES"] {
            return URL(fileURLWithPath: path)
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    /// The Apple XML store fixtures directory, when present.
    static var xmlDirectory: URL? {
        guard let root else { return nil }
        let directory = root.appendingPathComponent("apple/xml")
        return FileManager.default.fileExists(atPath: directory.path) ? directory : nil
    }

    static var available: Bool { xmlDirectory != nil }

    /// The fixture file whose name starts with `prefix` and contains `fragment`.
    static func file(_ fragment: String) -> URL? {
        guard let directory = xmlDirectory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        return names.sorted().first { $0.contains(fragment) }.map { directory.appendingPathComponent($0) }
    }
}

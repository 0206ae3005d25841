import Foundation
import Testing

/// Locates the shared Apple-written fixtures: `$COREDATA_FIXTURES`, else `../shared/fixtures` beside the
/// package root. Tests that need them use `.enabled(if: Fixtures.available)` and are reported as skipped
/// when they are absent.
enum Fixtures {
    /// The fixtures folder, when it exists.
    static let root: URL? = {
        let fm = FileManager.default
        if let path = ProcessInfo.processInfo.environment["COREDATA_FIXTURES"], !path.isEmpty {
            return fm.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
        }
        // This file is <package>/Tests/ModelFileTests/Fixtures.swift.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidate = package.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return fm.fileExists(atPath: candidate.path) ? candidate.standardizedFileURL : nil
    }()

    static var available: Bool { root != nil }

    /// `apple/<relative>` inside the fixtures folder. A test whose fixture is not in this fixture set is
    /// reported as cancelled (skipped), not failed.
    static func apple(_ relative: String) throws -> URL {
        let url = (root ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("apple").appendingPathComponent(relative)
        if !FileManager.default.fileExists(atPath: url.path) { try Test.cancel("fixture \(relative) is not in this fixture set") }
        return url
    }

    /// A model package in `apple/models`.
    static func model(_ name: String) throws -> URL { try apple("models/" + name) }
}

/// A fresh temporary folder, removed by the caller with `try? FileManager.default.removeItem(at:)`.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ModelFileTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

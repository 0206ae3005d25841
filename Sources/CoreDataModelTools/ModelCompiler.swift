import CoreDataStoreKit
import Foundation

/// An addition to Apple's API: compiles a source model (`.xcdatamodeld` or `.xcdatamodel`) into a `.momd`
/// folder as Apple's `momc` does, so that `NSManagedObjectModel(contentsOf:)` loads it here and on iOS and macOS.
///
/// The `.momd` holds `VersionInfo.plist` as Xcode writes it (binary; `NSManagedObjectModel_CurrentVersionName`,
/// `NSManagedObjectModel_VersionHashes`, `NSManagedObjectModel_VersionChecksums`, with Apple's values) and one
/// `<version>.mom` per version in Apple's compiled form (`MOMArchiveWriter`). Every version is loaded and
/// written before anything reaches the disk; the output replaces any previous one only once it is complete.
/// Xcode's optional `.omo` companion is not written (Apple's Core Data reads the `.mom` without it).
/// This package's former compiled format (`CompiledModelFormat`) is still read, no longer written.
public enum ModelCompiler {
    /// Compiles `source` into the `.momd` folder `output`.
    /// - Throws: any error loading a version (naming its file, entity and property); `unsupportedModelFormat`
    ///   (3328, naming the version's file, entity and property) for a model the `.mom` writer does not write
    ///   (see `MOMArchiveWriter`); `modelWriteFailed` (512) when the output cannot be written.
    public static func compile(_ source: URL, to output: URL) throws {
        let versions: [URL]
        let current: URL
        switch try ModelFileLoader.kind(of: source) {
        case .sourcePackage:
            versions = ModelPackageVersions.sourceVersions(in: source)
            current = try ModelPackageVersions.currentSourceVersion(of: source)
        case .sourceVersion:
            versions = [source]
            current = source
        case .compiledPackage, .compiledFile:
            throw CoreDataError.unsupportedModelFormat(.init(file: source), reason: "already compiled; compile a .xcdatamodeld or .xcdatamodel")
        }
        var encoded: [(name: String, data: Data, hashes: [String: Data])] = []
        for version in versions {
            let model = NSManagedObjectModel()
            try ModelFileLoader.load(version, into: model)
            let name = version.deletingPathExtension().lastPathComponent
            encoded.append((name, try MOMArchiveWriter.archive(model, file: version), model.entityVersionHashesByName))
        }
        let info: [String: Any] = [
            "NSManagedObjectModel_CurrentVersionName": current.deletingPathExtension().lastPathComponent,
            "NSManagedObjectModel_VersionHashes": Dictionary(uniqueKeysWithValues: encoded.map { ($0.name, $0.hashes) }),
            // Apple's hashes and checksums, so the VersionInfo.plist equals what Xcode writes for the same model.
            "NSManagedObjectModel_VersionChecksums": Dictionary(uniqueKeysWithValues: encoded.map { ($0.name, VersionHashing.checksum(of: $0.hashes)) }),
        ]
        let fm = FileManager.default
        let staging = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).\(UUID().uuidString)")
        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: true)
            for version in encoded { try version.data.write(to: staging.appendingPathComponent(version.name + ".mom")) }
            let plist = try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
            try plist.write(to: staging.appendingPathComponent("VersionInfo.plist"))
            if fm.fileExists(atPath: output.path) { try fm.removeItem(at: output) }
            try fm.moveItem(at: staging, to: output)
        } catch {
            try? fm.removeItem(at: staging)
            throw CoreDataError.modelWriteFailed(output, reason: error.localizedDescription)
        }
    }
}

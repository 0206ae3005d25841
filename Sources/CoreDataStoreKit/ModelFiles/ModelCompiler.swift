/// An addition to Apple's API: compiles a source model (`.xcdatamodeld` or `.xcdatamodel`) into a `.momd`
/// folder that loads without XML parsing, as Apple's `momc` does.
///
/// The `.momd` holds `VersionInfo.plist` (Apple's keys: `NSManagedObjectModel_CurrentVersionName`,
/// `NSManagedObjectModel_VersionHashes`) and one `<version>.mom` per version in this package's compiled
/// format (`CompiledModelFormat`, see `Docs/ModelFiles.md`). Every version is checked before anything is
/// written; the output replaces any previous one only once it is complete.
public enum ModelCompiler {
    /// Compiles `source` into the `.momd` folder `output`.
    /// - Throws: any error loading a version (naming its file, entity and property), or
    ///   `modelWriteFailed` (512) when the output cannot be written.
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
            do {
                encoded.append((name, try CompiledModelFormat.encode(model), model.entityVersionHashesByName))
            } catch {
                throw CoreDataError.modelWriteFailed(output, reason: "cannot encode version \(name): \(error.localizedDescription)")
            }
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

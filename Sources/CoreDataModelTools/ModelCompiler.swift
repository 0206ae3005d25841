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
    ///
    /// `productModule` is the module the compiled model's classes are built into (momc's `--module`, which Xcode
    /// passes as the product module): the class of each entity whose Codegen is Class Definition, named without
    /// a module, is written as `<productModule>.<Class>`, and so is every class the file names with a leading dot
    /// (`representedClassName=".Person"`, Xcode's "Current Product Module", whatever the Codegen), as momc does.
    /// Xcode's generated classes carry `@objc(<Class>)`, which lets Apple's runtime find them by the plain name;
    /// Swift on Linux has no `@objc`, so the compiled model names the module the class lives in, and the first
    /// object made from the model (an untyped `insertNewObject(forEntityName:into:)` included) is of that class.
    /// Version hashes do not include class names, so the model's hashes are unchanged. Other entities' class
    /// names are kept as the file writes them.
    /// - Throws: any error loading a version (naming its file, entity and property); `unsupportedModelFormat`
    ///   (3328, naming the version's file, entity and property) for a model the `.mom` writer does not write
    ///   (see `MOMArchiveWriter`); `modelWriteFailed` (512) when the output cannot be written.
    public static func compile(_ source: URL, to output: URL, productModule: String? = nil) throws {
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
            if let productModule { try qualifyGeneratedClasses(of: model, from: version, in: productModule) }
            let name = version.deletingPathExtension().lastPathComponent
            encoded.append((name, try MOMArchiveWriter.archive(model, file: version), model.entityVersionHashesByName))
        }
        let info: [String: Any] = [
            "NSManagedObjectModel_CurrentVersionName": current.deletingPathExtension().lastPathComponent,
            "NSManagedObjectModel_VersionHashes": Dictionary(uniqueKeysWithValues: encoded.map { ($0.name, $0.hashes) }),
            // Apple's hashes and checksums, so the VersionInfo.plist equals what Xcode writes for the same model.
            "NSManagedObjectModel_VersionChecksums": Dictionary(uniqueKeysWithValues: encoded.map { ($0.name, VersionHashing.checksum(of: $0.hashes)) }),
        ]
        try write(encoded, info: info, to: output)
    }

    /// Names with `module` the classes of `model`'s entities (read from `version`) that live in the product
    /// module: those of Class Definition entities named without a module, and those the file names with a
    /// leading dot (the loader drops the dot, leaving the class unqualified).
    private static func qualifyGeneratedClasses(of model: NSManagedObjectModel, from version: URL, in module: String) throws {
        let hints = try ModelFileLoader.codegenHints(contentsOf: version)
        for entity in model.entities {
            guard let hint = hints.entities[entity.name ?? ""],
                  hint.codeGenerationType == "class" || hint.representedClassName?.hasPrefix(".") == true,
                  let className = entity.managedObjectClassName, !className.contains("."),
                  className != "NSManagedObject" else { continue }
            entity.managedObjectClassName = "\(module).\(className)"
        }
    }

    /// Writes the versions and `VersionInfo.plist` into a staging folder beside `output`, then moves it over
    /// `output` (which is replaced only once the new folder is complete).
    private static func write(_ encoded: [(name: String, data: Data, hashes: [String: Data])], info: [String: Any], to output: URL) throws {
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

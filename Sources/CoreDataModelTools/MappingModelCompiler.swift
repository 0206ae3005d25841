import CoreDataStoreKit
import Foundation

/// An addition to Apple's API: compiles Xcode's `.xcmappingmodel` package into Apple's compiled `.cdm`, as Xcode
/// does (what `NSMappingModel.compile(_:to:)`, `coredata compile` and the build plugin's tool run). It lives
/// beside `ModelCompiler`, below the `CoreData` module, so the build plugin's tool compiles mapping models without
/// building the stores.
public enum MappingModelCompiler {
    /// Compiles the `.xcmappingmodel` package at `source` into the `.cdm` file `output`: the mapping names, types,
    /// source expressions and generated value expressions Xcode's compiler makes (see `XCMappingModelReader`),
    /// and the version hashes of the package's embedded models. `output` is replaced whole (written beside it,
    /// then moved), so a failure leaves any previous file as it was.
    /// - Throws: `modelFileMissing` (260) when `source` does not exist or has no `xcmapping.xml`; 259 or 134000
    ///   for a package it cannot read; `unsupportedModelFormat` (3328) for a source that is not an
    ///   `.xcmappingmodel` package (a compiled `.cdm`) or holds an expression the archive cannot hold;
    ///   `modelWriteFailed` (512) when `output` cannot be written.
    public static func compile(_ source: URL, to output: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory) else {
            throw CoreDataError.modelFileMissing(.init(file: source))
        }
        guard isDirectory.boolValue else {
            throw CoreDataError.unsupportedModelFormat(.init(file: source), reason: "already compiled; compile an .xcmappingmodel package")
        }
        let data = try MappingModelArchiveWriter.archive(try XCMappingModelReader(package: source).read(), file: source)
        try writeWhole(data, to: output)
    }

    /// Writes `data` to a temporary file beside `url` and moves it over `url` (also `NSMappingModel.write(to:)`'s
    /// last step; `package` access: shared with the `CoreData` module, not API).
    /// - Throws: `modelWriteFailed` (512) naming `url`.
    package static func writeWhole(_ data: Data, to url: URL) throws {
        do { try data.write(to: url, options: .atomic) } catch {
            throw CoreDataError.modelWriteFailed(url, reason: error.localizedDescription)
        }
    }
}

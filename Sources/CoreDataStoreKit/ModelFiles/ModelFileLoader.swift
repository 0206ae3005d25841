/// Loads a model from any of the files Xcode and Apple's tools write: `.xcdatamodeld`, `.xcdatamodel`,
/// `.momd`, `.mom` (Apple's keyed archive or this package's former compiled format), or a bare `contents` file.
///
/// The kind is chosen from the path extension, then from what the folder or file holds.
public enum ModelFileLoader {
    /// Fills `model` with the model stored at `url`.
    /// - Throws: errors from `CoreDataError` naming the file, entity and property: 260 missing file,
    ///   259 invalid contents, 3328 unsupported format (`.omo`).
    public static func load(_ url: URL, into model: NSManagedObjectModel) throws {
        let (draft, _) = try read(url)
        try draft.link(into: model)
        switch try kind(of: url) {
        case .sourcePackage, .compiledPackage: model.versionedPackageURL = url
        case .sourceVersion, .compiledFile: model.versionedPackageURL = nil
        }
    }

    /// The model in compiled-model bytes: an Apple `.mom` keyed archive (also a store's inflated
    /// `Z_MODELCACHE`) or this package's former format. `source` names where the bytes came from in errors.
    /// - Throws: 259 for damaged or invalid data, 3328 for unsupported predicate classes or newer formats.
    public static func model(fromCompiledData data: Data, source: URL) throws -> NSManagedObjectModel {
        let draft = CompiledModelFormat.isCompiledModel(data)
            ? try CompiledModelFormat.decode(data, file: source) : try MOMArchiveReader.read(data, file: source)
        let model = NSManagedObjectModel()
        try draft.link(into: model)
        return model
    }

    /// What the source model at `url` says about code generation (empty for compiled models).
    /// - Throws: as `load(_:into:)`.
    public static func codegenHints(contentsOf url: URL) throws -> ModelCodegenHints {
        try read(url).1
    }

    /// The model file that would be read for `url`: the current version's `.xcdatamodel` or `.mom`, or
    /// `url` itself.
    /// - Throws: as `load(_:into:)`.
    public static func currentVersionFile(of url: URL) throws -> URL {
        switch try kind(of: url) {
        case .sourcePackage: return try ModelPackageVersions.currentSourceVersion(of: url)
        case .compiledPackage: return try ModelPackageVersions.currentCompiledVersion(of: url)
        case .sourceVersion, .compiledFile: return url
        }
    }

    package enum Kind { case sourcePackage, sourceVersion, compiledPackage, compiledFile }

    package static func kind(of url: URL) throws -> Kind {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CoreDataError.modelFileMissing(.init(file: url))
        }
        guard isDirectory.boolValue else { return .compiledFile }
        switch url.pathExtension {
        case "xcdatamodeld": return .sourcePackage
        case "xcdatamodel": return .sourceVersion
        case "momd": return .compiledPackage
        default:
            let fm = FileManager.default
            if fm.fileExists(atPath: url.appendingPathComponent("contents").path)
                || fm.fileExists(atPath: url.appendingPathComponent("elements").path) { return .sourceVersion }
            if fm.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path) { return .compiledPackage }
            if !ModelPackageVersions.sourceVersions(in: url).isEmpty { return .sourcePackage }
            throw CoreDataError.unsupportedModelFormat(.init(file: url), reason: "the folder is not a model (.xcdatamodeld, .xcdatamodel or .momd)")
        }
    }

    static func read(_ url: URL) throws -> (ModelDraft, ModelCodegenHints) {
        switch try kind(of: url) {
        case .sourcePackage:
            return try XCDataModelReader.read(try ModelPackageVersions.currentSourceVersion(of: url))
        case .sourceVersion:
            return try XCDataModelReader.read(url)
        case .compiledPackage:
            return (try readFile(try ModelPackageVersions.currentCompiledVersion(of: url)), ModelCodegenHints())
        case .compiledFile:
            if url.lastPathComponent == "contents" {
                return try XCDataModelReader.read(url.deletingLastPathComponent())
            }
            return (try readFile(url), ModelCodegenHints())
        }
    }

    /// Reads one compiled model file, choosing the reader from its first bytes.
    static func readFile(_ url: URL) throws -> ModelDraft {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw CoreDataError.modelFileMissing(.init(file: url), reason: error.localizedDescription)
        }
        if CompiledModelFormat.isCompiledModel(data) { return try CompiledModelFormat.decode(data, file: url) }
        if data.starts(with: Array("bplist".utf8)) { return try MOMArchiveReader.read(data, file: url) }
        if data.starts(with: Array("momv2$".utf8)) {
            throw CoreDataError.unsupportedModelFormat(.init(file: url), reason: "Apple's optimized .omo format is not read; use the .mom beside it")
        }
        if data.starts(with: Array("<?xml".utf8)) {
            return try XCDataModelReader.parse(data, file: url).0
        }
        throw CoreDataError.invalidModelFile(.init(file: url), reason: "not a compiled model (neither a keyed archive nor this package's format)")
    }
}

extension NSManagedObjectModel {
    /// The model stored at `url` (Apple's initializer): a `.momd`, `.mom`, `.xcdatamodeld` or `.xcdatamodel`;
    /// nil when it cannot be read. `load(contentsOf:)` says why.
    public convenience init?(contentsOf url: URL) {
        self.init()
        do { try ModelFileLoader.load(url, into: self) } catch { return nil }
    }

    /// An addition to Apple's API: the model stored at `url`, or an error that says what is wrong and where.
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) for a missing file; 259 (`NSFileReadCorruptFileError`) for
    ///   malformed XML, an unknown attribute type, a missing destination, inverse, parent or current version;
    ///   3328 (`NSFeatureUnsupportedError`) for Xcode 3 models and other unsupported formats. userInfo carries
    ///   `NSFilePathErrorKey`, `ModelFileEntityErrorKey` and `ModelFilePropertyErrorKey`.
    public static func load(contentsOf url: URL) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(url, into: model)
        return model
    }
}

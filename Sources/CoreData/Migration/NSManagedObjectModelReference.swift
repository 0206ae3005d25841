/// One version of a model, named by its version checksum, for staged migration (Apple's
/// `NSManagedObjectModelReference`).
///
/// The model is given, or found when a migration first needs it: at a file URL (a model file, or a package
/// whose version with the checksum is taken), by name in a bundle (as `NSPersistentContainer(name:)` finds
/// models), or by entity version hashes in a bundle. The checksum is Apple's `versionChecksum`.
open class NSManagedObjectModelReference: NSObject {
    /// The checksum the referenced model has.
    public let versionChecksum: String

    private enum Source {
        case model(NSManagedObjectModel)
        case file(URL)
        case named(String, Bundle?)
        case hashes([String: Data], Bundle?)
    }

    private let source: Source
    private var resolved: NSManagedObjectModel?

    /// A reference to `model`.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        source = .model(model)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model at `fileURL` (in a package, its version with the checksum).
    public init(fileURL: URL, versionChecksum: String) {
        source = .file(fileURL)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model named `modelName` in `bundle` (nil: the main bundle and SwiftPM resource bundles).
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        source = .named(modelName, bundle)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model version, among the models of `bundle`, whose entities have `versionHash`
    /// (entity name to 32-byte hash).
    public init(entityVersionHashes versionHash: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        var hashes: [String: Data] = [:]
        for (key, value) in versionHash { if let name = key as? String, let hash = value as? Data { hashes[name] = hash } }
        source = .hashes(hashes, bundle)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// The referenced model; an empty model when it cannot be found (`resolve()` says why).
    open var resolvedModel: NSManagedObjectModel {
        (try? resolve()) ?? NSManagedObjectModel()
    }

    /// The referenced model, found once.
    /// - Throws: 134130 (`NSMigrationMissingSourceModelError`) naming the checksum when no model with it is
    ///   found where the reference says; the model files' errors (259, 260) when one cannot be read.
    func resolve() throws -> NSManagedObjectModel {
        if let resolved { return resolved }
        let model: NSManagedObjectModel?
        switch source {
        case .model(let given):
            model = given.versionChecksum == versionChecksum ? given : nil
        case .file(let url):
            model = try NSManagedObjectModel.versions(ofModelAt: url).first { $0.model.versionChecksum == versionChecksum }?.model
        case .named(let name, let bundle):
            let url = try ModelLocator.url(forModelNamed: name, bundles: bundle.map { [$0] })
            model = try NSManagedObjectModel.versions(ofModelAt: url).first { $0.model.versionChecksum == versionChecksum }?.model
        case .hashes(let hashes, let bundle):
            model = Self.models(in: bundle).first { $0.entityVersionHashesByName == hashes && $0.versionChecksum == versionChecksum }
        }
        guard let model else {
            throw CoreDataError.make(NSMigrationMissingSourceModelError,
                                     "No model with the version checksum \(versionChecksum) was found for a staged migration (\(self)).")
        }
        resolved = model
        return model
    }

    /// Every version of every model package in the bundle's resource folder.
    private static func models(in bundle: Bundle?) -> [NSManagedObjectModel] {
        let folder = (bundle ?? Bundle.main).resourceURL ?? (bundle ?? Bundle.main).bundleURL
        let items = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return items.filter { ["momd", "mom", "xcdatamodeld"].contains($0.pathExtension) }
            .flatMap { (try? NSManagedObjectModel.versions(ofModelAt: $0)) ?? [] }.map(\.model)
    }

    open override var description: String {
        switch source {
        case .model: return "NSManagedObjectModelReference(model, \(versionChecksum))"
        case .file(let url): return "NSManagedObjectModelReference(\(url.path), \(versionChecksum))"
        case .named(let name, _): return "NSManagedObjectModelReference(\(name), \(versionChecksum))"
        case .hashes: return "NSManagedObjectModelReference(entity hashes, \(versionChecksum))"
        }
    }
}

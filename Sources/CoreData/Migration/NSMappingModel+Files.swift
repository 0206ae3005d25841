/// Mapping models read from files: Xcode's `.xcmappingmodel` packages and Apple's compiled `.cdm` archives.
extension NSMappingModel {
    /// The mapping model in the `.cdm` file or `.xcmappingmodel` package at `url`; nil when there is none or
    /// it cannot be read (``mappingModel(contentsOf:)`` says why).
    public convenience init?(contentsOf url: URL?) {
        guard let url, let file = try? Self.readFile(at: url), let model = try? NSMappingModel(file, url: url) else { return nil }
        self.init()
        entityMappings = model.entityMappings
    }

    /// The mapping model at `url`, or the reason there is none (an addition to Apple's API, whose
    /// `init(contentsOf:)` only gives nil).
    /// - Throws: 260 for a missing file; 259 naming the file and mapping for contents that are not a mapping
    ///   model (or an expression that does not parse); 134000 for an `xcmapping.xml` that is not an XML store.
    public static func mappingModel(contentsOf url: URL) throws -> NSMappingModel {
        try NSMappingModel(readFile(at: url), url: url)
    }

    /// Finds, among the `.cdm` files and `.xcmappingmodel` packages of `bundles` (default: the main bundle),
    /// the mapping model whose entity mappings name source and destination entity version hashes equal to
    /// those of the two models' entities of those names; nil when none does. SwiftPM ships resources as they
    /// are, so uncompiled `.xcmappingmodel` packages are found as well as compiled `.cdm` files; files that
    /// cannot be read are skipped.
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
                             destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel,
              let found = Self.firstMatching(among: Self.candidateFiles(in: bundles ?? [Bundle.main]),
                                             sourceModel: sourceModel, destinationModel: destinationModel) else { return nil }
        self.init()
        entityMappings = found.entityMappings
    }

    /// The mapping model of the first of `files` that reads and goes from `sourceModel` to `destinationModel`
    /// (`matches(sourceModel:destinationModel:)`); nil when none does.
    static func firstMatching(among files: [URL], sourceModel: NSManagedObjectModel,
                              destinationModel: NSManagedObjectModel) -> NSMappingModel? {
        for url in files {
            if let model = try? mappingModel(contentsOf: url), model.matches(sourceModel: sourceModel, destinationModel: destinationModel) {
                return model
            }
        }
        return nil
    }

    /// Whether every entity mapping's source and destination entity exist in the models with the hashes it
    /// records (a mapping that records no hash for a side is checked by name only), and there is at least one.
    func matches(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) -> Bool {
        let mappings = entityMappings ?? []
        guard !mappings.isEmpty else { return false }
        func side(_ name: String?, _ hash: Data?, _ model: NSManagedObjectModel) -> Bool {
            guard let name else { return true }
            guard let entity = model.entitiesByName[name] else { return false }
            return hash.map { $0 == entity.versionHash } ?? true
        }
        return mappings.allSatisfy {
            side($0.sourceEntityName, $0.sourceEntityVersionHash, sourceModel)
                && side($0.destinationEntityName, $0.destinationEntityVersionHash, destinationModel)
        }
    }

    /// The description in the file at `url`, by its kind: a folder is an `.xcmappingmodel` package, a file a
    /// `.cdm` archive.
    static func readFile(at url: URL) throws -> MappingModelFile {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CoreDataError.modelFileMissing(.init(file: url))
        }
        if isDirectory.boolValue { return try XCMappingModelReader(package: url).read() }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw CoreDataError.modelFileMissing(.init(file: url), reason: error.localizedDescription)
        }
        return try MappingModelArchiveReader.read(data, file: url)
    }

    /// Every `.cdm` file and `.xcmappingmodel` package in the bundles' folders (and, for SwiftPM resource
    /// bundles, their `Resources` folder), searched at most four folders deep, sorted by path.
    static func candidateFiles(in bundles: [Bundle]) -> [URL] {
        candidateFiles(inFolders: bundles.flatMap { [$0.resourceURL, $0.bundleURL].compactMap { $0 } }, depth: 4)
    }

    /// Every `.cdm` file and `.xcmappingmodel` package in `folders`, searched at most `depth` folders below them
    /// (0: only their tops), sorted by path. Model packages are not entered.
    static func candidateFiles(inFolders folders: [URL], depth: Int) -> [URL] {
        var found = Set<URL>()
        for root in Set(folders.map(\.standardizedFileURL)) {
            collect(in: root, depth: 0, maximumDepth: depth, into: &found)
        }
        return found.sorted { $0.path < $1.path }
    }

    private static func collect(in folder: URL, depth: Int, maximumDepth: Int, into found: inout Set<URL>) {
        guard depth <= maximumDepth, let items = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) else { return }
        for item in items {
            switch item.pathExtension {
            case "cdm", "xcmappingmodel": found.insert(item.standardizedFileURL)
            default:
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: item.path, isDirectory: &isDirectory), isDirectory.boolValue,
                   !["xcdatamodeld", "xcdatamodel", "momd"].contains(item.pathExtension) {
                    collect(in: item, depth: depth + 1, maximumDepth: maximumDepth, into: &found)
                }
            }
        }
    }
}

/// Where automatic migration looks, when a store is added with `NSMigratePersistentStoresAutomaticallyOption`, for
/// the model the store was saved with (its source model) and for a mapping model from it to the coordinator's model.
///
/// Apple searches "the application bundles". On Linux a SwiftPM target's resources are in its own resource bundle
/// (`Bundle.module`), where the build plugin puts `Model.momd` beside `V1toV2.cdm`, so the places are, in order:
/// 1. the versions of the versioned package the coordinator's model was loaded from (`versionedPackageURL`);
/// 2. the folder that holds that package;
/// 3. the folders `NSPersistentContainer(name:)` searches for its model (`ModelLocator.searchFolders()`):
///    `Bundle.main` and `Bundle.allBundles`, every SwiftPM resource bundle beside the executable, the working
///    directory.
///
/// Models (`.momd`, `.xcdatamodeld`, `.mom`) are taken from the top of each folder, as the container finds its
/// model; mapping models (`.cdm` files and `.xcmappingmodel` packages) up to four folders deep, as
/// `NSMappingModel(from:forSourceModel:destinationModel:)` searches a bundle, except in the working directory,
/// where only its top is searched. In each place the first match by path wins.
struct MigrationResourceSearch {
    /// A folder searched, and how many folders deep mapping models are looked for below it.
    struct Folder {
        var url: URL
        var mappingDepth: Int
    }

    /// The versioned package the coordinator's model was loaded from, if any.
    let package: URL?
    /// The folders, in the order they are searched.
    let folders: [Folder]

    /// The places searched for a store of `model`, the coordinator's model.
    init(model: NSManagedObjectModel) {
        package = model.versionedPackageURL
        var folders: [Folder] = []
        var seen = Set<String>()
        func add(_ url: URL, mappingDepth: Int) {
            let folder = url.standardizedFileURL
            if seen.insert(folder.path).inserted { folders.append(Folder(url: folder, mappingDepth: mappingDepth)) }
        }
        if let package { add(package.deletingLastPathComponent(), mappingDepth: 4) }
        let working = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        for folder in ModelLocator.searchFolders() {
            add(folder, mappingDepth: folder.standardizedFileURL.path == working ? 0 : 4)
        }
        self.folders = folders
    }

    /// A description of the places, for error messages.
    var description: String {
        ((package.map { [$0.path] } ?? []) + folders.map(\.url.path)).joined(separator: ", ")
    }

    /// The model version a store whose metadata is `metadata` was saved with: the first, in search order, whose
    /// entities are exactly those the metadata records, each with the recorded version hash. Model files that
    /// cannot be read are skipped.
    func sourceModel(matching metadata: [String: Any]) -> ModelVersion? {
        var tried = Set<String>()
        for url in (package.map { [$0] } ?? []) + folders.flatMap({ Self.modelFiles(in: $0.url) })
        where tried.insert(url.standardizedFileURL.path).inserted {
            guard let versions = try? NSManagedObjectModel.versions(ofModelAt: url) else { continue }
            let matching = versions.filter { NSStagedMigrationManager.store(metadata, isExactly: $0.model) }
            if let found = matching.first(where: \.isCurrent) ?? matching.first { return found }
        }
        return nil
    }

    /// The first mapping model, in search order, whose entity mappings go from `source` to `destination`
    /// (`NSMappingModel.matches(sourceModel:destinationModel:)`); nil when there is none.
    func mappingModel(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> NSMappingModel? {
        for folder in folders {
            let files = NSMappingModel.candidateFiles(inFolders: [folder.url], depth: folder.mappingDepth)
            if let found = NSMappingModel.firstMatching(among: files, sourceModel: source, destinationModel: destination) {
                return found
            }
        }
        return nil
    }

    /// The model files and packages at the top of `folder`, sorted by path.
    private static func modelFiles(in folder: URL) -> [URL] {
        let items = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return items.filter { ["momd", "xcdatamodeld", "mom"].contains($0.pathExtension) }.sorted { $0.path < $1.path }
    }
}

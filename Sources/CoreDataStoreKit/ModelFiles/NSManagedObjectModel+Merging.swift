extension NSManagedObjectModel {
    /// One model made of every model found in `bundles` (Apple's `mergedModel(from:)`); nil for the places
    /// `NSPersistentContainer(name:)` searches (the main bundle, SwiftPM resource bundles, the working
    /// directory).
    ///
    /// Compiled models (`.momd`, `.mom`) are taken, and, since Linux builds have no model compiler step unless
    /// the package's plugin runs, `.xcdatamodeld` packages whose compiled form is not beside them. Returns nil
    /// when no model is found, one fails to load, or two models define an entity of the same name.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        let files = modelFiles(in: bundles)
        guard !files.isEmpty else { return nil }
        var models: [NSManagedObjectModel] = []
        for file in files {
            guard let model = try? NSManagedObjectModel.load(contentsOf: file) else { return nil }
            models.append(model)
        }
        return NSManagedObjectModel(byMerging: models)
    }

    /// The model a store with `metadata` was saved with, made of the models in `bundles` (Apple's
    /// `mergedModel(from:forStoreMetadata:)`; nil for the places `mergedModel(from:)` searches): every version of
    /// every model package is a candidate, not only the current one (so an app finds the version an old store
    /// needs, to migrate it), and the result merges, from each package, the versions whose entities the metadata
    /// records with the same version hashes. Nil when the merge does not describe the store exactly
    /// (`isConfiguration(withName: nil, compatibleWithStoreMetadata:)`), or two chosen versions define an entity
    /// of the same name.
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        var versions: [NSManagedObjectModel] = []
        for file in modelFiles(in: bundles) {
            let candidates = ["momd", "xcdatamodeld"].contains(file.pathExtension)
                ? ((try? ModelPackageVersions.versions(of: file, compiled: file.pathExtension == "momd")) ?? []).map(\.file)
                : [file]
            versions += candidates.compactMap { try? NSManagedObjectModel.load(contentsOf: $0) }
        }
        return NSManagedObjectModel(byMerging: versions, forStoreMetadata: metadata)
    }

    /// The compiled models (`.momd`, `.mom`) in `bundles`, and the `.xcdatamodeld` packages whose compiled form is
    /// not beside them, one per name, in the order of the bundles and then of the names.
    private class func modelFiles(in bundles: [Bundle]?) -> [URL] {
        let folders: [URL]
        if let bundles {
            folders = bundles.flatMap { [$0.resourceURL, $0.bundleURL].compactMap { $0 } }
        } else {
            folders = ModelLocator.searchFolders()
        }
        var files: [URL] = []
        var seen = Set<String>()
        for folder in folders {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            for name in names {
                let url = folder.appendingPathComponent(name)
                let base = url.deletingPathExtension().lastPathComponent
                switch url.pathExtension {
                case "momd", "mom":
                    if seen.insert(base).inserted { files.append(url) }
                case "xcdatamodeld":
                    let compiled = ["momd", "mom"].contains { names.contains("\(base).\($0)") }
                    if !compiled, seen.insert(base).inserted { files.append(url) }
                default:
                    continue
                }
            }
        }
        return files
    }
}

extension NSManagedObjectModel {
    /// One model made of every model found in `bundles` (Apple's `mergedModel(from:)`); nil for the places
    /// `NSPersistentContainer(name:)` searches (the main bundle, SwiftPM resource bundles, the working
    /// directory).
    ///
    /// Compiled models (`.momd`, `.mom`) are taken, and, since Linux builds have no model compiler step unless
    /// the package's plugin runs, `.xcdatamodeld` packages whose compiled form is not beside them. Returns nil
    /// when no model is found, one fails to load, or two models define an entity of the same name.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
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
        guard !files.isEmpty else { return nil }
        var models: [NSManagedObjectModel] = []
        for file in files {
            guard let model = try? NSManagedObjectModel.load(contentsOf: file) else { return nil }
            models.append(model)
        }
        return NSManagedObjectModel(byMerging: models)
    }
}

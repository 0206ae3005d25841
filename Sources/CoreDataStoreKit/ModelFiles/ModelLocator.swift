/// An addition to Apple's API: finds a model by name the way `NSPersistentContainer(name:)` does on Linux.
///
/// For each place, in order, it tries `<name>.momd`, `<name>.mom`, then `<name>.xcdatamodeld`:
/// 1. each given bundle's resource folder and bundle folder (default: `Bundle.main` and `Bundle.allBundles`);
/// 2. every SwiftPM resource bundle (`*.resources`, `*.bundle`) beside the executable, and its `Resources/`;
/// 3. the current working directory.
public enum ModelLocator {
    /// The URL of the model named `name`.
    /// - Throws: `CoreDataError.modelNotFound` (260), listing every folder searched (also in userInfo under
    ///   `ModelFileSearchedURLsErrorKey`).
    public static func url(forModelNamed name: String, bundles: [Bundle]? = nil) throws -> URL {
        let fm = FileManager.default
        let folders = searchFolders(bundles: bundles)
        for folder in folders {
            for ext in ["momd", "mom", "xcdatamodeld"] {
                let candidate = folder.appendingPathComponent(name).appendingPathExtension(ext)
                if fm.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        throw CoreDataError.modelNotFound(named: name, searched: folders)
    }

    /// The folders searched, in order, without duplicates.
    public static func searchFolders(bundles: [Bundle]? = nil) -> [URL] {
        var folders: [URL] = []
        var seen = Set<String>()
        func add(_ url: URL?) {
            guard let url else { return }
            let path = url.standardizedFileURL.path
            if seen.insert(path).inserted { folders.append(url.standardizedFileURL) }
        }
        for bundle in bundles ?? ([Bundle.main] + Bundle.allBundles) {
            add(bundle.resourceURL)
            add(bundle.bundleURL)
        }
        let fm = FileManager.default
        var executableFolders: [URL] = []
        if let executable = Bundle.main.executableURL { executableFolders.append(executable.deletingLastPathComponent()) }
        if let argument = CommandLine.arguments.first, !argument.isEmpty {
            executableFolders.append(URL(fileURLWithPath: argument).deletingLastPathComponent())
        }
        for folder in executableFolders {
            let names = ((try? fm.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            for entry in names where entry.hasSuffix(".resources") || entry.hasSuffix(".bundle") {
                let bundle = folder.appendingPathComponent(entry)
                add(bundle)
                let nested = bundle.appendingPathComponent("Resources")
                if fm.fileExists(atPath: nested.path) { add(nested) }
            }
        }
        add(URL(fileURLWithPath: fm.currentDirectoryPath))
        return folders
    }
}

import CoreData
import CoreDataSQLite
import Foundation

/// Opens a store file for the tool, read-only, with a model given on the command line or, for a SQLite
/// store, the model Apple's Core Data cached in it.
enum StoreOpening {
    /// An open store, and where its model came from.
    struct Opened {
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        /// The model file's path, or "cached in the store".
        let modelSource: String
    }

    /// The store type for a file: `--type` when given, else from the extension (.sqlite, .xml, .binary).
    static func storeType(for url: URL, given: String?) throws -> String {
        if let given {
            switch given.lowercased() {
            case "sqlite": return NSSQLiteStoreType
            case "xml": return NSXMLStoreType
            case "binary": return NSBinaryStoreType
            default: return given
            }
        }
        switch url.pathExtension.lowercased() {
        case "sqlite", "sqlite3", "db", "storedata": return NSSQLiteStoreType
        case "xml", "crx": return NSXMLStoreType
        case "binary", "bin": return NSBinaryStoreType
        default: throw UsageError("cannot tell the store type of \(url.lastPathComponent); pass --type sqlite|xml|binary")
        }
    }

    /// A read-only coordinator on the store at `path`, with the model at `modelPath`; without one, a SQLite
    /// store's cached model (`Z_MODELCACHE`).
    /// - Throws: a `UsageError` when no model is given and the store has none cached; the store's errors.
    static func open(store path: String, model modelPath: String?, type: String?) throws -> Opened {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path).")
        }
        let storeType = try storeType(for: url, given: type)
        let model: NSManagedObjectModel
        let modelSource: String
        if let modelPath {
            (model, modelSource) = try modelVersion(at: URL(fileURLWithPath: modelPath), for: url, storeType: storeType, path: modelPath)
        } else {
            guard storeType == NSSQLiteStoreType else {
                throw UsageError("--model is required for a \(storeType) store (only SQLite stores can hold a cached model)")
            }
            guard let cached = try SQLiteStore.cachedModel(at: url) else {
                throw UsageError("\(url.lastPathComponent) has no cached model (its Z_MODELCACHE table is missing or empty); pass --model")
            }
            model = cached
            modelSource = "cached in the store"
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: true])
        return Opened(coordinator: coordinator, store: store, modelSource: modelSource)
    }

    /// The model at `modelURL` to open the store at `storeURL` with, and how to describe it. For a versioned
    /// package (`.xcdatamodeld`, `.momd`) this is the version whose hashes the store records, as Apple picks a
    /// migration's source model; else, or when no version matches, the current version (which the store then
    /// refuses with 134100, naming the mismatch).
    static func modelVersion(at modelURL: URL, for storeURL: URL, storeType: String, path: String) throws -> (NSManagedObjectModel, String) {
        let versions = try NSManagedObjectModel.versions(ofModelAt: modelURL)
        guard versions.count > 1 || modelURL.pathExtension == "xcdatamodeld" || modelURL.pathExtension == "momd" else {
            return (try NSManagedObjectModel.load(contentsOf: modelURL), path)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: storeURL)
        let matching = versions.filter { $0.matches(storeMetadata: metadata) }
        if let version = matching.first(where: \.isCurrent) ?? matching.first {
            return (version.model, "\(path) (version \(version.name)\(version.isCurrent ? ", current" : ", not the current one"))")
        }
        guard let current = versions.first(where: \.isCurrent) else {
            throw UsageError("no version of \(modelURL.lastPathComponent) matches the store's version hashes, and the package names no current version")
        }
        return (current.model, "\(path) (version \(current.name), current; no version matches the store's version hashes)")
    }
}

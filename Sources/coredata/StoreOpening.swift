import CoreData
import Foundation

/// Opens a store file for the tool, read-only, with a model given on the command line.
enum StoreOpening {
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

    /// A read-only coordinator on the store at `path`, with the model at `modelPath`.
    static func open(store path: String, model modelPath: String, type: String?) throws -> (NSPersistentStoreCoordinator, NSPersistentStore) {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path).")
        }
        let model = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: modelPath))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: try storeType(for: url, given: type), configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: true])
        return (coordinator, store)
    }
}

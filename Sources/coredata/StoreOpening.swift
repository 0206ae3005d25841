import CoreData
import CoreDataModelCommands
import CoreDataSQLite
import Foundation

/// Opens a store file for the tool, read-only and without touching it, with a model given on the command
/// line or, for a SQLite store, the model cached in it.
///
/// Guarantees: the store's type comes from its content (`StoreFileKind`); nothing beside the store is
/// created and no file changes. A SQLite store without a log beside it is read through an immutable
/// connection (`SQLiteStore.leavesFilesUntouchedOption`); one with a `-wal`, whose rows SQLite reads only
/// through a `-shm` it creates or writes, or with a `-journal`, which SQLite rolls back into the file first, is
/// read from a temporary copy of the database and its log, removed by `Opened.close()`.
enum StoreOpening {
    /// An open store, and where its model came from.
    struct Opened {
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        /// The store file named on the command line.
        let url: URL
        let kind: StoreFileKind
        /// The model file's path (and version), or "cached in the store".
        let modelSource: String
        /// The folder of a temporary copy the store was opened from, if any.
        let temporaryFolder: URL?

        /// Closes the store and removes the temporary copy, if any.
        func close() {
            try? coordinator.remove(store)
            if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
        }
    }

    /// A read-only coordinator on the store at `path`, with the model at `modelPath`; without one, a SQLite
    /// store's cached model (`Z_MODELCACHE`).
    /// - Throws: a `UsageError` when no model is given and the store carries none, or `--type` is not a
    ///   type; the errors of `StoreFileKind.detect(at:)`; 134000 when `--type` names another type than the
    ///   content shows; the store's errors.
    static func open(store path: String, model modelPath: String?, type: String?) throws -> Opened {
        let (kind, url) = try locate(path, type: type)
        let (readable, temporaryFolder) = try readableLocation(of: url, kind: kind)
        do {
            let (model, modelSource) = try model(for: readable, named: url, kind: kind, modelPath: modelPath)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(ofType: kind.storeType, configurationName: nil, at: readable,
                                                           options: readOnlyOptions(kind: kind, copied: temporaryFolder != nil))
            return Opened(coordinator: coordinator, store: store, url: url, kind: kind, modelSource: modelSource,
                          temporaryFolder: temporaryFolder)
        } catch {
            if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
            throw error
        }
    }

    /// The kind and URL of the store `path` names (a file, told by its content, or a PostgreSQL URI),
    /// checked against `--type` when given.
    /// - Throws: a `UsageError` when `--type` is not a type; the errors of `StoreFileKind.locate(_:)`; 134000
    ///   when `--type` names another type than the content shows.
    static func locate(_ path: String, type: String?) throws -> (StoreFileKind, URL) {
        let (kind, url) = try StoreFileKind.locate(path)
        if let type {
            let named = try StoreFileKind(typeOption: type)
            guard named == kind else {
                throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                         "The file at \(url.path) holds \(kind.name), not \(named.name) (--type \(type)).",
                                         userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        return (kind, url)
    }

    /// The options that open a store read-only without touching it: an immutable SQLite connection unless the
    /// store is a temporary copy (`copied`).
    static func readOnlyOptions(kind: StoreFileKind, copied: Bool) -> [String: Any] {
        var options: [String: Any] = [NSReadOnlyPersistentStoreOption: true]
        if kind == .sqlite, !copied { options[SQLiteStore.leavesFilesUntouchedOption] = true }
        return options
    }

    /// Where the store can be read without touching anything beside it: the file itself, or, for a SQLite
    /// store with a log beside it, a copy of the database and the log in a new temporary folder (returned too).
    /// A `-wal`'s copy gets its own `-shm`, rebuilt from the log; a `-journal` (a transaction under way, or one
    /// a killed process left unfinished) is rolled back in the copy, which then holds the store as it was
    /// before that transaction, what SQLite shows every reader.
    static func readableLocation(of url: URL, kind: StoreFileKind) throws -> (URL, URL?) {
        let files = FileManager.default
        let log = files.fileExists(atPath: url.path + "-wal") ? "-wal" : SQLiteStore.hasUnfinishedTransaction(at: url) ? "-journal" : nil
        guard kind == .sqlite, let log else { return (url, nil) }
        let folder = files.temporaryDirectory.appendingPathComponent("coredata-read-\(UUID().uuidString)")
        let copy = folder.appendingPathComponent(url.lastPathComponent)
        do {
            try files.createDirectory(at: folder, withIntermediateDirectories: true)
            try files.copyItem(atPath: url.path, toPath: copy.path)
            try files.copyItem(atPath: url.path + log, toPath: copy.path + log)
        } catch {
            try? files.removeItem(at: folder)
            let why = log == "-wal" ? "a write-ahead log (-wal), which SQLite reads only through a -shm file it creates or changes"
                                    : "an unfinished transaction (-journal), which SQLite rolls back in the file before reading it"
            throw CoreDataError.make(NSFileReadUnknownError,
                                     "The store at \(url.path) has \(why), so the tool reads a copy; copying the two failed: \(error.localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        if log == "-journal", SQLiteStore.rollBackUnfinishedTransaction(of: copy) {
            try? files.removeItem(at: folder)
            throw CoreDataError.make(NSFileReadUnknownError,
                                     "The store at \(url.path) has an unfinished transaction (-journal) that SQLite could not roll back in the tool's copy.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        return (copy, folder)
    }

    /// The model to open the store with, and how to describe it: the one at `modelPath`, else the model a
    /// SQLite store caches. `readable` is where the store is read, `named` the path the user gave.
    static func model(for readable: URL, named: URL, kind: StoreFileKind, modelPath: String?) throws -> (NSManagedObjectModel, String) {
        if let modelPath {
            return try modelVersion(at: URL(fileURLWithPath: modelPath), for: readable, storeType: kind.storeType, path: modelPath)
        }
        guard kind == .sqlite else {
            throw UsageError("\(named.lastPathComponent) is \(kind.name), which does not carry its model; "
                             + "pass --model with the .xcdatamodeld, .xcdatamodel, .momd or .mom it was saved with")
        }
        guard let cached = try SQLiteStore.cachedModel(at: readable) else {
            throw UsageError("\(named.lastPathComponent) has no cached model: its Z_MODELCACHE table is missing (stores Apple's Core Data "
                             + "wrote before about 2015) or empty (this package leaves it empty for models its .mom writer refuses: "
                             + "a block predicate); pass --model")
        }
        return (cached, "cached in the store")
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

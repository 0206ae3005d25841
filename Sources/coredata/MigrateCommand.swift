import CoreData
import CoreDataModelCommands
import CoreDataSQLite
import Foundation

/// `coredata migrate <store> --model <new model>`: migrates a store in place to a model's current version
/// with the mapping lightweight migration infers (`NSMappingModel.inferredMappingModel`), run by
/// `NSMigrationManager`, whose `migrationProgress` is shown (`MigrationProgressPolicy`).
///
/// The store's own version is found by its entity version hashes among the new model's package versions,
/// else `--from`, else (SQLite) the model the store caches. The migration manager builds the new store
/// beside the old one and moves it into place only when everything saved: a failure leaves the store as it
/// was. Like every migration through the manager, objects are created anew, so object IDs change.
enum MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "migrate a store in place to a new model version (lightweight, inferred mapping)"
    static let usage = """
        usage: coredata migrate <store> --model <new model> [--from <old model>] [--type sqlite|xml|binary]

          <store>              a SQLite, XML or binary store file, told by its content; replaced only when the
                               whole migration succeeded
          --model <new model>  the model to migrate to (.xcdatamodeld, .xcdatamodel, .momd, .mom); of a
                               package, its current version
          --from <old model>   the model the store was saved with; default: the version of --model's package
                               whose hashes the store records, else the model a SQLite store caches
          --type <type>        the store type, checked against the file's content

        The mapping is the one lightweight migration infers; what it cannot infer (a changed attribute type,
        an attribute turned into a relationship) is refused with 134190 naming it, and the store is left as it
        was. A store that already matches the model is left alone. Progress: a bar on a terminal,
        `progress: N% …` lines otherwise. Exit status: 0 success, 1 failure, 64 usage error.
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--model", "--from", "--type"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one store") }
        guard let modelPath = parsed.options["--model"] else { throw UsageError("--model is required: the model to migrate to") }
        let (kind, url) = try StoreOpening.locate(path, type: parsed.options["--type"])
        guard kind != .postgresql else {
            throw CoreDataError.unsupported("coredata migrate works on store files; a PostgreSQL store migrates itself when it is added with "
                                            + "NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption")
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.storeType, at: url)
        let (destination, destinationName) = try currentVersion(of: modelPath)
        if destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            print("\(path) already matches \(destinationName); nothing to migrate")
            return
        }
        let (source, sourceName) = try sourceModel(for: url, kind: kind, metadata: metadata, newModel: modelPath, from: parsed.options["--from"])
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        MigrationProgressPolicy.adopt(mapping)
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        let progress = ProgressReport()
        defer { progress.finish() }
        let type = NSPersistentStore.StoreType(rawValue: kind.storeType)
        progress.update(0, "migrating from \(sourceName) to \(destinationName)")
        try MigrationProgressPolicy.reporting(to: progress) {
            try manager.migrateStore(from: url, type: type, options: nil, mapping: mapping, to: url, type: type, options: nil)
        }
        progress.update(1, "done")
        progress.finish()
        let migrated = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.storeType, at: url)
        guard destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: migrated) else {
            throw CoreDataError.make(NSMigrationError, "The migrated store at \(url.path) does not record \(destinationName)'s version hashes.")
        }
        print("migrated \(path) from \(sourceName) to \(destinationName)")
    }

    /// The current version of the model at `path` (the file's model when it has no versions), and its name.
    static func currentVersion(of path: String) throws -> (NSManagedObjectModel, String) {
        let versions = try NSManagedObjectModel.versions(ofModelAt: URL(fileURLWithPath: path))
        guard let current = versions.first(where: \.isCurrent) ?? (versions.count == 1 ? versions.first : nil) else {
            throw UsageError("\(path) names no current version; pass one version (.xcdatamodel) as --model")
        }
        return (current.model, versions.count > 1 ? "\(path) (version \(current.name))" : path)
    }

    /// The model the store was saved with, and its name: `--from` (of a package, the version matching the
    /// store's hashes), else the version of the new model's package that matches, else a SQLite store's
    /// cached model.
    /// - Throws: a `UsageError` when none is found; 134130 when `--from` does not match the store.
    static func sourceModel(for url: URL, kind: StoreFileKind, metadata: [String: Any], newModel: String,
                            from: String?) throws -> (NSManagedObjectModel, String) {
        if let from {
            guard let version = try NSManagedObjectModel.version(ofModelAt: URL(fileURLWithPath: from), matchingStoreMetadata: metadata) else {
                throw CoreDataError.make(NSMigrationMissingSourceModelError,
                                         "The store at \(url.path) was not saved with \(from): its entity version hashes match no version of it.")
            }
            let isPackage = ["xcdatamodeld", "momd"].contains(URL(fileURLWithPath: from).pathExtension)
            return (version.model, isPackage ? "\(from) (version \(version.name))" : from)
        }
        if let version = try NSManagedObjectModel.version(ofModelAt: URL(fileURLWithPath: newModel), matchingStoreMetadata: metadata) {
            return (version.model, "\(newModel) (version \(version.name))")
        }
        if kind == .sqlite, let cached = try SQLiteStore.cachedModel(at: url) {
            return (cached, "the model cached in the store")
        }
        throw UsageError("the store's entity version hashes match no version of \(newModel)\(kind == .sqlite ? ", and it caches no model" : ""); "
                         + "pass --from with the model it was saved with")
    }
}

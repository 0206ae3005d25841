import CoreData
import Foundation

/// A store migrator as apps write one: the mapping model between two versions of `Notes.xcdatamodeld` is looked
/// up among the bundle's compiled mapping models, as on iOS and macOS, and run by `NSMigrationManager`.
///
/// `CoreDataModelPlugin` compiles this target's `Notes.xcdatamodeld` into `Notes.momd` and its
/// `NotesV1toV2.xcmappingmodel` into `NotesV1toV2.cdm`, both resources of the target's bundle (`Bundle.module`).
/// The mapping copies folders and renames Note's `text` to `body` (a rename lightweight migration cannot infer,
/// since the model carries no renaming identifier).
public enum NotesMigrator {
    /// The bundle holding `Notes.momd` and `NotesV1toV2.cdm`.
    public static var bundle: Bundle { Bundle.module }

    /// The version `name` ("Notes", "Notes 2") of the compiled model in the bundle.
    /// - Throws: 260 when the bundle has no such version.
    public static func model(version name: String) throws -> NSManagedObjectModel {
        guard let url = bundle.url(forResource: "Notes", withExtension: "momd")?.appendingPathComponent(name + ".mom") else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadNoSuchFileError,
                          userInfo: [NSLocalizedDescriptionKey: "Notes.momd is not in \(bundle.bundlePath)"])
        }
        return try NSManagedObjectModel.load(contentsOf: url)
    }

    /// Migrates the store at `url` from `source` to `destination` in place, with the bundle's mapping model
    /// between them.
    /// - Throws: 134140 (`NSMigrationMissingMappingModelError`) when the bundle has none; what
    ///   `NSMigrationManager.migrateStore` throws.
    public static func migrateStore(at url: URL, type: NSPersistentStore.StoreType,
                                    from source: NSManagedObjectModel, to destination: NSManagedObjectModel) throws {
        guard let mapping = NSMappingModel(from: [bundle], forSourceModel: source, destinationModel: destination) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSMigrationMissingMappingModelError,
                          userInfo: [NSLocalizedDescriptionKey: "No mapping model in \(bundle.bundlePath) goes between the two models."])
        }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        try manager.migrateStore(from: url, type: type, options: nil, mapping: mapping, to: url, type: type, options: nil)
    }
}

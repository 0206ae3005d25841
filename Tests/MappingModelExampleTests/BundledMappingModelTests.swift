import CoreData
import Foundation
import MappingModelExample
import Testing

/// The build plugin compiles the example's `NotesV1toV2.xcmappingmodel` into `NotesV1toV2.cdm` in the target's
/// bundle, where `NSMappingModel(from:forSourceModel:destinationModel:)` finds it by the models' version hashes;
/// a store of the first version migrates with it.
@Suite struct BundledMappingModelTests {
    /// `Examples/MappingModelExample/NotesV1toV2.xcmappingmodel`, the plugin's input.
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/MappingModelExample/NotesV1toV2.xcmappingmodel")

    @Test func theCompiledMappingModelIsInTheBundleAndReadsAsItsSource() throws {
        let url = try #require(NotesMigrator.bundle.url(forResource: "NotesV1toV2", withExtension: "cdm"))
        // Apple's compiled form: a keyed archive of an NSMappingModel, not the Xcode package.
        let archive = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), options: [], format: nil) as? [String: Any]
        #expect(archive?["$archiver"] as? String == "NSKeyedArchiver")
        #expect(NotesMigrator.bundle.url(forResource: "NotesV1toV2", withExtension: "xcmappingmodel") == nil)

        let compiled = try NSMappingModel.mappingModel(contentsOf: url)
        let package = try NSMappingModel.mappingModel(contentsOf: Self.source)
        #expect(compiled.entityMappings.map { $0.name ?? "" } == ["FolderToFolder", "NoteToNote"])
        #expect(compiled.entityMappings.map(\.mappingType) == [.copyEntityMappingType, .copyEntityMappingType])
        for (mine, theirs) in zip(compiled.entityMappings, package.entityMappings) {
            #expect(mine.sourceEntityVersionHash == theirs.sourceEntityVersionHash)
            #expect(mine.destinationEntityVersionHash == theirs.destinationEntityVersionHash)
            #expect(mine.sourceExpression?.description == theirs.sourceExpression?.description)
        }
        let note = try #require(compiled.entityMappingsByName["NoteToNote"])
        #expect(note.attributeMappings?.first { $0.name == "body" }?.valueExpression?.description == "$source.text")
        #expect(note.relationshipMappings?.first { $0.name == "folder" }?.valueExpression?.description
                == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "FolderToFolder", $source.folder)"#)
    }

    @Test func theMappingModelIsFoundForTheTwoVersionsOnly() throws {
        let v1 = try NotesMigrator.model(version: "Notes")
        let v2 = try NotesMigrator.model(version: "Notes 2")
        #expect(NSMappingModel(from: [NotesMigrator.bundle], forSourceModel: v1, destinationModel: v2)?.entityMappings.count == 2)
        #expect(NSMappingModel(from: [NotesMigrator.bundle], forSourceModel: v2, destinationModel: v1) == nil)
        #expect(NSMappingModel(from: [NotesMigrator.bundle], forSourceModel: v1, destinationModel: v1) == nil)
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary])
    func aStoreOfTheFirstVersionMigratesWithTheBundledMapping(_ type: NSPersistentStore.StoreType) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.store")
        let v1 = try NotesMigrator.model(version: "Notes")
        let v2 = try NotesMigrator.model(version: "Notes 2")

        try Self.withContext(v1, type: type, url: url) { context in
            let work = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            work.setValue("Work", forKey: "name")
            for (title, text) in [("Plan", "Ship the migrator"), ("Call", "Ring the printer")] {
                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                note.setValue(title, forKey: "title")
                note.setValue(text, forKey: "text")
                note.setValue(work, forKey: "folder")
            }
            try context.save()
        }

        try NotesMigrator.migrateStore(at: url, type: type, from: v1, to: v2)

        // Reopened with the new version: `text` became `body`, the folder kept its notes, `pinned` has its default.
        try Self.withContext(v2, type: type, url: url) { context in
            let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
                .sorted { ($0.value(forKey: "title") as? String ?? "") < ($1.value(forKey: "title") as? String ?? "") }
            #expect(notes.map { $0.value(forKey: "title") as? String } == ["Call", "Plan"])
            #expect(notes.map { $0.value(forKey: "body") as? String } == ["Ring the printer", "Ship the migrator"])
            #expect(notes.allSatisfy { $0.value(forKey: "pinned") as? Bool == false })
            let folders = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder"))
            #expect(folders.count == 1)
            #expect((folders.first?.value(forKey: "notes") as? Set<NSManagedObject>)?.count == 2)
            #expect(notes.allSatisfy { ($0.value(forKey: "folder") as? NSManagedObject)?.value(forKey: "name") as? String == "Work" })
        }
    }

    /// Writes two notes of the first version, in folder "Work", into a new store at `url`.
    static func writeFirstVersion(to url: URL, type: NSPersistentStore.StoreType) throws {
        try withContext(try NotesMigrator.model(version: "Notes"), type: type, url: url) { context in
            let work = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            work.setValue("Work", forKey: "name")
            for (title, text) in [("Plan", "Ship the migrator"), ("Call", "Ring the printer")] {
                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                note.setValue(title, forKey: "title")
                note.setValue(text, forKey: "text")
                note.setValue(work, forKey: "folder")
            }
            try context.save()
        }
    }

    /// The notes' titles with their bodies, read in `context`.
    static func bodies(in context: NSManagedObjectContext) throws -> [String: String] {
        var bodies: [String: String] = [:]
        for note in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) {
            bodies[note.value(forKey: "title") as? String ?? "?"] = note.value(forKey: "body") as? String ?? "nil"
        }
        return bodies
    }

    static let migratedBodies = ["Call": "Ring the printer", "Plan": "Ship the migrator"]

    /// Adding the store with `NSMigratePersistentStoresAutomaticallyOption` (with or without inference) finds the
    /// bundle's `NotesV1toV2.cdm` and migrates with it: `body` has the old `text`, which inference would drop (the
    /// model has no renaming identifier). The coordinator's model comes from a single `.mom`, so the source
    /// version and the mapping are found among the bundles beside the executable.
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary], [false, true])
    func addingAnOldStoreMigratesWithTheBundledMapping(_ type: NSPersistentStore.StoreType, infers: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.store")
        try Self.writeFirstVersion(to: url, type: type)
        var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true]
        if infers { options[NSInferMappingModelAutomaticallyOption] = true }

        let v2 = try NotesMigrator.model(version: "Notes 2")
        try Self.withContext(v2, type: type, url: url, options: options) { context in
            let bodies = try Self.bodies(in: context)
            #expect(bodies == Self.migratedBodies)
        }
        // Reopened without migration options: the file is of the second version, folders and notes related.
        try Self.withContext(v2, type: type, url: url) { context in
            #expect(try Self.bodies(in: context) == Self.migratedBodies)
            let folders = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder"))
            #expect((folders.first?.value(forKey: "notes") as? Set<NSManagedObject>)?.count == 2)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    /// `NSPersistentContainer(name: "Notes")` finds `Notes.momd` in the bundle, and its default store description
    /// (migrate and infer on) picks the bundle's mapping model over inference.
    @Test func containerWithTheDefaultDescriptionPicksTheMappingModel() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.sqlite")
        try Self.writeFirstVersion(to: url, type: .sqlite)

        let container = NSPersistentContainer(name: "Notes")
        #expect(container.managedObjectModel.entitiesByName["Note"]?.propertiesByName["body"] != nil)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        #expect(container.persistentStoreDescriptions[0].shouldMigrateStoreAutomatically)
        #expect(container.persistentStoreDescriptions[0].shouldInferMappingModelAutomatically)
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        let context = container.newBackgroundContext()
        let bodies = try context.performAndWait { try Self.bodies(in: context) }
        #expect(bodies == Self.migratedBodies)
    }

    /// Going back from the second version to the first has no mapping model in the bundle: without inference,
    /// Apple's 134140 names both models, and the store is left as it was and still opens.
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary])
    func noMappingModelWithoutInferenceIsRefused(_ type: NSPersistentStore.StoreType) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.store")
        let v2 = try NotesMigrator.model(version: "Notes 2")
        try Self.withContext(v2, type: type, url: url) { context in
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("Plan", forKey: "title")
            note.setValue("Ship it", forKey: "body")
            try context.save()
        }
        let bytes = try Data(contentsOf: url)
        let error = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: try NotesMigrator.model(version: "Notes"))
                .addPersistentStore(type: type, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true])
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSMigrationMissingMappingModelError)
        #expect(error.localizedDescription.contains("Notes 2"))
        #expect(try Data(contentsOf: url) == bytes)
        try Self.withContext(v2, type: type, url: url) { context in
            let bodies = try Self.bodies(in: context)
            #expect(bodies == ["Plan": "Ship it"])
        }
    }

    /// Runs `body` in a context on the store at `url` opened with `model` (and `options`), then removes the store.
    static func withContext(_ model: NSManagedObjectModel, type: NSPersistentStore.StoreType, url: URL,
                            options: [AnyHashable: Any]? = nil, _ body: (NSManagedObjectContext) throws -> Void) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { try body(context) }
    }
}

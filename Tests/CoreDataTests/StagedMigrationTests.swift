import CoreData
import Testing

/// Person(name) → v2 adds an optional nickname (lightweight) → v3 makes the nickname required (custom: nil
/// nicknames are filled before, and counted after). Written as an Xcode package, as an app ships its versions,
/// so the lightweight stage's checksums are found among the package's versions.
enum StagedModels {
    static func contents(nickname: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" attributeType="String"/>
                \(nickname)
            </entity>
        </model>
        """
    }

    /// The package in `folder`, with versions People1–3 (People3 current), and its three models.
    static func package(in folder: URL) throws -> (v1: NSManagedObjectModel, v2: NSManagedObjectModel, v3: NSManagedObjectModel) {
        let package = folder.appendingPathComponent("People.xcdatamodeld")
        let versions = ["", #"<attribute name="nickname" optional="YES" attributeType="String"/>"#, #"<attribute name="nickname" attributeType="String"/>"#]
        for (index, nickname) in versions.enumerated() {
            let version = package.appendingPathComponent("People\(index + 1).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(contents(nickname: nickname).utf8).write(to: version.appendingPathComponent("contents"))
        }
        let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "People3.xcdatamodel"], format: .xml, options: 0)
        try current.write(to: package.appendingPathComponent(".xccurrentversion"))
        let models = try NSManagedObjectModel.versions(ofModelAt: package).map(\.model)
        guard models.count == 3 else { throw CoreDataError.migrationFailed("the test package has \(models.count) versions") }
        return (models[0], models[1], models[2])
    }
}

/// `NSStagedMigrationManager` through `NSPersistentStoreStagedMigrationManagerOptionKey`: a chain of a
/// lightweight and a custom stage on every file store, handlers that see the store, and the refusals.
@Suite(.serialized) struct StagedMigrationTests {
    static func manager(events: Box, models: (v1: NSManagedObjectModel, v2: NSManagedObjectModel, v3: NSManagedObjectModel)) -> NSStagedMigrationManager {
        let custom = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: models.v2, versionChecksum: models.v2.versionChecksum),
                                            to: NSManagedObjectModelReference(model: models.v3, versionChecksum: models.v3.versionChecksum))
        custom.willMigrateHandler = { manager, _ in
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = NSPredicate(format: "nickname == nil")
                for person in try context.fetch(request) { person.setValue(person.value(forKey: "name"), forKey: "nickname") }
                try context.save()
                events.items.append("will \(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")))")
            }
        }
        custom.didMigrateHandler = { manager, _ in
            let context = try #require(manager.container).viewContext
            let nicknames = try context.performAndWait {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "nickname") as? String }
            }
            events.items.append("did " + nicknames.sorted().joined(separator: ","))
        }
        return NSStagedMigrationManager([NSLightweightMigrationStage([models.v1.versionChecksum, models.v2.versionChecksum]), custom])
    }

    final class Box: @unchecked Sendable { var items: [String] = [] }

    /// Saves people into a new store and closes it (a SQLite store another coordinator keeps open cannot migrate).
    static func write(_ names: [String], to url: URL, type: NSPersistentStore.StoreType, model: NSManagedObjectModel) throws {
        let context = try MigrationManagerTests.open(url, type: type, model: model)
        try context.performAndWait {
            for name in names { insert("Person", ["name": name], into: context) }
            try context.save()
        }
        for store in context.persistentStoreCoordinator?.persistentStores ?? [] { try context.persistentStoreCoordinator?.remove(store) }
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary])
    func chainOfLightweightAndCustomStages(type: NSPersistentStore.StoreType) throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = try StagedModels.package(in: folder)
        let url = folder.appendingPathComponent("people.store")
        try Self.write(["Ann", "Bo"], to: url, type: type, model: models.v1)
        let events = Box()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: models.v3)
        try coordinator.addPersistentStore(type: type, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: Self.manager(events: events, models: models)])
        #expect(events.items == ["will 2", "did Ann,Bo"])
        let reopened = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reopened.persistentStoreCoordinator = coordinator
        let names = try reopened.performAndWait {
            try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { "\($0.value(forKey: "name") ?? "")=\($0.value(forKey: "nickname") ?? "")" }
        }
        #expect(Set(names) == ["Ann=Ann", "Bo=Bo"])

        // Added again: already at the last version, nothing runs.
        let again = Box()
        let second = NSPersistentStoreCoordinator(managedObjectModel: models.v3)
        try second.addPersistentStore(type: type, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: Self.manager(events: again, models: models)])
        #expect(again.items.isEmpty)
    }

    @Test func storeOfAnUnknownVersionIsRefused() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = try StagedModels.package(in: folder)
        let url = folder.appendingPathComponent("library.sqlite")
        let context = try MigrationManagerTests.open(url, type: .sqlite, model: libraryModel())
        try context.performAndWait {
            insert("Author", ["name": "Ann"], into: context)
            try context.save()
        }
        let bytes = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: models.v3)
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: Self.manager(events: Box(), models: models)])
        }
        #expect(error.code == NSMigrationMissingSourceModelError)
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func referenceWithTheWrongChecksumIsNamed() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = try StagedModels.package(in: folder)
        let reference = NSManagedObjectModelReference(model: models.v1, versionChecksum: "not-a-checksum")
        #expect(reference.resolvedModel.entities.isEmpty)
        let stage = NSCustomMigrationStage(migratingFrom: reference, to: NSManagedObjectModelReference(model: models.v2, versionChecksum: models.v2.versionChecksum))
        let url = folder.appendingPathComponent("people.sqlite")
        try Self.write(["Ann"], to: url, type: .sqlite, model: models.v1)
        let error = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: models.v2)
                .addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: NSStagedMigrationManager([stage])])
        }
        #expect(error.code == NSMigrationMissingSourceModelError)
        #expect(error.localizedDescription.contains("not-a-checksum"))
    }
}

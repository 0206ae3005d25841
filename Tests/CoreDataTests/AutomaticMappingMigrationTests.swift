import CoreData
import Testing

/// Book(title, pages as words) in version 1 of `Shelf.xcdatamodeld`; Book(title, pageCount as a number) in version 2,
/// the current one. Only the mapping model's custom policy turns "twelve" into 12: lightweight migration cannot
/// (a string that is no number does not convert), so a migrated page count proves the mapping model was used.
enum ShelfModels {
    static func contents(_ pages: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Book" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                \(pages)
            </entity>
        </model>
        """
    }

    /// `Shelf.xcdatamodeld` in `folder` with versions Shelf1 and Shelf2 (current), and the two models as loaded from
    /// the package (so the second knows its package, as a container's model does).
    static func package(in folder: URL) throws -> (v1: NSManagedObjectModel, v2: NSManagedObjectModel) {
        let package = folder.appendingPathComponent("Shelf.xcdatamodeld")
        let versions = [#"<attribute name="pages" optional="YES" attributeType="String"/>"#,
                        #"<attribute name="pages" optional="YES" attributeType="Integer 64" usesScalarValueType="NO"/>"#]
        for (index, pages) in versions.enumerated() {
            let version = package.appendingPathComponent("Shelf\(index + 1).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(contents(pages).utf8).write(to: version.appendingPathComponent("contents"))
        }
        let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Shelf2.xcdatamodel"], format: .xml, options: 0)
        try current.write(to: package.appendingPathComponent(".xccurrentversion"))
        let v1 = try #require(try NSManagedObjectModel.versions(ofModelAt: package).first { $0.name == "Shelf1" }).model
        return (v1, try NSManagedObjectModel.load(contentsOf: package))
    }

    /// BookToBook: the title by expression, the page count by `WordPagesPolicy`; with the two versions' hashes.
    static func mapping(from v1: NSManagedObjectModel, to v2: NSManagedObjectModel) throws -> NSMappingModel {
        let mapping = NSEntityMapping()
        mapping.name = "BookToBook"
        mapping.mappingType = .customEntityMappingType
        mapping.sourceEntityName = "Book"
        mapping.sourceEntityVersionHash = try #require(v1.entitiesByName["Book"]).versionHash
        mapping.destinationEntityName = "Book"
        mapping.destinationEntityVersionHash = try #require(v2.entitiesByName["Book"]).versionHash
        mapping.entityMigrationPolicyClassName = "WordPagesPolicy"
        mapping.sourceExpression = NSExpression(format: #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Book", "TRUEPREDICATE"), $manager.sourceContext, NO)"#)
        let title = NSPropertyMapping()
        title.name = "title"
        title.valueExpression = NSExpression(format: "$source.title")
        mapping.attributeMappings = [title]
        let model = NSMappingModel()
        model.entityMappings = [mapping]
        return model
    }

    static let books = ["Dune": "twelve", "Emma": "seven"]

    /// Saves `books` into a new store of version 1 at `url` and removes it from its coordinator.
    static func writeBooks(to url: URL, type: NSPersistentStore.StoreType, model: NSManagedObjectModel) throws {
        let context = try MigrationManagerTests.open(url, type: type, model: model)
        try context.performAndWait {
            for (title, pages) in books { insert("Book", ["title": title, "pages": pages], into: context) }
            try context.save()
        }
        for store in context.persistentStoreCoordinator?.persistentStores ?? [] { try context.persistentStoreCoordinator?.remove(store) }
    }

    /// Each book's title with its `pages` value, read from the store at `url` opened with `model` and `options`.
    static func readBooks(at url: URL, type: NSPersistentStore.StoreType, model: NSManagedObjectModel,
                          options: [AnyHashable: Any]? = nil) throws -> [String: String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var books: [String: String] = [:]
            for book in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")) {
                books[book.value(forKey: "title") as? String ?? "?"] = (book.value(forKey: "pages")).map { "\($0)" } ?? "nil"
            }
            return books
        }
    }
}

/// Turns a page count written in words into a number (what no inferred mapping does).
final class WordPagesPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        let numbers = ["seven": 7, "twelve": 12]
        for book in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]) {
            book.setValue((sInstance.value(forKey: "pages") as? String).flatMap { numbers[$0] }.map { NSNumber(value: $0) }, forKey: "pages")
        }
    }
}

/// Adding a store with `NSMigratePersistentStoresAutomaticallyOption`: a mapping model found beside the model's
/// package or in the bundles migrates the store before any inference (Apple's order), on every file store; without
/// one, the inference option decides between lightweight migration and Apple's 134130/134140.
@Suite(.serialized) struct AutomaticMappingMigrationTests {
    static let migrateOnly: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true]
    static let migrateAndInfer: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                                      NSInferMappingModelAutomaticallyOption: true]

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary], [false, true])
    func mappingModelBesideThePackageMigratesTheStore(type: NSPersistentStore.StoreType, infers: Bool) throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        NSEntityMigrationPolicy.register(WordPagesPolicy.self)
        let models = try ShelfModels.package(in: folder)
        try ShelfModels.mapping(from: models.v1, to: models.v2).write(to: folder.appendingPathComponent("ShelfV1toV2.cdm"))
        let url = folder.appendingPathComponent("shelf.store")
        try ShelfModels.writeBooks(to: url, type: type, model: models.v1)

        let migrated = try ShelfModels.readBooks(at: url, type: type, model: models.v2, options: infers ? Self.migrateAndInfer : Self.migrateOnly)
        #expect(migrated == ["Dune": "12", "Emma": "7"])
        // Reopened without any migration option: the file is of version 2.
        #expect(try ShelfModels.readBooks(at: url, type: type, model: models.v2) == ["Dune": "12", "Emma": "7"])
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Data])?["Book"] == models.v2.entitiesByName["Book"]?.versionHash)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary])
    func withoutAMappingModelTheInferenceOptionDecides(type: NSPersistentStore.StoreType) throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = try ShelfModels.package(in: folder)
        let url = folder.appendingPathComponent("shelf.store")
        try ShelfModels.writeBooks(to: url, type: type, model: models.v1)
        let bytes = try Data(contentsOf: url)

        // No mapping model anywhere and no inference: Apple's 134140, naming the source version and the places searched.
        let missing = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: models.v2).addPersistentStore(type: type, at: url, options: Self.migrateOnly)
        }
        #expect(missing.domain == NSCocoaErrorDomain)
        #expect(missing.code == NSMigrationMissingMappingModelError)
        #expect(missing.localizedDescription.contains("Shelf1"))
        #expect(missing.localizedDescription.contains(folder.standardizedFileURL.path))
        #expect(try Data(contentsOf: url) == bytes)

        // With inference: "twelve" is no number, so the inferred mapping refuses the type change (134190).
        let refused = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: models.v2).addPersistentStore(type: type, at: url, options: Self.migrateAndInfer)
        }
        #expect(refused.code == NSInferredMappingModelError)
        #expect(refused.localizedDescription.contains("pages"))
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try ShelfModels.readBooks(at: url, type: type, model: models.v1) == ShelfModels.books)
    }

    @Test func storeOfAModelFoundNowhereIsRefusedWithoutInference() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = try ShelfModels.package(in: folder)
        let url = folder.appendingPathComponent("library.sqlite")
        let context = try MigrationManagerTests.open(url, type: .sqlite, model: libraryModel())
        try context.performAndWait {
            insert("Author", ["name": "Ann"], into: context)
            try context.save()
        }
        for store in context.persistentStoreCoordinator?.persistentStores ?? [] { try context.persistentStoreCoordinator?.remove(store) }
        let error = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: models.v2).addPersistentStore(type: .sqlite, at: url, options: Self.migrateOnly)
        }
        #expect(error.code == NSMigrationMissingSourceModelError)
        #expect(error.localizedDescription.contains(url.path))
    }

    /// Apple's SampleModel V2 store, its compiled `.momd` (made current at SampleModel3) and its `V2toV3.cdm` side by
    /// side: adding the store with the container's default options migrates it with Apple's mapping model and the
    /// policy that turns maker names into shared `Maker` objects (an inferred mapping would leave `createdBy` empty).
    @Test func appleStoreMigratesWithTheMappingModelBesideItsModel() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        NSEntityMigrationPolicy.register(V2to3MakerPolicy.self)
        let url = try MigrationFixtures.copy(MigrationFixtures.sampleStoreV2, to: folder, named: "Cars.sqlite")
        let package = try MigrationFixtures.copy(MigrationFixtures.sampleModel, to: folder, named: "SampleModel.momd")
        _ = try MigrationFixtures.copy(MigrationFixtures.sampleCompiledMapping, to: folder, named: "V2toV3.cdm")
        let info = package.appendingPathComponent("VersionInfo.plist")
        var plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: info), options: [], format: nil) as? [String: Any])
        plist["NSManagedObjectModel_CurrentVersionName"] = "SampleModel3"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: info)
        let old = try MigrationManagerTests.open(url, type: .sqlite, model: MigrationFixtures.sampleModelVersion("SampleModel2"))
        let before = try MigrationManagerTests.cars(in: old, makerKey: "maker")
        for store in old.persistentStoreCoordinator?.persistentStores ?? [] { try old.persistentStoreCoordinator?.remove(store) }
        #expect(before.count == 125)

        let v3 = try NSManagedObjectModel.load(contentsOf: package)
        let description = NSPersistentStoreDescription(url: url)
        let container = NSPersistentContainer(name: "Cars", managedObjectModel: v3)
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        let context = container.newBackgroundContext()
        #expect(try MigrationManagerTests.cars(in: context, makerKey: "createdBy") == before)
        let makers = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Maker")) }
        #expect(makers == Set(before.values.map { $0[0] }).count)
    }
}

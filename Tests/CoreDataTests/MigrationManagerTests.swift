import CoreData
import Testing

/// The policy the SampleModel fixture's mapping model names (`REPLACE_AT_RUNTIME.V2to3MakerPolicy`): V3 turns
/// each car's maker string into one shared `Maker` object per name (a merge of many sources into one).
final class V2to3MakerPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
              let makerName = sInstance.value(forKey: "maker") as? String else { return }
        var makers = manager.userInfo?["makers"] as? [String: NSManagedObject] ?? [:]
        let maker = makers[makerName] ?? insert("Maker", ["name": makerName], into: manager.destinationContext)
        makers[makerName] = maker
        manager.userInfo = ["makers": makers]
        car.setValue(maker, forKey: "createdBy")
    }
}

/// `NSMigrationManager` with mapping models read from Apple's files: a store written by Apple's Core Data,
/// migrated with Apple's compiled mapping model and a custom policy, then reopened.
@Suite(.serialized) struct MigrationManagerTests {
    /// Each car's number plate with its maker, owner's first name and kind, read from a store.
    static func cars(in context: NSManagedObjectContext, makerKey: String) throws -> [String: [String]] {
        try context.performAndWait {
            var result: [String: [String]] = [:]
            for car in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car")) {
                let maker = makerKey == "maker" ? car.value(forKey: "maker") as? String
                    : (car.value(forKey: "createdBy") as? NSManagedObject)?.value(forKey: "name") as? String
                let owner = (car.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "firstName") as? String
                result[car.value(forKey: "numberPlate") as? String ?? "?"] = [maker ?? "-", owner ?? "-", car.entity.name ?? ""]
            }
            return result
        }
    }

    static func open(_ url: URL, type: NSPersistentStore.StoreType, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary])
    func appleStoreWithAppleMappingModelAndCustomPolicy(destinationType: NSPersistentStore.StoreType) throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        NSEntityMigrationPolicy.register(V2to3MakerPolicy.self)
        let source = try MigrationFixtures.copy(MigrationFixtures.sampleStoreV2, to: folder, named: "V2.sqlite")
        let mapping = try NSMappingModel.mappingModel(contentsOf: try MigrationFixtures.copy(MigrationFixtures.sampleCompiledMapping, to: folder, named: "V2toV3.cdm"))
        let v2 = try MigrationFixtures.sampleModelVersion("SampleModel2")
        let v3 = try MigrationFixtures.sampleModelVersion("SampleModel3")
        let before = try Self.cars(in: try Self.open(source, type: .sqlite, model: v2), makerKey: "maker")
        let sourceBytes = try Data(contentsOf: source)

        let destination = folder.appendingPathComponent("V3.store")
        let manager = NSMigrationManager(sourceModel: v2, destinationModel: v3)
        try manager.migrateStore(from: source, type: .sqlite, mapping: mapping, to: destination, type: destinationType)
        #expect(manager.migrationProgress == 1)
        #expect(try Data(contentsOf: source) == sourceBytes)

        let reopened = try Self.open(destination, type: destinationType, model: v3)
        let after = try Self.cars(in: reopened, makerKey: "createdBy")
        #expect(after.count == 125)
        #expect(after == before)
        try reopened.performAndWait {
            let makers = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Maker"))
            #expect(makers.count == Set(before.values.map { $0[0] }).count)
            let people = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(people.count == 20)
            // previousOwners is mapped from the old owner (`$source.owner` through PersonToPerson).
            for car in try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car")) {
                let owner = car.value(forKey: "owner") as? NSManagedObject
                let previous = car.value(forKey: "previousOwners") as? Set<NSManagedObject> ?? []
                #expect(previous == (owner.map { [$0] } ?? []))
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func policyClassThatCannotBeFoundIsNamed() throws {
        let mapping = NSMappingModel()
        let entityMapping = NSEntityMapping()
        entityMapping.name = "AToA"
        entityMapping.sourceEntityName = "Author"
        entityMapping.destinationEntityName = "Author"
        entityMapping.mappingType = .customEntityMappingType
        entityMapping.entityMigrationPolicyClassName = "NoSuchModule.NoSuchPolicy"
        mapping.entityMappings = [entityMapping]
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("a.sqlite")
        let context = try Self.open(source, type: .sqlite, model: libraryModel())
        try context.performAndWait {
            insert("Author", ["name": "Ann"], into: context)
            try context.save()
        }
        let manager = NSMigrationManager(sourceModel: libraryModel(), destinationModel: libraryModel())
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: mapping, to: folder.appendingPathComponent("b.sqlite"), type: .sqlite)
        }
        #expect(error.code == NSEntityMigrationPolicyError)
        #expect(error.localizedDescription.contains("NoSuchModule.NoSuchPolicy"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.sqlite").path))
    }
}

import Testing
import CoreData
import StoreTestSupport

/// The XML and binary stores record their model as Apple's Core Data does, keep that record across a save of
/// metadata an app sets, and refuse a store written for another model with 134100.
struct AtomicStoreMetadataTests {
    static let types: [NSPersistentStore.StoreType] = [.xml, .binary]

    static func model(optionalName: Bool = false) -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Tag", [NSAttributeDescription(name: "name", type: .string, isOptional: optionalName)])])
    }

    static func expectApplesModelKeys(_ metadata: [String: Any], _ model: NSManagedObjectModel,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName, sourceLocation: sourceLocation)
        #expect((metadata[NSStoreModelVersionHashesVersionKey] as? NSNumber)?.intValue == 3, sourceLocation: sourceLocation)
        #expect(metadata["NSStoreModelVersionHashesDigest"] as? String == VersionHashing.digest(of: model.entityVersionHashesByName),
                sourceLocation: sourceLocation)
        #expect(metadata["NSStoreModelVersionChecksumKey"] as? String == model.versionChecksum, sourceLocation: sourceLocation)
        #expect((metadata[NSPersistenceFrameworkVersionKey] as? NSNumber)?.intValue == 1344, sourceLocation: sourceLocation)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), sourceLocation: sourceLocation)
    }

    @Test(arguments: types)
    func modelKeysAreApplesAndSurviveASave(_ type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store")
        let model = Self.model()
        let context = try openStore(type, at: url, model: model)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        coordinator.setMetadata(["app": "value"], for: store)
        try context.performAndWait {
            NSManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context).setValue("a", forKey: "name")
            try context.save()
        }
        try coordinator.remove(store)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect(metadata["app"] as? String == "value")
        Self.expectApplesModelKeys(metadata, model)
        let error = #expect(throws: NSError.self) { _ = try openStore(type, at: url, model: Self.model(optionalName: true)) }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        _ = try openStore(type, at: url, model: Self.model())
    }
}

import CoreData
import Foundation
import Testing

/// A subclass that stores a default instead of nil, as apps do with `setNilValueForKey`.
final class Gauge: NSManagedObject {
    override func setNilValueForKey(_ key: String) {
        setValue(0, forKey: key)
    }
}

/// Smaller pieces of Apple's API that code written for Apple's platforms calls: `ValueTransformer(forName:)`,
/// `NSPersistentCloudKitContainer` (local only), `NSPersistentStoreCoordinator.execute(_:with:)`,
/// `setNilValueForKey(_:)`.
@Suite struct AppleAPISurfaceTests {
    @Test func valueTransformerForNameGivesTheRegisteredTransformer() {
        let name = NSValueTransformerName("AppleAPISurfaceTests.Even")
        let transformer = EvenNumberTransformer()
        ValueTransformer.setValueTransformer(transformer, forName: name)
        #expect(ValueTransformer(forName: name) === transformer)
        #expect(ValueTransformer(forName: NSValueTransformerName("NoSuchTransformer")) == nil)
        #expect(ValueTransformer(forName: .secureUnarchiveFromDataTransformerName) is NSSecureUnarchiveFromDataTransformer)
    }

    @Test func aCloudKitContainerWorksLocallyAndSaysItDoesNotSync() throws {
        let container = NSPersistentCloudKitContainer(name: "Library", managedObjectModel: libraryModel())
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.cloudKitContainerOptions = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Library")
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        #expect(description.cloudKitContainerOptions?.containerIdentifier == "iCloud.com.example.Library")
        let context = container.newBackgroundContext()
        try context.performAndWait {
            Author(context: context).name = "Local"
            try context.save()
            #expect(try context.count(for: NSFetchRequest<Author>(entityName: "Author")) == 1)
        }
        let error = #expect(throws: NSError.self) { try container.initializeCloudKitSchema() }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
    }

    @Test func theCoordinatorExecutesRequestsForAContext() throws {
        let context = try inMemoryContext()
        let coordinator = try #require(context.persistentStoreCoordinator)
        try context.performAndWait {
            for name in ["Ann", "Bob"] { Author(context: context).name = name }
            try context.save()
        }
        let request = NSFetchRequest<Author>(entityName: "Author")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        try context.performAndWait {
            let fetched = try coordinator.execute(request, with: context) as? [Author]
            #expect(fetched?.compactMap(\.name) == ["Ann", "Bob"])
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Author"))
            delete.resultType = .resultTypeCount
            let result = try coordinator.execute(delete, with: context) as? NSBatchDeleteResult
            #expect(result?.result as? Int == 2)
        }
        let other = try inMemoryContext()
        #expect(throws: NSError.self) { try other.performAndWait { try coordinator.execute(request, with: other) } }
    }

    @Test func setNilValueForKeyIsCalledForNilNumbers() throws {
        let entity = NSEntityDescription(name: "Gauge", managedObjectClassName: "Gauge")
        entity.properties = [NSAttributeDescription(name: "level", type: .integer32), NSAttributeDescription(name: "label", type: .string)]
        let context = try inMemoryContext(model: NSManagedObjectModel(entities: [entity]))
        try context.performAndWait {
            let gauge = Gauge(context: context)
            gauge.setValue(7, forKey: "level")
            gauge.setValue(nil, forKey: "level")
            #expect(gauge.value(forKey: "level") as? Int == 0, "the override stored a default")
            gauge.setValue("x", forKey: "label")
            gauge.setValue(nil, forKey: "label")
            #expect(gauge.value(forKey: "label") == nil, "strings are not numbers: nil is stored")
            let plain = NSManagedObject(entity: entity, insertInto: context)
            plain.setValue(3, forKey: "level")
            plain.setValue(nil, forKey: "level")
            #expect(plain.value(forKey: "level") == nil, "by default nil is stored")
            try context.save()
        }
    }

    @Test func entityOfAClassNoModelNamesIsAnUnnamedEntityThatFetchesRefuse() throws {
        final class Unmodelled: NSManagedObject {}
        let entity = Unmodelled.entity()
        #expect(entity.name == nil)
        #expect(entity.properties.isEmpty)
        let context = try inMemoryContext()
        let request = NSFetchRequest<NSManagedObject>()
        request.entity = entity
        let error = #expect(throws: NSError.self) { try context.performAndWait { try context.fetch(request) } }
        #expect(error?.code == NSCoreDataError)
    }
}

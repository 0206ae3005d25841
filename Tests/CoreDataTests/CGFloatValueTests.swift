import Foundation
import Testing
import CoreData

/// `CGFloat` values set by key into number attributes, as apps store geometry (`image.size.width`): on Apple's
/// platforms a `CGFloat` bridges to `NSNumber`, which every number attribute accepts.
@Suite struct CGFloatValueTests {
    static func model() -> NSManagedObjectModel {
        let image = NSEntityDescription(name: "ImageAttachment")
        image.properties = [
            NSAttributeDescription(name: "width", type: .float, isOptional: false),
            NSAttributeDescription(name: "height", type: .double, isOptional: false),
            NSAttributeDescription(name: "pixels", type: .integer32),
            NSAttributeDescription(name: "scale", type: .decimal),
        ]
        return NSManagedObjectModel(entities: [image])
    }

    @Test func cgFloatsAreSavedIntoNumberAttributesAndReadAfterAReopen() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cgfloat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Images.sqlite")
        let model = Self.model()
        func context() throws -> NSManagedObjectContext {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let writer = try context()
        try writer.performAndWait {
            let image = NSEntityDescription.insertNewObject(forEntityName: "ImageAttachment", into: writer)
            image.setValue(CGFloat(640.5), forKey: "width")
            image.setValue(CGFloat(480.25), forKey: "height")
            image.setValue(CGFloat(1024), forKey: "pixels")
            image.setValue(CGFloat(2), forKey: "scale")
            #expect((image.value(forKey: "width") as? NSNumber)?.floatValue == 640.5)
            try writer.save()
        }
        let reader = try context()
        try reader.performAndWait {
            let image = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "ImageAttachment")).first)
            #expect(image.value(forKey: "width") as? Float == 640.5)
            #expect(image.value(forKey: "height") as? Double == 480.25)
            #expect(image.value(forKey: "pixels") as? Int == 1024)
            #expect((image.value(forKey: "scale") as? NSDecimalNumber)?.intValue == 2)
        }
    }

    @Test func aFractionalCGFloatIsNoWholeNumber() throws {
        let context = try inMemoryContext(model: Self.model())
        context.performAndWait {
            let image = NSEntityDescription.insertNewObject(forEntityName: "ImageAttachment", into: context)
            image.setValue(Float(1), forKey: "width")
            image.setValue(Double(1), forKey: "height")
            image.setValue(CGFloat(2.5), forKey: "pixels")
            #expect(throws: (any Error).self, "an Integer 32 attribute holding 2.5 does not validate") { try context.save() }
        }
    }
}

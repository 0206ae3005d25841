import CoreData
import Foundation
import Testing

/// Stores only even numbers; anything else transforms to nil.
final class EvenNumberTransformer: ValueTransformer, @unchecked Sendable {
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let number = value as? Int, number % 2 == 0 else { return nil }
        return Data(String(number).utf8)
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
    }
}

/// A transformable attribute whose transformer gives nil is saved as nil (Apple's behaviour), not refused.
@Suite struct TransformerResultTests {
    @Test func aNilTransformationIsStoredAsNil() throws {
        let name = NSValueTransformerName("EvenNumberTransformer")
        ValueTransformer.setValueTransformer(EvenNumberTransformer(), forName: name)
        let entity = NSEntityDescription(name: "Box")
        let number = NSAttributeDescription(name: "number", type: .transformable)
        number.valueTransformerName = name.rawValue
        entity.properties = [NSAttributeDescription(name: "label", type: .string), number]
        let model = NSManagedObjectModel(entities: [entity])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("transformer-\(UUID().uuidString)/store.sqlite")
        let writer = NSPersistentStoreCoordinator(managedObjectModel: model)
        try writer.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer
        try context.performAndWait {
            for (label, value) in [("odd", 3), ("even", 4)] {
                let box = NSEntityDescription.insertNewObject(forEntityName: "Box", into: context)
                box.setValue(label, forKey: "label")
                box.setValue(value, forKey: "number")
            }
            try context.save()
        }
        let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reader.addPersistentStore(type: .sqlite, at: url)
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = reader
        let values = try fresh.performAndWait {
            try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Box")).reduce(into: [String: Int?]()) {
                $0[$1.value(forKey: "label") as? String ?? ""] = $1.value(forKey: "number") as? Int
            }
        }
        #expect(values["even"] == .some(4))
        #expect(values["odd"] == .some(nil))
    }

    /// A transformer name nothing registered (an app's own transformer, in a process without it): values are
    /// not refused. Data is stored as it is and comes back the same, so copying a store keeps the app's bytes;
    /// other values go through the default transformer, as Apple's Core Data falls back to it.
    @Test func aMissingTransformerFallsBackWithoutLosingData() throws {
        let entity = NSEntityDescription(name: "Swatch")
        let color = NSAttributeDescription(name: "color", type: .transformable)
        color.valueTransformerName = "AppColorTransformerNotInThisProcess"
        entity.properties = [NSAttributeDescription(name: "label", type: .string), color]
        let model = NSManagedObjectModel(entities: [entity])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("transformer-\(UUID().uuidString)/store.sqlite")
        let appBytes = Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x00, 0xFF, 0x10])
        let writer = NSPersistentStoreCoordinator(managedObjectModel: model)
        try writer.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer
        try context.performAndWait {
            for (label, value) in [("bytes", appBytes as Any), ("name", "teal" as Any)] {
                let swatch = NSEntityDescription.insertNewObject(forEntityName: "Swatch", into: context)
                swatch.setValue(label, forKey: "label")
                swatch.setValue(value, forKey: "color")
            }
            try context.save()
        }
        let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reader.addPersistentStore(type: .sqlite, at: url)
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = reader
        let values = try fresh.performAndWait {
            try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Swatch")).reduce(into: [String: Any]()) {
                $0[$1.value(forKey: "label") as? String ?? ""] = $1.value(forKey: "color")
            }
        }
        #expect(values["bytes"] as? Data == appBytes)
        #expect(values["name"] as? String == "teal")
    }
}

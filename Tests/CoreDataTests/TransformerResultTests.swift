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

/// What a transformable attribute stores when its transformer gives nil, checked after a reopen. (One whose
/// transformer is not registered at all is the conformance case `save/unregistered-transformer-falls-back`.)
@Suite struct TransformerResultTests {
    /// A model of one entity with a `label` string and a transformable `attribute` named for `transformerName`.
    private func model(entity: String, attribute: String, transformerName: String) -> NSManagedObjectModel {
        let description = NSEntityDescription(name: entity)
        let value = NSAttributeDescription(name: attribute, type: .transformable)
        value.valueTransformerName = transformerName
        description.properties = [NSAttributeDescription(name: "label", type: .string), value]
        return NSManagedObjectModel(entities: [description])
    }

    /// Saves one object per label with `attribute` set to its value in a new SQLite store, then reads them back
    /// through another coordinator: the values by label.
    private func saveAndReopen(_ model: NSManagedObjectModel, entity: String, attribute: String,
                               values: [(label: String, value: Any)]) throws -> [String: Any] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("transformer-\(UUID().uuidString)/store.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let writer = NSPersistentStoreCoordinator(managedObjectModel: model)
        try writer.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer
        try context.performAndWait {
            for (label, value) in values {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                object.setValue(label, forKey: "label")
                object.setValue(value, forKey: attribute)
            }
            try context.save()
        }
        let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reader.addPersistentStore(type: .sqlite, at: url)
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = reader
        return try fresh.performAndWait {
            try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)).reduce(into: [String: Any]()) {
                $0[$1.value(forKey: "label") as? String ?? ""] = $1.value(forKey: attribute) ?? NSNull()
            }
        }
    }

    /// A transformer that gives nil stores nil (Apple's behaviour): the value is not refused.
    @Test func aNilTransformationIsStoredAsNil() throws {
        let name = NSValueTransformerName("EvenNumberTransformer")
        ValueTransformer.setValueTransformer(EvenNumberTransformer(), forName: name)
        let model = model(entity: "Box", attribute: "number", transformerName: name.rawValue)
        let values = try saveAndReopen(model, entity: "Box", attribute: "number", values: [("odd", 3), ("even", 4)])
        #expect(values["even"] as? Int == 4)
        #expect(values["odd"] is NSNull)
    }
}

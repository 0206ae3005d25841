import CoreData
import Foundation
import Testing

/// Derived attributes written as Apple's documentation writes them (`derivationExpression` with an
/// `NSExpression`), computed by an in-memory store at save.
@Suite struct DerivedAttributeExpressionTests {
    static func model() -> NSManagedObjectModel {
        let shelf = NSEntityDescription()
        shelf.name = "Shelf"
        let item = NSEntityDescription()
        item.name = "Item"
        let items = NSRelationshipDescription(name: "items", destination: item, toMany: true)
        let owner = NSRelationshipDescription(name: "shelf", destination: shelf, toMany: false)
        items.inverseRelationship = owner
        owner.inverseRelationship = items
        func derived(_ name: String, _ type: NSAttributeType, _ expression: CoreData.NSExpression) -> NSDerivedAttributeDescription {
            let attribute = NSDerivedAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.derivationExpression = expression
            return attribute
        }
        shelf.properties = [
            NSAttributeDescription(name: "label", type: .string), items,
            derived("itemCount", .integer64AttributeType, NSExpression(format: "items.@count")),
            derived("searchLabel", .stringAttributeType, NSExpression(forFunction: "canonical:", arguments: [NSExpression(forKeyPath: "label")])),
            derived("upperLabel", .stringAttributeType, NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "label")])),
            derived("touched", .dateAttributeType, NSExpression(forFunction: "now", arguments: [])),
        ]
        item.properties = [owner]
        return NSManagedObjectModel(entities: [shelf, item])
    }

    @Test func expressionsSetAsApplesDocumentationDoesAreComputed() throws {
        let model = Self.model()
        let itemCount = try #require(model.entitiesByName["Shelf"]?.attributesByName["itemCount"] as? NSDerivedAttributeDescription)
        #expect(itemCount.derivationExpression?.description == "items.@count")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            shelf.setValue("Élan Vital", forKey: "label")
            for _ in 0..<2 { NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(shelf, forKey: "shelf") }
            #expect(shelf.value(forKey: "itemCount") == nil, "nothing is computed before the save")
            try context.save()
            #expect((shelf.value(forKey: "itemCount") as? NSNumber)?.int64Value == 2)
            #expect(shelf.value(forKey: "searchLabel") as? String == "elan vital")
            #expect(shelf.value(forKey: "upperLabel") as? String == "ÉLAN VITAL")
            #expect(shelf.value(forKey: "touched") is Date)
        }
    }

    @Test func aDerivationCoreDataDoesNotSupportFailsTheAdd() throws {
        let model = Self.model()
        let bad = NSDerivedAttributeDescription()
        bad.name = "bad"
        bad.attributeType = .integer64AttributeType
        bad.derivationExpression = NSExpression(forFunction: "sqrt:", arguments: [NSExpression(forKeyPath: "label")])
        let copy = model.copy() as! NSManagedObjectModel
        copy.entitiesByName["Shelf"]?.properties.append(bad)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: copy)
        #expect { try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null")) } throws: { error in
            let error = error as NSError
            return error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreUnsupportedRequestTypeError
                && error.localizedDescription.contains("Shelf.bad")
        }
    }
}

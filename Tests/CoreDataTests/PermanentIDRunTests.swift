import Foundation
import Testing
import CoreData

/// Permanent IDs for new objects of several entities inserted in turn (entities of one hierarchy share one key
/// sequence), some given to another store with `assign(_:to:)`: each object gets its own ID of its own entity and
/// store, is found by it, and is saved under it.
@Suite struct PermanentIDRunTests {
    static func model() -> NSManagedObjectModel {
        let animal = NSEntityDescription(name: "Animal")
        animal.properties = [NSAttributeDescription(name: "name", type: .string)]
        let dog = NSEntityDescription(name: "Dog")
        let cat = NSEntityDescription(name: "Cat")
        animal.subentities = [dog, cat]
        let tree = NSEntityDescription(name: "Tree")
        tree.properties = [NSAttributeDescription(name: "name", type: .string)]
        return NSManagedObjectModel(entities: [animal, dog, cat, tree])
    }

    /// With `assigning`, two objects go to the second store; without, every object goes to the first (the runs then
    /// join without look-ups).
    @Test(arguments: [false, true]) func interleavedEntitiesAndStoresEachGetTheirOwnIDs(assigning: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PermanentIDRunTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let first = try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("first.sqlite"))
        let second = try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("second.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let order = ["Dog", "Dog", "Cat", "Dog", "Tree", "Cat", "Cat", "Tree", "Dog"]
        let names: [NSManagedObjectID: String] = try context.performAndWait {
            var objects: [NSManagedObject] = []
            for (index, entity) in order.enumerated() {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                object.setValue("\(entity) \(index)", forKey: "name")
                if assigning, index == 3 || index == 6 { context.assign(object, to: second) }
                objects.append(object)
            }
            try context.obtainPermanentIDs(for: objects)
            let ids = objects.map(\.objectID)
            #expect(ids.allSatisfy { !$0.isTemporaryID })
            #expect(Set(ids).count == ids.count)
            #expect(ids.map { $0.entity.name ?? "" } == order)
            #expect(ids.map { $0.persistentStore === second } == order.indices.map { assigning && ($0 == 3 || $0 == 6) })
            for object in objects { #expect(context.registeredObject(for: object.objectID) === object) }
            try context.save()
            #expect(objects.map(\.objectID) == ids, "a save keeps IDs obtained before it")
            return Dictionary(uniqueKeysWithValues: objects.map { ($0.objectID, $0.value(forKey: "name") as? String ?? "") })
        }
        #expect(first !== second)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            for (id, name) in names {
                let object = try reader.existingObject(with: id)
                #expect(object.value(forKey: "name") as? String == name)
                #expect(object.entity.name == id.entity.name)
            }
            let animals = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            #expect(animals.count == 7)
        }
    }
}

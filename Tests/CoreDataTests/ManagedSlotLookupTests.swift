import Foundation
import Testing
import CoreData

/// One class for two unrelated entities whose properties lie in different slots, and a subclass of it for a
/// subentity that adds one: a `@Managed` read finds its slot by the object's entity, not by its class.
class SlotSharingSample: NSManagedObject {
    @Managed var number: Int64
    @Managed var label: String?
}

final class SlotSharingChild: SlotSharingSample {
    @Managed var extra: Int64
}

@Suite struct ManagedSlotLookupTests {
    /// "Front" has `number, label`; "Back" has `label, padding, number` (so both properties are in other slots);
    /// "Child" is a subentity of "Front" that adds `extra`. Front and Back are made with `SlotSharingSample`,
    /// Child with `SlotSharingChild`.
    static func model() -> NSManagedObjectModel {
        let sampleClass = NSStringFromClass(SlotSharingSample.self)
        let front = NSEntityDescription(name: "Front")
        front.managedObjectClassName = sampleClass
        front.properties = [NSAttributeDescription(name: "number", type: .integer64, defaultValue: 0),
                            NSAttributeDescription(name: "label", type: .string)]
        let back = NSEntityDescription(name: "Back")
        back.managedObjectClassName = sampleClass
        back.properties = [NSAttributeDescription(name: "label", type: .string),
                           NSAttributeDescription(name: "padding", type: .double, defaultValue: 0),
                           NSAttributeDescription(name: "number", type: .integer64, defaultValue: 0)]
        let child = NSEntityDescription(name: "Child")
        child.managedObjectClassName = NSStringFromClass(SlotSharingChild.self)
        child.properties = [NSAttributeDescription(name: "extra", type: .integer64, defaultValue: 0)]
        front.subentities = [child]
        return NSManagedObjectModel(entities: [front, back, child])
    }

    static func context(_ model: NSManagedObjectModel, at url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func aClassSharedByEntitiesReadsEachEntitysSlotsAfterReopening() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("slots.sqlite")
        let model = Self.model()
        let writer = try Self.context(model, at: url)
        try writer.performAndWait {
            for index in 0..<3 {
                let front = try #require(NSEntityDescription.insertNewObject(forEntityName: "Front", into: writer) as? SlotSharingSample)
                front.number = Int64(index)
                front.label = "front \(index)"
                let back = try #require(NSEntityDescription.insertNewObject(forEntityName: "Back", into: writer) as? SlotSharingSample)
                back.number = Int64(100 + index)
                back.label = "back \(index)"
                back.setValue(2.5, forKey: "padding")
                let child = try #require(NSEntityDescription.insertNewObject(forEntityName: "Child", into: writer) as? SlotSharingChild)
                child.number = Int64(200 + index)
                child.label = "child \(index)"
                child.extra = Int64(300 + index)
            }
            try writer.save()
        }

        let reader = try Self.context(model, at: url)  // a new coordinator: every object is read from the file
        try reader.performAndWait {
            let sort = [NSSortDescriptor(key: "number", ascending: true)]
            let fronts = NSFetchRequest<SlotSharingSample>(entityName: "Front")
            fronts.includesSubentities = false
            fronts.sortDescriptors = sort
            let backs = NSFetchRequest<SlotSharingSample>(entityName: "Back")
            backs.sortDescriptors = sort
            let children = NSFetchRequest<SlotSharingChild>(entityName: "Child")
            children.sortDescriptors = sort
            let (front, back, child) = (try reader.fetch(fronts), try reader.fetch(backs), try reader.fetch(children))
            #expect(front.count == 3 && back.count == 3 && child.count == 3)
            #expect(front.allSatisfy(\.isFault) && back.allSatisfy(\.isFault) && child.allSatisfy(\.isFault))
            // Interleaved, so each read follows a read of the same property in another entity's slots.
            for index in 0..<3 {
                #expect(front[index].number == Int64(index))
                #expect(back[index].number == Int64(100 + index))
                #expect(child[index].number == Int64(200 + index))
                #expect(front[index].label == "front \(index)")
                #expect(back[index].label == "back \(index)")
                #expect(child[index].label == "child \(index)")
                #expect(child[index].extra == Int64(300 + index))
                #expect(back[index].value(forKey: "padding") as? Double == 2.5)
            }
            let all = try reader.fetch(NSFetchRequest<SlotSharingSample>(entityName: "Front"))
            #expect(all.map(\.number).sorted() == [0, 1, 2, 200, 201, 202], "the subentity's objects read the inherited slots")
        }
    }

    /// Entities "Shape0"…"Shape23", all made with `SlotSharingSample`, each with `number`, `label` and `padding` in
    /// an order of its own, so the two `@Managed` properties have 48 answers (property × layout) to find: more than
    /// the shared slot table's first size holds, so it grows while the readers below read.
    static func manyLayoutsModel() -> NSManagedObjectModel {
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        let entities = (0..<24).map { index -> NSEntityDescription in
            let entity = NSEntityDescription(name: "Shape\(index)")
            entity.managedObjectClassName = NSStringFromClass(SlotSharingSample.self)
            let properties = [NSAttributeDescription(name: "number", type: .integer64, defaultValue: 0),
                              NSAttributeDescription(name: "label", type: .string),
                              NSAttributeDescription(name: "padding\(index % 4)", type: .double, defaultValue: 0)]
            entity.properties = orders[index % orders.count].map { properties[$0] }
            return entity
        }
        return NSManagedObjectModel(entities: entities)
    }

    @Test func threadsReadingEntitiesOfManyLayoutsAtOnceEachReadTheirOwnSlots() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("layouts.sqlite")
        let model = Self.manyLayoutsModel()
        let names = (0..<24).map { "Shape\($0)" }
        let writer = try Self.context(model, at: url)
        try writer.performAndWait {
            for (entityIndex, name) in names.enumerated() {
                for index in 0..<5 {
                    let object = try #require(NSEntityDescription.insertNewObject(forEntityName: name, into: writer) as? SlotSharingSample)
                    object.number = Int64(entityIndex * 100 + index)
                    object.label = "\(name) \(index)"
                }
            }
            try writer.save()
        }

        // Each reader has a coordinator of its own (every object read from the file) and starts at another entity,
        // so first reads of a property in a layout, which add answers to the table, happen on several threads at once.
        let readers = try (0..<4).map { _ in try Self.context(model, at: url) }
        let lock = NSLock()
        var wrong: [String] = []
        DispatchQueue.concurrentPerform(iterations: readers.count) { readerIndex in
            let reader = readers[readerIndex]
            reader.performAndWait {
                for step in 0..<names.count {
                    let entityIndex = (step + readerIndex * 6) % names.count
                    let request = NSFetchRequest<SlotSharingSample>(entityName: names[entityIndex])
                    request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
                    guard let objects = try? reader.fetch(request), objects.count == 5 else {
                        lock.withLock { wrong.append("\(names[entityIndex]): the fetch failed") }
                        continue
                    }
                    for (index, object) in objects.enumerated() where object.number != Int64(entityIndex * 100 + index)
                        || object.label != "\(names[entityIndex]) \(index)" {
                        lock.withLock { wrong.append("\(names[entityIndex]) \(index): \(object.number), \(object.label ?? "nil")") }
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "reads that found another property's slot: \(wrong)")
    }
}

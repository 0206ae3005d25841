import CoreData
import Foundation
import Testing

/// A fetch of objects gives them as the request's result type, whatever it is: `NSFetchRequestResult` (each
/// object an existential that casts back to its class), `NSManagedObject`, an entity's class, or a superclass of
/// several entities' classes; from one store's rows, with unsaved changes merged, and with a batch size. An object
/// that is not of the request's result type is an error (134060) naming both, not a crash. Every store type, after
/// a reopen.
@Suite struct FetchedResultTypeTests {
    /// FetchedAnimal (`name`) ← FetchedDog (`breed`), with classes of the same names.
    static func model() -> NSManagedObjectModel {
        let animal = NSEntityDescription(name: "FetchedAnimal", properties: [NSAttributeDescription(name: "name", type: .string)])
        let dog = NSEntityDescription(name: "FetchedDog", properties: [NSAttributeDescription(name: "breed", type: .string)])
        animal.subentities = [dog]
        return NSManagedObjectModel(entities: [animal, dog])
    }

    private static let storeTypes: [NSPersistentStore.StoreType] = [.sqlite, .binary, .xml, .inMemory]

    private static func coordinator(_ model: NSManagedObjectModel, _ type: NSPersistentStore.StoreType, at url: URL) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        return coordinator
    }

    private static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves dogs Ace and Cid and animals Bea, Dot and Eve (sorted by name, the classes alternate), then opens the
    /// store again (the in-memory store: a new context on its coordinator) and returns a context on it.
    private static func populated(_ type: NSPersistentStore.StoreType, at url: URL) throws -> NSManagedObjectContext {
        let model = model()
        let first = try coordinator(model, type, at: url)
        let writer = context(first)
        try writer.performAndWait {
            for (name, breed) in [("Ace", "pug"), ("Bea", nil), ("Cid", "collie"), ("Dot", nil), ("Eve", nil)] {
                if let breed {
                    let dog = FetchedDog(context: writer)
                    dog.name = name
                    dog.breed = breed
                } else {
                    FetchedAnimal(context: writer).name = name
                }
            }
            try writer.save()
        }
        if type == .inMemory { return context(first) }
        for store in first.persistentStores { try first.remove(store) }
        return context(try coordinator(model, type, at: url))
    }

    private static func byName<T>(_ request: NSFetchRequest<T>) -> NSFetchRequest<T> {
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return request
    }

    /// `NSFetchRequest<NSFetchRequestResult>`: each result casts back to `NSManagedObject` and to its entity's class.
    @Test(arguments: storeTypes)
    func fetchRequestResultsCastBackToTheirClasses(_ type: NSPersistentStore.StoreType) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetched-result-types-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let context = try Self.populated(type, at: folder.appendingPathComponent("store"))
        try context.performAndWait {
            for batchSize in [0, 2] {
                let request = Self.byName(NSFetchRequest<NSFetchRequestResult>(entityName: "FetchedAnimal"))
                request.fetchBatchSize = batchSize
                let results = try context.fetch(request)
                let objects = results.compactMap { $0 as? NSManagedObject }
                #expect(objects.count == 5, "\(type.rawValue), batch size \(batchSize): every result is an NSManagedObject")
                #expect(objects.map { $0.value(forKey: "name") as? String } == ["Ace", "Bea", "Cid", "Dot", "Eve"], "\(type.rawValue)")
                #expect(results.map { $0 is FetchedDog } == [true, false, true, false, false], "\(type.rawValue): each of its own class")
                #expect(results.compactMap { $0 as? FetchedAnimal }.count == 5, "\(type.rawValue)")
                #expect((results[2] as? FetchedDog)?.breed == "collie", "\(type.rawValue)")
            }
        }
    }

    /// A fetch typed with a class: a superclass of several entities' classes gives each object of its own class;
    /// an entity's class gives its objects; `NSManagedObject` gives all of them.
    @Test(arguments: storeTypes)
    func typedFetchesGiveObjectsOfTheirClasses(_ type: NSPersistentStore.StoreType) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetched-result-types-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let context = try Self.populated(type, at: folder.appendingPathComponent("store"))
        try context.performAndWait {
            for batchSize in [0, 2] {
                let animals = Self.byName(NSFetchRequest<FetchedAnimal>(entityName: "FetchedAnimal"))
                animals.fetchBatchSize = batchSize
                let fetched = try context.fetch(animals)
                #expect(fetched.map(\.name) == ["Ace", "Bea", "Cid", "Dot", "Eve"], "\(type.rawValue), batch size \(batchSize)")
                #expect(fetched.map { ($0 as? FetchedDog)?.breed } == ["pug", nil, "collie", nil, nil], "\(type.rawValue)")
                let dogs = Self.byName(NSFetchRequest<FetchedDog>(entityName: "FetchedDog"))
                dogs.fetchBatchSize = batchSize
                #expect(try context.fetch(dogs).map(\.breed) == ["pug", "collie"], "\(type.rawValue)")
                let objects = Self.byName(NSFetchRequest<NSManagedObject>(entityName: "FetchedAnimal"))
                objects.fetchBatchSize = batchSize
                #expect(try context.fetch(objects).map { $0.value(forKey: "name") as? String } == ["Ace", "Bea", "Cid", "Dot", "Eve"], "\(type.rawValue)")
            }
        }
    }

    /// With an unsaved insert, the stored objects are merged with it before they take the result type.
    @Test(arguments: storeTypes)
    func typedFetchesIncludeUnsavedObjects(_ type: NSPersistentStore.StoreType) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetched-result-types-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let context = try Self.populated(type, at: folder.appendingPathComponent("store"))
        try context.performAndWait {
            let new = FetchedDog(context: context)
            new.name = "Bob"
            new.breed = "boxer"
            #expect(try context.fetch(Self.byName(NSFetchRequest<FetchedDog>(entityName: "FetchedDog"))).map(\.breed) == ["pug", "boxer", "collie"],
                    "\(type.rawValue)")
            let results = try context.fetch(Self.byName(NSFetchRequest<NSFetchRequestResult>(entityName: "FetchedAnimal")))
            #expect(results.compactMap { ($0 as? FetchedAnimal)?.name } == ["Ace", "Bea", "Bob", "Cid", "Dot", "Eve"], "\(type.rawValue)")
            #expect(results[2] as? FetchedDog === new, "\(type.rawValue): the unsaved object itself")
        }
    }

    /// A request typed with a class other than the entity's own says nothing of the entity's class: typed with a
    /// superclass (`NSFetchRequest<FetchedAnimal>` of entity FetchedDog), its objects are still FetchedDogs; typed
    /// with a subclass (`NSFetchRequest<FetchedDog>` of entity FetchedAnimal), the animals are an error (134060), and
    /// later fetches in another context still give each object of its entity's class.
    @Test(arguments: storeTypes)
    func requestsTypedWithAnotherClassLeaveTheEntitysClass(_ type: NSPersistentStore.StoreType) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetched-result-types-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let context = try Self.populated(type, at: folder.appendingPathComponent("store"))
        try context.performAndWait {
            let dogs = try context.fetch(Self.byName(NSFetchRequest<FetchedAnimal>(entityName: "FetchedDog")))
            #expect(dogs.map { ($0 as? FetchedDog)?.breed } == ["pug", "collie"], "\(type.rawValue): dogs fetched as animals")
            let error = #expect(throws: NSError.self, "\(type.rawValue)") {
                try context.fetch(Self.byName(NSFetchRequest<FetchedDog>(entityName: "FetchedAnimal")))
            }
            #expect(error?.code == 134060, "\(type.rawValue): animals are not dogs")
        }
        let fresh = Self.context(try #require(context.persistentStoreCoordinator))
        try fresh.performAndWait {
            let objects: [NSManagedObject] = try fresh.fetch(Self.byName(NSFetchRequest<NSManagedObject>(entityName: "FetchedAnimal")))
            #expect(objects.map { String(describing: Swift.type(of: $0)) } == ["FetchedDog", "FetchedAnimal", "FetchedDog", "FetchedAnimal", "FetchedAnimal"],
                    "\(type.rawValue): each object of its entity's class")
        }
    }

    /// A fetch typed with a class of no entity of the fetched ones (`Author`, of another model) throws 134060
    /// naming the class of the objects and the one asked for, from the stores' rows and with unsaved changes merged.
    @Test(arguments: storeTypes)
    func objectsNotOfTheResultTypeAreAnError(_ type: NSPersistentStore.StoreType) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetched-result-types-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let context = try Self.populated(type, at: folder.appendingPathComponent("store"))
        context.performAndWait {
            let request = Self.byName(NSFetchRequest<Author>(entityName: "FetchedAnimal"))
            for pending in [false, true] {
                if pending { FetchedAnimal(context: context).name = "Abe" }
                let error = #expect(throws: NSError.self, "\(type.rawValue), pending changes: \(pending)") { try context.fetch(request) }
                #expect(error?.code == 134060, "\(type.rawValue)")
                let message = error?.localizedDescription ?? ""
                #expect(message.contains(pending ? "FetchedAnimal" : "FetchedDog") && message.contains("Author"), "\(type.rawValue): \(message)")
            }
        }
    }
}

class FetchedAnimal: NSManagedObject {
    @Managed var name: String?
}

final class FetchedDog: FetchedAnimal {
    @Managed var breed: String?
}

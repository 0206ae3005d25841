import Testing
import CoreData

// The code of ../shared/seeds/001 and 003, as written (UIKit parts left out). Each container gets one added
// line that points its store description at the in-memory store, marked `// added:`; everything else is the
// seeds' own text. The models "MustC" and "Model" are this test target's resources, found by name.

// MARK: Seed 001: Adding Core Data to an existing application

final class SeedAppDelegate {
    lazy var persistentContainer: NSPersistentContainer = {
        let container = NSPersistentContainer(name: "MustC")
        container.persistentStoreDescriptions = [inMemoryDescription()] // added: use the in-memory store
        container.loadPersistentStores(completionHandler: { (storeDescription, error) in
            if let error = error {
                fatalError("Unresolved error (error), (error.userInfo)")
            }
        })
        return container
    }()
}

extension NSPersistentContainer {
    func saveContextIfNeeded() {
        if viewContext.hasChanges {
            do {
                try viewContext.save()
            } catch {
                let nserror = error as NSError
                fatalError("Unresolved error \(nserror), \(nserror.userInfo)")
            }
        }
    }
}

// MARK: Seed 003: a custom persistence controller

final class myCoreDataEntity: NSManagedObject {
    @Managed var title: String?
    @Managed var count: Int64
}

struct Table {
    let title: String?
    init(coreDataEntity: myCoreDataEntity) { title = coreDataEntity.title }
}

typealias myClass = Table

final class MyClass {
    let title: String
    init(title: String) { self.title = title }
    func copyInEntity(coreDataEntity: myCoreDataEntity) { coreDataEntity.title = title }
}

struct PersistenceController {
    // A singleton for our entire app to use
    static let shared = PersistenceController()

    // Storage for Core Data
    let container: NSPersistentContainer

    // An initializer to load Core Data, optionally able
    // to use an in-memory store.
    private init() {
        container = NSPersistentContainer(name: "Model")
        container.persistentStoreDescriptions = [inMemoryDescription()] // added: use the in-memory store

        container.loadPersistentStores { _, error in
            if let error = error {
                fatalError("Error: \(error)")
            }
        }
    }

    func save() {
        let context = container.viewContext

        if context.hasChanges {
            do {
                try context.save()
            } catch {
                // Show some error here
            }
        }
    }

    func fetchFromCoreDataEntity() -> [myClass] {

        // Defining request
        let request = NSFetchRequest<myCoreDataEntity>(entityName: "myCoreDataEntity")

        // Here you could define request.predicate

        //creating an array of entities fetched from coreData
        let entities = try? container.viewContext.fetch(request)


        if let entities = entities {
            let list = entities.map {

                Table(coreDataEntity: $0)
            }
            return list
        }
        return []
    }

    func saveInCoreDataEntity(myObject: MyClass) {

        // Creating a new entity
        let myEntity = myCoreDataEntity(context: container.viewContext)

        myObject.copyInEntity(coreDataEntity: myEntity)

        // Saving of the new entity in CoreData
        try? container.viewContext.save()
    }

    func deleteAllFromCoreDataEntity() {

        // Define which entities to delete from coreData (we could also filter them with a predicate)
        let fetchRequest: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "myCoreDataEntity")

        // Define the delete request
        let deleteRequest = NSBatchDeleteRequest(fetchRequest: fetchRequest)

        do {
            try container.viewContext.execute(deleteRequest)
        } catch let error as NSError {
            // TODO: handle the error
            print(error.code)
        }
    }
}

private func inMemoryDescription() -> NSPersistentStoreDescription {
    let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
    description.type = NSInMemoryStoreType
    return description
}

/// The seeds' code uses the view context outside blocks, as main-queue app code does: it runs on the main actor.
@Suite(.serialized) @MainActor struct SeedTests {
    @Test func seed001ContainerLoadsAndSaves() throws {
        let delegate = SeedAppDelegate()
        let container = delegate.persistentContainer
        #expect(container.managedObjectModel.entitiesByName.keys.sorted() == ["FamilyMember", "Movie"])
        let member = NSEntityDescription.insertNewObject(forEntityName: "FamilyMember", into: container.viewContext)
        member.setValue("Sam", forKey: "name")
        container.saveContextIfNeeded()
        #expect(!container.viewContext.hasChanges)
        #expect(try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "FamilyMember")) == 1)
    }

    @Test func seed003PersistenceControllerFlow() throws {
        let controller = PersistenceController.shared
        controller.saveInCoreDataEntity(myObject: MyClass(title: "first"))
        controller.saveInCoreDataEntity(myObject: MyClass(title: "second"))
        #expect(Set(controller.fetchFromCoreDataEntity().compactMap(\.title)) == ["first", "second"])
        controller.deleteAllFromCoreDataEntity()
        // A batch delete does not touch the context's objects; a fresh context sees the store.
        let fresh = controller.container.newBackgroundContext()
        #expect(try fresh.performAndWait { try fresh.count(for: NSFetchRequest<myCoreDataEntity>(entityName: "myCoreDataEntity")) } == 0)
        controller.save()
    }
}

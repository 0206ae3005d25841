import CoreData
import Foundation
import Testing

/// An entity class written as Apple's code writes one: it overrides the designated initializer with
/// `override` (no `required`), and contexts make its fetched objects through that override.
final class Counter: NSManagedObject {
    @Managed var count: Int64
    nonisolated(unsafe) static var initializations = 0

    override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        Counter.initializations += 1
        super.init(entity: entity, insertInto: context)
    }
}

/// A container subclass as Apple's documentation recommends, with no initializer of its own.
final class LibraryContainer: NSPersistentContainer {}

/// A container subclass that overrides the designated initializer.
final class TracingContainer: NSPersistentContainer {
    var madeWith: String?

    override init(name: String, managedObjectModel model: NSManagedObjectModel) {
        super.init(name: name, managedObjectModel: model)
        madeWith = name
    }
}

/// Generic code over entity classes, as in libraries of Core Data extensions.
func makeObject<T: NSManagedObject>(_ type: T.Type, in context: NSManagedObjectContext) -> T {
    T(context: context)
}

/// Apple's initializers: `init(context:)` can be called on a class value, `init(entity:insertInto:)` is
/// overridden with `override`, and `NSPersistentContainer`'s designated initializer serves subclasses.
@Suite struct AppleInitializerTests {
    static func counterModel() -> NSManagedObjectModel {
        let counter = NSEntityDescription(name: "Counter", managedObjectClassName: "Counter")
        counter.properties = [NSAttributeDescription(name: "count", type: .integer64, defaultValue: 0)]
        return NSManagedObjectModel(entities: [counter])
    }

    @Test func genericCodeMakesObjectsOfAClassValue() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = makeObject(Author.self, in: context)
            author.name = "Ursula"
            let book = makeObject(Book.self, in: context)
            book.title = "The Dispossessed"
            book.author = author
            try context.save()
            #expect(author.books == [book])
            #expect(type(of: author) == Author.self)
        }
    }

    @Test func fetchedObjectsAreMadeThroughTheOverriddenInitializer() throws {
        let container = NSPersistentContainer(name: "Counters", managedObjectModel: Self.counterModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let counter = Counter(context: context)
            counter.count = 41
            try context.save()
        }
        let other = container.newBackgroundContext()
        let before = Counter.initializations
        let fetched = try other.performAndWait { try other.fetch(NSFetchRequest<Counter>(entityName: "Counter")) }
        #expect(fetched.count == 1)
        #expect(other.performAndWait { fetched.first?.count } == 41)
        #expect(Counter.initializations > before)
    }

    @Test func containerSubclassesInheritAndOverrideTheDesignatedInitializer() throws {
        let inherited = LibraryContainer(name: "Library", managedObjectModel: libraryModel())
        #expect(inherited.name == "Library")
        #expect(inherited.viewContext.persistentStoreCoordinator === inherited.persistentStoreCoordinator)
        let traced = TracingContainer(name: "Traced", managedObjectModel: libraryModel())
        #expect(traced.madeWith == "Traced")
        let byName = TracingContainer(name: "NoSuchModelAnywhere")
        #expect(byName.madeWith == "NoSuchModelAnywhere")
        var loadError: Error?
        byName.loadPersistentStores { _, error in loadError = error }
        #expect(loadError != nil, "a model that cannot be found is reported when stores load")
    }
}

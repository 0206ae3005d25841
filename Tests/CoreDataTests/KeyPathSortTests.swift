import CoreData
import Foundation
import Testing

/// `NSSortDescriptor(keyPath:ascending:)` with Swift key paths of managed properties, as Apple's code writes it:
/// optional values too (Foundation on Linux declares it only for `Comparable` ones), across a to-one
/// relationship, on a fetch request and for sorting in memory.
@Suite struct KeyPathSortTests {
    @Test func keyPathSortDescriptorsSortFetches() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let ann = Author(context: context)
            ann.name = "Ann"
            let bob = Author(context: context)
            bob.name = "Bob"
            for (title, pages, author) in [("B", 300, bob), ("A", 100, ann), ("C", 200, bob)] {
                let book = Book(context: context)
                book.title = title
                book.pages = pages
                book.author = author
            }
            try context.save()
            let request: NSFetchRequest<Book> = Book.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Book.title, ascending: false)]
            #expect(try context.fetch(request).map(\.title) == ["C", "B", "A"])
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Book.pages, ascending: true)]
            #expect(try context.fetch(request).map(\.pages) == [100, 200, 300])
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Book.author?.name, ascending: false),
                                       NSSortDescriptor(keyPath: \Book.pages, ascending: false)]
            #expect(try context.fetch(request).map(\.title) == ["B", "C", "A"])
            #expect(request.sortDescriptors?.first?.key == "author.name", "the key path is kept as its property names")
        }
    }

    /// A key path that reads no property of the model cannot be sorted by a store: Apple's error code, a message
    /// that names it, and no crash.
    @Test func aKeyPathOfAComputedPropertyIsRefused() throws {
        let context = try inMemoryContext()
        context.performAndWait {
            Book(context: context).title = "x"
            let request: NSFetchRequest<Book> = Book.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Book.shout, ascending: true)]
            let error = #expect(throws: NSError.self) { try context.fetch(request) }
            #expect(error?.code == NSCoreDataError)
            #expect(error?.localizedDescription.contains("reads no attribute or to-one relationship of Book") == true)
        }
    }

    /// KeyPathAnimal (`name`) ← KeyPathDog (`breed`), with classes of the same names.
    static func animalModel() -> NSManagedObjectModel {
        let animal = NSEntityDescription(name: "KeyPathAnimal", properties: [NSAttributeDescription(name: "name", type: .string)])
        let dog = NSEntityDescription(name: "KeyPathDog", properties: [NSAttributeDescription(name: "breed", type: .string)])
        animal.subentities = [dog]
        return NSManagedObjectModel(entities: [animal, dog])
    }

    /// A subclass's key path to a property its entity inherits names that property (the entity's `properties`
    /// list the inherited ones).
    @Test func aKeyPathOfAnInheritedAttributeSortsASubentitysFetch() throws {
        let context = try inMemoryContext(model: Self.animalModel())
        try context.performAndWait {
            for (name, breed) in [("Rex", "collie"), ("Ace", "pug"), ("Max", "boxer")] {
                let dog = KeyPathDog(context: context)
                dog.name = name
                dog.breed = breed
            }
            try context.save()
            let request = NSFetchRequest<KeyPathDog>(entityName: "KeyPathDog")
            request.sortDescriptors = [NSSortDescriptor(keyPath: \KeyPathDog.name, ascending: true)]
            #expect(try context.fetch(request).map(\.name) == ["Ace", "Max", "Rex"])
            request.sortDescriptors = [NSSortDescriptor(keyPath: \KeyPathDog.breed, ascending: false)]
            #expect(try context.fetch(request).map(\.name) == ["Ace", "Rex", "Max"])
        }
    }
}

class KeyPathAnimal: NSManagedObject {
    @Managed var name: String?
}

final class KeyPathDog: KeyPathAnimal {
    @Managed var breed: String?
}

private extension Book {
    var shout: String { (title ?? "").uppercased() }
}

import Testing
import CoreData

final class Author: NSManagedObject {
    @Managed var name: String?
    @Managed var age: Int64
    @Managed var books: Set<Book>
}

final class Book: NSManagedObject {
    @Managed var title: String?
    @Managed var author: Author?
}

func libraryModel() -> NSManagedObjectModel {
    let author = NSEntityDescription(name: "Author")
    let book = NSEntityDescription(name: "Book")
    let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
    let owner = NSRelationshipDescription(name: "author", destination: author, toMany: false)
    books.inverseRelationship = owner
    owner.inverseRelationship = books
    author.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "age", type: .integer64, defaultValue: 0), books]
    book.properties = [NSAttributeDescription(name: "title", type: .string), owner]
    return NSManagedObjectModel(entities: [author, book])
}

@Suite struct SmokeTests {
    @Test func insertFetchInMemory() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
        try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let a = Author(context: context)
            a.name = "Ann"
            a.age = 42
            let b = Book(context: context)
            b.title = "T"
            b.author = a
            #expect(a.books.count == 1)
            try context.save()
            #expect(!a.objectID.isTemporaryID)
            let fetched = try context.fetch(NSFetchRequest<Author>(entityName: "Author"))
            #expect(fetched.count == 1)
            #expect(fetched.first?.age == 42)
            #expect(fetched.first?.value(forKey: "age") as? Int == 42)
            let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            other.persistentStoreCoordinator = coordinator
            try other.performAndWait {
                let books = try other.fetch(NSFetchRequest<Book>(entityName: "Book"))
                #expect(books.first?.author?.name == "Ann")
                #expect(books.first?.author?.books.count == 1)
            }
        }
    }
}

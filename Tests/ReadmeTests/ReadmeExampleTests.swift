// The README's example, compiled and run by the tests (regenerate when the README changes).
import Testing
import CoreData


final class Author: NSManagedObject {
    @Managed var name: String?
    @Managed var books: Set<Book>
}

final class Book: NSManagedObject {
    @Managed var title: String?
    @Managed var pages: Int32
    @Managed var author: Author?
}


/// The README's example is top-level code, which runs on the main thread: here it runs on the main actor, where
/// the view context may be used outside its blocks.
@Test @MainActor func readmeExampleRuns() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
    let storeURL = directory.appendingPathComponent("Library.sqlite")
    defer { try? FileManager.default.removeItem(at: directory) }
    // A model in code (or load Xcode's: NSManagedObjectModel(contentsOf: url) / NSPersistentContainer(name: "Model")).
    let author = NSEntityDescription(name: "Author")
    let book = NSEntityDescription(name: "Book")
    let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
    let writer = NSRelationshipDescription(name: "author", destination: author, toMany: false)
    books.inverseRelationship = writer
    writer.inverseRelationship = books
    author.properties = [NSAttributeDescription(name: "name", type: .string), books]
    book.properties = [NSAttributeDescription(name: "title", type: .string),
                       NSAttributeDescription(name: "pages", type: .integer32, defaultValue: 0), writer]
    let model = NSManagedObjectModel(entities: [author, book])

    let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
    container.loadPersistentStores { _, error in
        if let error { fatalError("\(error)") }
    }

    let context = container.viewContext
    let ursula = Author(context: context)
    ursula.name = "Ursula K. Le Guin"
    let novel = Book(context: context)
    novel.title = "The Dispossessed"
    novel.pages = 387
    novel.author = ursula                       // ursula.books now contains novel
    try context.save()

    let request = NSFetchRequest<Book>(entityName: "Book")
    request.predicate = NSPredicate(format: "pages > %d AND author.name BEGINSWITH[c] %@", 300, "ursula")
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    for found in try context.fetch(request) { print(found.title ?? "", found.pages) }

    let everything: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "Book")
    try context.execute(NSBatchDeleteRequest(fetchRequest: everything))
    #expect(try context.count(for: NSFetchRequest<Book>(entityName: "Book")) == 0)
    #expect(try context.count(for: NSFetchRequest<Author>(entityName: "Author")) == 1)
}

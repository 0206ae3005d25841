import CoreData
import Foundation

/// The demo's entity classes, as `coredata generate` writes them.
final class Author: NSManagedObject {
    @Managed var name: String
    @Managed var born: Date?
    @Managed var books: Set<Book>
}

final class Book: NSManagedObject {
    @Managed var title: String
    @Managed var pages: Int32
    @Managed var isbn: UUID?
    @Managed var author: Author?

    @nonobjc class func fetchRequest() -> NSFetchRequest<Book> { NSFetchRequest<Book>(entityName: "Book") }
}

/// Steps 2 and 3 of `coredata demo`.
enum DemoFlow {
    /// Runs the seed flow and returns the URL of the SQLite store it wrote.
    static func run() throws -> URL {
        print("== 2. Setting up a Core Data stack manually (seed 000, as written)\n")

        // Get a URL to the compiled model in the app bundle.
        guard let modelURL = Bundle.main.url(forResource: "DataModel",
                                             withExtension: "momd") else {
            fatalError("Failed to find data model")
        }

        // Use the URL to create a managed object model.
        guard let model = NSManagedObjectModel(contentsOf: modelURL) else {
            fatalError("Failed to create model from file: \(modelURL)")
        }
        let managedObjectModel = model

        // Use the managed object model to create a persistent store coordinator.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        let persistentStoreCoordinator = coordinator

        // Get the URL to the Document directory.
        let documentDirectoryURL = FileManager.default.urls(for: .documentDirectory,
                                                            in: .userDomainMask).last
        // Create a URL to the data store.
        guard let storeURL = URL(string: "DataModel.sqlite",
                                 relativeTo: documentDirectoryURL) else {
            fatalError("Failed to create store URL")
        }

        do {
            // Set the options to enable lightweight data migrations.
            let options = [NSMigratePersistentStoresAutomaticallyOption: true,
                                 NSInferMappingModelAutomaticallyOption: true]
            // Add the store to the coordinator.
            _ = try coordinator.addPersistentStore(type: .sqlite, at: storeURL,
                                               options: options)
        } catch {
            fatalError("Failed to add persistent store: \(error.localizedDescription)")
        }

        // Create a context to interact with managed objects.
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        // Assign the coordinator to the context.
        context.persistentStoreCoordinator = persistentStoreCoordinator

        let store = coordinator.persistentStores[0]
        print("model:   \(modelURL.path) (\(model.entities.count) entities)")
        print("store:   \(storeURL.path) (\(store.type), UUID \(store.identifier ?? ""))")

        print("\n== 3. Working with the store (seed 003's flow)\n")
        // Start from an empty store, as the seed's deleteAll does, so every run prints the same counts.
        for entityName in ["Book", "Author"] {
            let everything: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: entityName)
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: everything))
        }

        let library: [(String, [(String, Int32)])] = [
            ("Ursula K. Le Guin", [("A Wizard of Earthsea", 183), ("The Left Hand of Darkness", 304), ("The Dispossessed", 387)]),
            ("Octavia E. Butler", [("Kindred", 264), ("Parable of the Sower", 345)]),
            ("Italo Calvino", [("Invisible Cities", 165)]),
        ]
        for (name, titles) in library {
            let author = Author(context: context)
            author.name = name
            for (title, pages) in titles {
                let book = Book(context: context)
                book.title = title
                book.pages = pages
                book.isbn = UUID()
                book.author = author
            }
        }
        try context.save()
        print("saved:   \(try context.count(for: NSFetchRequest<Author>(entityName: "Author"))) authors, \(try context.count(for: Book.fetchRequest())) books")

        let long = NSFetchRequest<Book>(entityName: "Book")
        long.predicate = NSPredicate(format: "pages > %d", 300)
        long.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
        for book in try context.fetch(long) {
            print("long:    \(book.title) (\(book.pages) pages) by \(book.author?.name ?? "?")")
        }

        let butler = NSFetchRequest<Author>(entityName: "Author")
        butler.predicate = NSPredicate(format: "name CONTAINS[c] %@", "butler")
        if let author = try context.fetch(butler).first {
            author.born = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"), year: 1947, month: 6, day: 22).date
            try context.save()
            print("updated: \(author.name), born \(author.born.map { ISO8601DateFormatter().string(from: $0) } ?? "?"), \(author.books.count) books, ID \(author.objectID.uriRepresentation().absoluteString)")
        }

        let short: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "Book")
        short.predicate = NSPredicate(format: "pages < 200")
        let delete = NSBatchDeleteRequest(fetchRequest: short)
        delete.resultType = .resultTypeObjectIDs
        let result = try context.execute(delete) as? NSBatchDeleteResult
        let deleted = result?.result as? [NSManagedObjectID] ?? []
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [context])
        print("batch:   deleted \(deleted.count) books under 200 pages; \(try context.count(for: Book.fetchRequest())) books left")
        return storeURL.absoluteURL
    }
}

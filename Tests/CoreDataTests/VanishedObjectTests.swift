import Testing
import CoreData

/// What contexts do with an object deleted elsewhere: references to it are cleared when the deletion is merged,
/// and `existingObject(with:)` keeps throwing for it.
@Suite struct VanishedObjectTests {
    @Test func mergedDeletionClearsReferencesToTheObject() throws {
        let ui = try inMemoryContext()
        let (author, draftBook) = try ui.performAndWait {
            let author = Author(context: ui)
            author.name = "Gone"
            try ui.save()
            let draftBook = Book(context: ui)
            draftBook.title = "Draft"
            draftBook.author = author
            return (author, draftBook)
        }
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = ui.persistentStoreCoordinator
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background, queue: nil) { note in
            ui.performAndWait { ui.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try background.performAndWait {
            background.delete(try background.existingObject(with: author.objectID))
            try background.save()
        }
        try ui.performAndWait {
            #expect(draftBook.author == nil, "the merged deletion cleared the reference")
            try ui.save()
        }
        let check = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        check.persistentStoreCoordinator = ui.persistentStoreCoordinator
        try check.performAndWait {
            let books = try check.fetch(NSFetchRequest<Book>(entityName: "Book"))
            #expect(books.count == 1 && books.first?.author == nil)
        }
    }

    @Test func existingObjectKeepsThrowingForAVanishedObject() throws {
        let context = try inMemoryContext()
        let author = try context.performAndWait {
            let author = Author(context: context)
            try context.save()
            return author
        }
        let id = author.objectID
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let fault = other.performAndWait { other.object(with: id) }
        try context.performAndWait {
            context.delete(author)
            try context.save()
        }
        other.performAndWait {
            for _ in 0..<2 {
                #expect(throws: NSError.self) { _ = try other.existingObject(with: id) }
            }
            _ = fault.value(forKey: "name")
            #expect(fault.isDeleted, "an inaccessible fault reports isDeleted")
        }
    }
}

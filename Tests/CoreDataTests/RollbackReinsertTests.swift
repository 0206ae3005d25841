import Testing
import CoreData

/// Objects a rollback removed from their context can be inserted again and saved.
@Suite struct RollbackReinsertTests {
    @Test func rolledBackObjectsCanBeInsertedAgain() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            try context.obtainPermanentIDs(for: [author])
            context.rollback()
            #expect(author.managedObjectContext == nil && !author.isInserted)
            context.insert(author)
            #expect(author.isInserted && author.managedObjectContext === context)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<Author>(entityName: "Author")) == 1)
        }
    }
}

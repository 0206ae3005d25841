import Testing
import CoreData

/// Behaviours found wrong in review, each checked through the public API.
@Suite struct ReviewRegressionTests {
    @Test func performAndWaitNestedAcrossContextsRunsInline() throws {
        let a = try inMemoryContext()
        let b = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        b.persistentStoreCoordinator = a.persistentStoreCoordinator
        var order: [String] = []
        a.performAndWait {
            order.append("a")
            b.performAndWait {
                order.append("b")
                a.performAndWait { order.append("a again") }
            }
        }
        #expect(order == ["a", "b", "a again"])
    }

    @Test func mergedDeletionLeavesNoReferenceBehind() throws {
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

    @Test func wrongRelationshipValuesAreReportedNotApplied() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            let book = Book(context: context)
            book.title = "Kept"
            book.author = author
            book.setValue("not an author", forKey: "author")
            #expect(book.author === author, "the relationship is left unchanged")
            let otherBook = Book(context: context)
            otherBook.title = "Other"
            book.setValue(otherBook, forKey: "author")
            #expect(book.author === author, "an object of the wrong entity is refused too")
            do {
                try context.save()
                Issue.record("the save should fail")
            } catch let error as NSError {
                #expect(error.code == NSManagedObjectValidationError)
            }
            book.author = author
            try context.save()
        }
    }

    @Test func validateValueAcceptsAppleToManyForms() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            let book = Book(context: context)
            book.author = author
            var value: Any? = author.value(forKey: "books")
            try author.validateValue(&value, forKey: "books")
        }
    }

    @Test func inMemoryDescriptionNeedsNoURL() {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: libraryModel())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
    }

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

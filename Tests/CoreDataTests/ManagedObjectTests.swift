import Testing
import CoreData

@Suite struct ManagedObjectTests {
    @Test func typedPropertiesReadAndWriteThroughTheEntity() throws {
        let context = try inMemoryContext()
        let author = Author(context: context)
        #expect(author.age == 18, "the model's default value")
        author.name = "Ann"
        author.age = 42
        author.rating = 4.5
        #expect(author.value(forKey: "name") as? String == "Ann")
        #expect(author.value(forKey: "age") as? Int == 42, "numbers come back as NSNumber, castable to Int")
        #expect(author.alias == "new", "an explicitly named property")
        author.setValue(7, forKey: "age")
        #expect(author.age == 7)
        author.name = nil
        #expect(author.name == nil)
    }

    @Test func inversesStayInStep() throws {
        let context = try inMemoryContext()
        let ann = Author(context: context), bob = Author(context: context)
        let book = Book(context: context)
        book.title = "One"
        book.author = ann
        #expect(ann.books == [book])
        book.author = bob
        #expect(ann.books.isEmpty && bob.books == [book])
        ann.books = [book]
        #expect(book.author === ann && bob.books.isEmpty)
        let first = Draft(context: context), second = Draft(context: context)
        ann.drafts = [second, first]
        #expect(first.author === ann)
        #expect(ann.drafts.map(\.objectID) == [second.objectID, first.objectID], "ordered to-many keeps order")
        #expect((ann.value(forKey: "drafts") as? NSOrderedSet)?.count == 2)
    }

    @Test func changeTrackingAndCommittedValues() throws {
        let context = try inMemoryContext()
        let author = Author(context: context)
        author.name = "Ann"
        #expect(author.isInserted && author.hasChanges && !author.isUpdated)
        try context.save()
        #expect(!author.hasChanges && !author.isInserted)
        author.name = "Anna"
        #expect(author.isUpdated)
        #expect(author.changedValues()["name"] as? String == "Anna")
        #expect(author.committedValues(forKeys: ["name"])["name"] as? String == "Ann")
        try context.save()
        #expect(author.committedValues(forKeys: ["name"])["name"] as? String == "Anna")
    }

    @Test func lifecycleHooksRunInOrder() throws {
        let context = try inMemoryContext()
        let author = Author(context: context)
        #expect(author.events == ["awakeFromInsert"])
        try context.save()
        #expect(author.events == ["awakeFromInsert", "willSave", "didSave"])
        context.delete(author)
        #expect(author.events.last == "prepareForDeletion")
        try context.save()
        #expect(author.managedObjectContext == nil)
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let saved = Author(context: context)
        try context.save()
        let fetched = try other.existingObject(with: saved.objectID) as? Author
        #expect(fetched?.events == ["awakeFromFetch"])
    }

    @Test func objectIDsHaveApplesURIForm() throws {
        let context = try inMemoryContext()
        let author = Author(context: context)
        #expect(author.objectID.isTemporaryID)
        #expect(author.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Author/t"))
        try context.save()
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(author.objectID.uriRepresentation().absoluteString == "x-coredata://\(store.identifier!)/Author/p1")
        #expect(author.objectID.persistentStore === store)
        let back = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: author.objectID.uriRepresentation())
        #expect(back == author.objectID)
        #expect(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/Author/p1")!) == nil)
    }

    @Test func transformableValuesUseTheDefaultArchiver() throws {
        let context = try inMemoryContext()
        let book = Book(context: context)
        book.title = "Tagged"
        book.tags = ["a", "b"]
        try context.save()
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let fetched = try other.fetch(Book.fetchRequest())
        #expect(fetched.first?.tags == ["a", "b"])
    }

    @Test func fetchRequestSpellingsCompile() throws {
        let context = try inMemoryContext()
        _ = Author(context: context)
        let untyped: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "Author")
        #expect(try context.fetch(untyped).count == 1)
        let generic: NSFetchRequest<NSFetchRequestResult> = Author.fetchRequest()
        #expect(try context.count(for: generic) == 1)
        let typed: [Author] = try context.fetch(NSFetchRequest<Author>(entityName: "Author"))
        #expect(typed.count == 1)
        let inserted = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        #expect(inserted is Author, "the registered class is used for the entity")
    }

    @Test func validationReportsEveryProblem() throws {
        let context = try inMemoryContext()
        _ = Book(context: context)
        _ = Book(context: context)
        do {
            try context.save()
            Issue.record("the save should fail")
        } catch let error as NSError {
            #expect(error.code == NSValidationMultipleErrorsError)
            #expect((error.userInfo[NSDetailedErrorsKey] as? [NSError])?.allSatisfy { $0.code == NSValidationMissingMandatoryPropertyError } == true)
        }
    }
}

@Suite struct MutableRelationshipViewTests {
    @Test func mutableSetValueChangesTheRelationship() throws {
        let context = try inMemoryContext()
        let author = Author(context: context)
        let first = Book(context: context), second = Book(context: context)
        first.title = "First"
        second.title = "Second"
        let books = author.mutableSetValue(forKey: "books")
        books.add(first)
        books.add(second)
        #expect(books.count == 2 && author.books.count == 2)
        #expect(first.author === author, "the inverse is set")
        books.remove(first)
        #expect(first.author == nil && author.books == [second])
        #expect(books.contains(second))
        try context.save()
    }

    @Test func mutableOrderedSetValueKeepsOrder() throws {
        let context = try inMemoryContext()
        let author = Author(context: context)
        let drafts = (0..<3).map { index -> Draft in
            let draft = Draft(context: context)
            draft.text = "d\(index)"
            return draft
        }
        let view = author.mutableOrderedSetValue(forKey: "drafts")
        view.add(drafts[0])
        view.add(drafts[2])
        view.insert(drafts[1], at: 1)
        #expect(author.drafts.map(\.text) == ["d0", "d1", "d2"])
        view.removeObject(at: 0)
        #expect(author.drafts.map(\.text) == ["d1", "d2"] && drafts[0].author == nil)
        #expect(view.index(of: drafts[2]) == 1)
    }
}

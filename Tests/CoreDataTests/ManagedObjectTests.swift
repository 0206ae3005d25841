import Testing
import CoreData

@Suite struct ManagedObjectTests {
    @Test func typedPropertiesReadAndWriteThroughTheEntity() throws {
        let context = try inMemoryContext()
        context.performAndWait {
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
    }

    @Test func inversesStayInStep() throws {
        let context = try inMemoryContext()
        context.performAndWait {
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
    }

    @Test func changeTrackingAndCommittedValues() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
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
    }

    @Test func lifecycleHooksRunInOrder() throws {
        let context = try inMemoryContext()
        let saved = try context.performAndWait {
            let author = Author(context: context)
            #expect(author.events == ["awakeFromInsert"])
            try context.save()
            #expect(author.events == ["awakeFromInsert", "willSave", "didSave"])
            context.delete(author)
            #expect(author.events.last == "prepareForDeletion")
            try context.save()
            #expect(author.managedObjectContext == nil)
            let saved = Author(context: context)
            try context.save()
            return saved
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        try other.performAndWait {
            let fetched = try other.existingObject(with: saved.objectID) as? Author
            #expect(fetched?.events == ["awakeFromFetch"])
        }
    }

    @Test func objectIDsHaveApplesURIForm() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
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
    }

    @Test func transformableValuesUseTheDefaultArchiver() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let book = Book(context: context)
            book.title = "Tagged"
            book.tags = ["a", "b"]
            try context.save()
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        try other.performAndWait {
            let fetched = try other.fetch(Book.fetchRequest())
            #expect(fetched.first?.tags == ["a", "b"])
        }
    }

    @Test func fetchRequestSpellingsCompile() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
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
    }

    @Test func validationReportsEveryProblem() throws {
        let context = try inMemoryContext()
        context.performAndWait {
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
}

@Suite struct MutableRelationshipViewTests {
    @Test func mutableSetValueChangesTheRelationship() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
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
    }

    @Test func mutableOrderedSetValueKeepsOrder() throws {
        let context = try inMemoryContext()
        context.performAndWait {
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

    /// Every mutation method of the set view changes the relationship (Foundation's own versions would change
    /// only the view's private storage).
    @Test func everySetMutationChangesTheRelationship() throws {
        let context = try inMemoryContext()
        context.performAndWait {
            let author = Author(context: context)
            let books = (0..<4).map { index -> Book in
                let book = Book(context: context)
                book.title = "b\(index)"
                return book
            }
            let view = author.mutableSetValue(forKey: "books")
            view.addObjects(from: [books[0], books[1]])
            #expect(author.books == [books[0], books[1]] && books[1].author === author)
            view.union(Set<AnyHashable>([books[2], books[3]]))
            #expect(author.books.count == 4)
            view.minus(Set<AnyHashable>([books[0]]))
            #expect(!author.books.contains(books[0]) && books[0].author == nil)
            view.intersect(Set<AnyHashable>([books[1], books[2]]))
            #expect(author.books == [books[1], books[2]] && books[3].author == nil)
            view.setSet(Set<AnyHashable>([books[0], books[1]]))
            #expect(author.books == [books[0], books[1]])
            view.filter(using: NSPredicate(format: "title == 'b1'"))
            #expect(author.books == [books[1]])
            view.removeAllObjects()
            #expect(author.books.isEmpty && books[1].author == nil)
        }
    }

    /// Every mutation method of the ordered view changes the relationship, in order, with the inverse.
    @Test func everyOrderedSetMutationChangesTheRelationship() throws {
        let context = try inMemoryContext()
        context.performAndWait {
            let author = Author(context: context)
            let drafts = (0..<6).map { index -> Draft in
                let draft = Draft(context: context)
                draft.text = "d\(index)"
                return draft
            }
            let view = author.mutableOrderedSetValue(forKey: "drafts")
            func texts() -> [String] { author.drafts.map { $0.text ?? "?" } }
            view.addObjects(from: [drafts[0], drafts[3]])
            view.insert([drafts[1], drafts[2]], at: IndexSet([1, 2]))
            #expect(texts() == ["d0", "d1", "d2", "d3"])
            view.replaceObjects(at: IndexSet([0]), with: [drafts[4]])
            #expect(texts() == ["d4", "d1", "d2", "d3"] && drafts[0].author == nil && drafts[4].author === author)
            view.exchangeObject(at: 0, withObjectAt: 3)
            #expect(texts() == ["d3", "d1", "d2", "d4"])
            view.moveObjects(at: IndexSet([0]), to: 3)
            #expect(texts() == ["d1", "d2", "d4", "d3"])
            view.removeObjects(at: IndexSet([0, 2]))
            #expect(texts() == ["d2", "d3"])
            view.setObject(drafts[5], at: 2)
            #expect(texts() == ["d2", "d3", "d5"])
            view.removeObjects(in: NSRange(location: 0, length: 1))
            view.removeObjects(in: [drafts[5]])
            #expect(texts() == ["d3"])
            view.union(NSOrderedSet(array: [drafts[0], drafts[1]]))
            view.minus(NSOrderedSet(array: [drafts[3]]))
            #expect(texts() == ["d0", "d1"])
            view.intersectSet(Set<AnyHashable>([drafts[1]]))
            #expect(texts() == ["d1"])
            view.removeAllObjects()
            #expect(texts().isEmpty && drafts[1].author == nil)
        }
    }
}

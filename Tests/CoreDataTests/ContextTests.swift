import Testing
import CoreData

@Suite struct ContextTests {
    @Test func performAndWaitIsReentrantAndReturnsValues() throws {
        let context = try inMemoryContext()
        let count = try context.performAndWait { () throws -> Int in
            let author = Author(context: context)
            author.name = "Ann"
            context.performAndWait { author.age = 3 }
            try context.save()
            return try context.count(for: NSFetchRequest<Author>(entityName: "Author"))
        }
        #expect(count == 1)
    }

    @Test func asyncPerformRunsOnTheContextQueue() async throws {
        let context = try inMemoryContext()
        let name = try await context.perform {
            let author = Author(context: context)
            author.name = "Queued"
            try context.save()
            return try context.fetch(NSFetchRequest<Author>(entityName: "Author")).first?.name
        }
        #expect(name == "Queued")
    }

    /// Apple's newer spelling, as "Using Core Data in the background" writes it: `NSManagedObjectContext(.privateQueue)`.
    @Test func theConcurrencyTypeSpellingMakesTheSameContexts() throws {
        let writer = try inMemoryContext()
        let background = NSManagedObjectContext(.privateQueue)
        #expect(background.concurrencyType == .privateQueueConcurrencyType)
        #expect(NSManagedObjectContext(.mainQueue).concurrencyType == .mainQueueConcurrencyType)
        background.persistentStoreCoordinator = writer.persistentStoreCoordinator
        let names = try background.performAndWait {
            Author(context: background).name = "Bea"
            try background.save()
            return try background.fetch(NSFetchRequest<Author>(entityName: "Author")).map(\.name)
        }
        #expect(names == ["Bea"])
    }

    @Test func saveNotificationMergesIntoAnotherContext() throws {
        let writer = try inMemoryContext()
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = writer.persistentStoreCoordinator
        let author = try writer.performAndWait {
            let author = Author(context: writer)
            author.name = "Before"
            try writer.save()
            return author
        }
        let seen = try reader.performAndWait { try #require(try reader.existingObject(with: author.objectID) as? Author) }
        #expect(reader.performAndWait { seen.name } == "Before")
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { note in
            reader.performAndWait { reader.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait {
            author.name = "After"
            try writer.save()
        }
        #expect(reader.performAndWait { seen.name } == "After")
        try writer.performAndWait {
            writer.delete(author)
            try writer.save()
        }
        #expect(reader.performAndWait { seen.managedObjectContext } == nil)
    }

    @Test func rollbackResetAndRefresh() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Saved"
            try context.save()
            author.name = "Changed"
            context.refresh(author, mergeChanges: true)
            #expect(author.name == "Changed", "refresh with merge keeps unsaved changes")
            context.refresh(author, mergeChanges: false)
            #expect(author.isFault)
            #expect(author.name == "Saved", "a refreshed fault reloads the saved value")
            let id = author.objectID
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            #expect((try context.existingObject(with: id) as? Author)?.name == "Saved")
        }
    }

    @Test func mergePolicies() throws {
        for (policy, expectedName, expectedAge) in [
            (NSMergeByPropertyObjectTrumpMergePolicy, "mine", Int64(99)),
            (NSMergeByPropertyStoreTrumpMergePolicy, "mine", Int64(50)),
            (NSOverwriteMergePolicy, "mine", Int64(18)),
            (NSRollbackMergePolicy, "Start", Int64(50)),
        ] as [(Any, String, Int64)] {
            let setup = try inMemoryContext()
            let author = try setup.performAndWait {
                let author = Author(context: setup)
                author.name = "Start"
                try setup.save()
                return author
            }
            let mine = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            mine.persistentStoreCoordinator = setup.persistentStoreCoordinator
            mine.mergePolicy = policy
            let myCopy = try mine.performAndWait { try #require(try mine.existingObject(with: author.objectID) as? Author) }
            try setup.performAndWait {
                author.age = 50
                try setup.save()
            }
            try mine.performAndWait {
                myCopy.name = "mine"
                if (policy as? NSMergePolicy) === NSMergePolicy.mergeByPropertyObjectTrump { myCopy.age = 99 }
                try mine.save()
            }
            let check = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            check.persistentStoreCoordinator = setup.persistentStoreCoordinator
            try check.performAndWait {
                let stored = try #require(try check.existingObject(with: author.objectID) as? Author)
                #expect(stored.name == expectedName, "\(policy)")
                #expect(stored.age == expectedAge, "\(policy)")
            }
        }
    }

    @Test func containerLoadsDescribedStores() throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: libraryModel())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        description.url = URL(fileURLWithPath: "/dev/null")
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
        container.persistentStoreDescriptions = [description]
        var errors: [Error] = []
        container.loadPersistentStores { _, error in if let error { errors.append(error) } }
        #expect(errors.isEmpty)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let author = Author(context: background)
            author.name = "Background"
            try background.save()
        }
        let viewContext = container.viewContext
        #expect(try viewContext.performAndWait { try viewContext.count(for: NSFetchRequest<Author>(entityName: "Author")) } == 1)
        #expect(container.viewContext.concurrencyType == .mainQueueConcurrencyType)
    }

    @Test func containerWithUnknownModelReportsWhereItLooked() {
        let container = NSPersistentContainer(name: "NoSuchModelAnywhere")
        var reported: NSError?
        container.loadPersistentStores { _, error in reported = error as NSError? }
        #expect(reported?.domain == NSCocoaErrorDomain)
        #expect(reported?.localizedDescription.contains("NoSuchModelAnywhere") == true)
    }
}

@Suite struct FetchRequestExecuteTests {
    @Test func executeRunsInTheContextOfTheEnclosingBlock() throws {
        let context = try inMemoryContext()
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Unsaved"
            let found = try NSFetchRequest<Author>(entityName: "Author").execute()
            #expect(found.map(\.name) == ["Unsaved"], "the enclosing context's pending insert is seen")
            let seenByOther = try other.performAndWait { try NSFetchRequest<Author>(entityName: "Author").execute() }
            #expect(seenByOther.isEmpty, "the innermost context is used")
        }
        #expect(throws: NSError.self) { _ = try NSFetchRequest<Author>(entityName: "Author").execute() }
    }
}

import CoreData
import Testing

/// Fetched properties: read with `value(forKey:)`, fetched on first read with `$FETCH_SOURCE` bound to the
/// object, kept until the object is refreshed.
struct FetchedPropertyTests {
    enum Kind: String, CaseIterable { case inMemory, sqlite }

    static func model() -> NSManagedObjectModel {
        let model = libraryModel()
        let author = model.entitiesByName["Author"]!
        let long = NSFetchedPropertyDescription()
        long.name = "longBooks"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.predicate = NSPredicate(format: "author == $FETCH_SOURCE AND pages > 300")
        long.fetchRequest = request
        let namesakes = NSFetchedPropertyDescription()
        namesakes.name = "namesakes"
        namesakes.destinationEntityName = "Author"
        namesakes.fetchPredicate = NSPredicate(format: "name == $FETCH_SOURCE.name AND SELF != $FETCH_SOURCE")
        author.properties += [long, namesakes]
        return model
    }

    @Test(arguments: Kind.allCases)
    func fetchedOnReadAndKeptUntilRefresh(_ kind: Kind) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fetched-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: kind == .sqlite ? .sqlite : .inMemory, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let ann = Author(context: context), twin = Author(context: context), bob = Author(context: context)
            ann.name = "Ann"; twin.name = "Ann"; bob.name = "Bob"
            for (title, pages, author) in [("Short", 100, ann), ("Long", 500, ann), ("Other", 900, bob)] {
                let book = Book(context: context)
                book.title = title
                book.pages = pages
                book.author = author
            }
            try context.save()
            #expect((ann.value(forKey: "longBooks") as? [NSManagedObject])?.compactMap { ($0 as? Book)?.title } == ["Long"])
            #expect((ann.value(forKey: "namesakes") as? [NSManagedObject])?.map { $0 === twin } == [true])
            let epic = Book(context: context)
            epic.title = "Epic"
            epic.pages = 1000
            epic.author = ann
            #expect((ann.value(forKey: "longBooks") as? [NSManagedObject])?.count == 1, "kept until the object is refreshed")
            context.refresh(ann, mergeChanges: true)
            #expect((ann.value(forKey: "longBooks") as? [NSManagedObject])?.count == 2, "fetched again after a refresh")
        }
    }

    /// `$FETCH_SOURCE` in every spelling a model or code uses: with `%K` on either side, after the variable
    /// (`$FETCH_SOURCE.%K`), in key paths, and with `IN`.
    @Test(arguments: [
        ("%K == $FETCH_SOURCE", ["author"]),
        ("author.name == $FETCH_SOURCE.name", []),
        ("SELF IN $FETCH_SOURCE.books", []),
        ("%K.name == $FETCH_SOURCE.%K", ["author", "name"]),
        ("author == $FETCH_SOURCE AND %K > 300", ["pages"]),
    ] as [(String, [String])])
    func fetchSourceInEverySpelling(_ format: String, _ keys: [String]) throws {
        let model = libraryModel()
        let fetched = NSFetchedPropertyDescription()
        fetched.name = "mine"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.predicate = NSPredicate(format: format, argumentArray: keys)
        fetched.fetchRequest = request
        model.entitiesByName["Author"]!.properties += [fetched]
        let context = try inMemoryContext(model: model)
        try context.performAndWait {
            let ann = Author(context: context), bob = Author(context: context)
            ann.name = "Ann"
            bob.name = "Bob"
            for (title, author) in [("Ann's", ann), ("Bob's", bob)] {
                let book = Book(context: context)
                book.title = title
                book.pages = 500
                book.author = author
            }
            try context.save()
            let titles = (ann.value(forKey: "mine") as? [NSManagedObject])?.compactMap { ($0 as? Book)?.title }
            #expect(titles == ["Ann's"], "\(format)")
        }
    }
}

// The code of the DocC articles (Sources/*/…docc, Conformance/…docc), compiled and run: change both together.
import Testing
import CoreData
import CoreDataConformance

/// "Getting started on Linux": the model in code, a background context, a save and a fetch.
@Suite struct GettingStartedArticleTests {
    @Test func savesAndFetchesOnABackgroundContext() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("getting-started-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
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
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent("Library.sqlite"))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)

        let context = container.newBackgroundContext()
        var found: [(String, Int32)] = []
        try context.performAndWait {
            let ursula = Author(context: context)
            ursula.name = "Ursula K. Le Guin"
            let novel = Book(context: context)
            novel.title = "The Dispossessed"
            novel.pages = 387
            novel.author = ursula
            try context.save()

            let request = NSFetchRequest<Book>(entityName: "Book")
            request.predicate = NSPredicate(format: "pages > %d AND author.name BEGINSWITH[c] %@", 300, "ursula")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            for book in try context.fetch(request) {
                found.append((book.title ?? "", book.pages))
            }
        }
        #expect(found.map(\.0) == ["The Dispossessed"])
        #expect(found.map(\.1) == [387])

        let reopened = NSPersistentContainer(name: "Library", managedObjectModel: model)
        reopened.persistentStoreDescriptions = container.persistentStoreDescriptions
        reopened.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let viewContext = reopened.viewContext
        let again = try viewContext.performAndWait {
            try viewContext.fetch(NSFetchRequest<Author>(entityName: "Author")).map { $0.books.compactMap(\.title) }
        }
        #expect(again == [["The Dispossessed"]])
    }
}

/// "Writing a store plugin": the JSON store keeps every attribute type and relationship across a reopen, and
/// refuses files that are not its own.
@Suite struct JSONStoreArticleTests {
    static let type = NSPersistentStore.StoreType(rawValue: "JSON")

    /// A model with an attribute of each type a store keeps, a to-one and an ordered to-many.
    static func model() -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item")
        let list = NSEntityDescription(name: "List")
        let items = NSRelationshipDescription(name: "items", destination: item, toMany: true)
        items.isOrdered = true
        let owner = NSRelationshipDescription(name: "list", destination: list, toMany: false)
        items.inverseRelationship = owner
        owner.inverseRelationship = items
        list.properties = [NSAttributeDescription(name: "name", type: .string), items]
        item.properties = [
            NSAttributeDescription(name: "small", type: .integer16), NSAttributeDescription(name: "medium", type: .integer32),
            NSAttributeDescription(name: "large", type: .integer64), NSAttributeDescription(name: "real", type: .double),
            NSAttributeDescription(name: "single", type: .float), NSAttributeDescription(name: "price", type: .decimal),
            NSAttributeDescription(name: "flag", type: .boolean), NSAttributeDescription(name: "when", type: .date),
            NSAttributeDescription(name: "bytes", type: .binaryData), NSAttributeDescription(name: "identifier", type: .uuid),
            NSAttributeDescription(name: "link", type: .uri), NSAttributeDescription(name: "title", type: .string), owner,
        ]
        return NSManagedObjectModel(entities: [item, list])
    }

    static func coordinator(_ model: NSManagedObjectModel, at url: URL) throws -> NSPersistentStoreCoordinator {
        NSPersistentStoreCoordinator.registerStoreClass(JSONStore.self, type: type)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        return coordinator
    }

    @Test func keepsEveryAttributeTypeAndRelationshipAcrossAReopen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("json-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Items.json")
        let model = Self.model()
        let identifier = UUID()
        let when = Date(timeIntervalSinceReferenceDate: 123_456.75)
        let link = try #require(URL(string: "https://example.com/a?b=c"))
        let price = Decimal(1999) / 100

        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = try Self.coordinator(model, at: url)
        try context.performAndWait {
            let list = NSEntityDescription.insertNewObject(forEntityName: "List", into: context)
            list.setValue("Errands", forKey: "name")
            for title in ["first", "second"] {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(title, forKey: "title")
                item.setValue(list, forKey: "list")
            }
            let first = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first { $0.value(forKey: "title") as? String == "first" }
            let values: [String: Any] = ["small": Int16(-7), "medium": Int32(70_000), "large": Int64(1) << 60, "real": 0.1,
                                         "single": Float(2.5), "price": price, "flag": true,
                                         "when": when, "bytes": Data([0, 1, 2, 255]), "identifier": identifier,
                                         "link": link]
            for (key, value) in values { first?.setValue(value, forKey: key) }
            try context.save()
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("{"))

        let reopened = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reopened.persistentStoreCoordinator = try Self.coordinator(model, at: url)
        try reopened.performAndWait {
            let lists = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "List"))
            #expect(lists.count == 1)
            let items = lists.first?.value(forKey: "items") as? NSOrderedSet
            let titles = items?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
            #expect(titles == ["first", "second"])
            let first = items?.firstObject as? NSManagedObject
            #expect(first?.value(forKey: "small") as? Int16 == -7)
            #expect(first?.value(forKey: "medium") as? Int32 == 70_000)
            #expect(first?.value(forKey: "large") as? Int64 == Int64(1) << 60)
            #expect(first?.value(forKey: "real") as? Double == 0.1)
            #expect(first?.value(forKey: "single") as? Float == 2.5)
            #expect((first?.value(forKey: "price") as? NSDecimalNumber)?.decimalValue == price)
            #expect(first?.value(forKey: "flag") as? Bool == true)
            #expect(first?.value(forKey: "when") as? Date == when)
            #expect(first?.value(forKey: "bytes") as? Data == Data([0, 1, 2, 255]))
            #expect(first?.value(forKey: "identifier") as? UUID == identifier)
            #expect(first?.value(forKey: "link") as? URL == link)
            #expect((first?.value(forKey: "list") as? NSManagedObject)?.value(forKey: "name") as? String == "Errands")
        }
    }

    /// The article shows this target's `JSONStore.swift` (after its two comment lines) as its one code listing
    /// of the store, so what readers copy is what these tests run.
    @Test func theArticleShowsTheTestedStoreWordForWord() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: tests.appendingPathComponent("JSONStore.swift"), encoding: .utf8)
        let article = try String(contentsOf: tests.appendingPathComponent("../../Sources/CoreDataStoreKit/CoreDataStoreKit.docc/WritingAStorePlugin.md"),
                                 encoding: .utf8)
        let body = source.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).last.map(String.init) ?? ""
        #expect(body.hasPrefix("import CoreData\n"))
        #expect(article.contains("```swift\n" + body + "```\n"))
    }

    @Test func refusesAFileThatIsNotAJSONStoreAndLeavesIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("json-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Notes.json")
        let bytes = Data("[1, 2, 3]\n".utf8)
        try bytes.write(to: url)
        let error = #expect(throws: NSError.self) { try Self.coordinator(Self.model(), at: url) }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
        #expect(try Data(contentsOf: url) == bytes)
    }
}

/// "Running the conformance suite": the whole suite against the JSON store.
@Suite struct JSONStoreConformanceTests {
    static let plan: ConformancePlan = {
        NSPersistentStoreCoordinator.registerStoreClass(JSONStore.self, forStoreType: "JSON")
        return ConformancePlan(ConformanceConfiguration(storeTypeName: "JSON"))
    }()

    @Test(arguments: plan.applicable)
    func conformance(_ testCase: ConformanceCase) throws {
        try Self.plan.run(testCase)
    }

    @Test(.disabled(if: !plan.skipped.isEmpty, Comment(rawValue: plan.skipReport)), arguments: plan.skipped)
    func skipped(_ testCase: ConformanceCase) {}
}

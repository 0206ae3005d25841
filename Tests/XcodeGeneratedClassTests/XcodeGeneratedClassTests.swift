import CoreData
import Foundation
import Testing
import XcodeGeneratedClasses

/// Xcode's generated entity classes (`Entity+CoreDataClass.swift` and `Entity+CoreDataProperties.swift`, with
/// `@NSManaged` properties and relationship methods) in a module of their own, built with the package's plugin,
/// which generates the accessors Swift on Linux leaves undefined. Used from this module, as an app uses them: with
/// a container's view context, on the main actor.
@Suite @MainActor struct XcodeGeneratedClassTests {
    private let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("XcodeGeneratedClassTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    @Test(arguments: [(NSSQLiteStoreType, "Library.sqlite"), (NSXMLStoreType, "Library.xml"), (NSBinaryStoreType, "Library.bin")])
    func everyAccessorWorksAndSurvivesAReopen(type: String, file: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let failures = try checkLibraryAccessors(storeType: type, at: folder.appendingPathComponent(file))
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Primitive accessors (`@NSManaged var primitivePublished: Date?`, which Core Data provides for each modeled
    /// property) read and write the property they name, as custom accessors use them; the change is saved.
    @Test func primitiveAccessorsReachTheirProperty() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Primitive.sqlite")
        do {
            let container = try loadLibrary(storeType: NSSQLiteStoreType, at: url)
            let context = container.viewContext
            let book = Book(context: context)
            book.title = "Primitive"
            let author = Author(context: context)
            book.author = author
            book.setPublishedYear(1965)
            #expect(book.publishedYear == 1965)
            #expect(book.published != nil)
            #expect(book.authorThroughPrimitive === author)
            try context.save()
        }
        let reopened = try loadLibrary(storeType: NSSQLiteStoreType, at: url)
        let books = try reopened.viewContext.fetch(Book.fetchRequest())
        #expect(books.map(\.publishedYear) == [1965])
    }

    /// A computed property of an entity class answers key-value coding (the build plugin registers it, as
    /// Objective-C's key-value coding calls an `@objc` one), so a fetched results controller can section by it,
    /// as Apple's sample code sections books by a custom accessor; after a reopen too.
    @Test func computedPropertiesAnswerKeyValueCoding() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Sections.sqlite")
        do {
            let context = try loadLibrary(storeType: NSSQLiteStoreType, at: url).viewContext
            for (title, year) in [("Dune", 1965), ("Emma", 1815), ("Ubik", 1969), ("Solaris", 1961)] {
                let book = Book(context: context)
                book.title = title
                book.setPublishedYear(year)
            }
            try context.save()
        }
        let context = try loadLibrary(storeType: NSSQLiteStoreType, at: url).viewContext
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "published", ascending: true)]
        let books = try context.fetch(request)
        #expect(books.map { $0.value(forKey: "publishedYear") as? Int } == [1815, 1961, 1965, 1969])
        #expect(books.first?.value(forKeyPath: "publishedYear") as? Int == 1815)

        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "publishedYear", cacheName: nil)
        try controller.performFetch()
        #expect(controller.sections?.map(\.name) == ["1815", "1961", "1965", "1969"])

        // The plugin's table lists the settable computed property: key-value coding calls its setter.
        let emma = try #require(books.first)
        emma.setValue(NSNumber(value: 1816), forKey: "publishedYearNumber")
        #expect(emma.value(forKey: "publishedYear") as? Int == 1816)
        #expect(emma.changedValues()["published"] != nil, "the setter changed the modeled date")
    }

    /// A setter takes its new value owned and a getter returns an owned value: with a wrong convention a value
    /// would leak (and stay alive here) or be released once too often (and crash).
    @Test func valuesPassedThroughAccessorsAreReleased() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        weak var released: NSDictionary?
        do {
            let container = try loadLibrary(storeType: NSInMemoryStoreType, at: folder.appendingPathComponent("memory"))
            let context = container.viewContext
            let book = Book(context: context)
            for round in 0..<1_000 {
                let notes = NSDictionary(dictionary: ["round": round])
                book.notes = notes
                #expect((book.notes?["round"] as? Int) == round)
            }
            let last = NSDictionary(dictionary: ["round": -1])
            released = last
            book.notes = last
            book.notes = nil
            context.reset()
        }
        #expect(released == nil, "the last value set through the setter is still alive")
    }

    /// The generated methods name relationships as Xcode does; the entity's relationship is found by name.
    @Test func generatedRelationshipMethodsKeepBothSidesInStep() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = try loadLibrary(storeType: NSInMemoryStoreType, at: folder.appendingPathComponent("memory"))
        let context = container.viewContext
        let author = Author(context: context)
        let books = (0..<3).map { _ in Book(context: context) }
        author.addToBooks(NSSet(array: books))
        #expect(author.books?.count == 3)
        #expect(books.allSatisfy { $0.author === author })
        author.removeFromBooks(books[0])
        #expect(books[0].author == nil)
        #expect(author.books?.count == 2)
    }
}

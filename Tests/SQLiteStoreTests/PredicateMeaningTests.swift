import CoreData
import Foundation
import Testing

/// Predicates the fuzzing harness found refused by the SQLite store (a value left bound after part of a
/// comparison fell back to memory: error 25) or answered differently by the SQLite and in-memory stores. Each
/// runs on both stores and must return the objects Apple's documented meaning selects (Docs/Decisions.md,
/// "Predicate semantics").
@Suite struct PredicateMeaningTests {
    /// Authors `Ann`, `e`, `E`, `` (empty) and `a?e`, with books (one with a note); see `populate`.
    static func model() -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author")
        let book = NSEntityDescription(name: "Book")
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true, deleteRule: .cascadeDeleteRule)
        let writer = NSRelationshipDescription(name: "author", destination: author, toMany: false)
        books.inverseRelationship = writer
        writer.inverseRelationship = books
        author.properties = [
            NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "age", type: .integer64),
            NSAttributeDescription(name: "note", type: .string), books,
        ]
        book.properties = [
            NSAttributeDescription(name: "title", type: .string), NSAttributeDescription(name: "price", type: .double),
            NSAttributeDescription(name: "pages", type: .integer32), NSAttributeDescription(name: "note", type: .string), writer,
        ]
        return NSManagedObjectModel(entities: [author, book])
    }

    /// Fills `context` (on its queue) and saves.
    static func populate(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let authors: [(String, Int64, String?, [(String, Double, Int32)])] = [
                ("Ann", 30, nil, [("Swift", 20, 300), ("Ode", 5.5, 50)]),
                ("e", 25, "x", [("Café", 12, 100)]),
                ("E", 41, "", []),
                ("", 20, "memo", [("data", 11, 3)]),
                ("a?e", 50, "abc", [("Tea", 30, 5), ("Atlas", 15, 500)]),
            ]
            for (name, age, note, books) in authors {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue(name, forKey: "name")
                author.setValue(age, forKey: "age")
                author.setValue(note, forKey: "note")
                for (title, price, pages) in books {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue(title, forKey: "title")
                    book.setValue(price, forKey: "price")
                    book.setValue(pages, forKey: "pages")
                    book.setValue(author, forKey: "author")
                    if title == "Café" { book.setValue("x", forKey: "note") }
                }
            }
            try context.save()
        }
    }

    /// The names of the authors `format` fetches on a fresh store of `type` (and the count must agree).
    func authors(_ format: String, _ arguments: [Any] = [], on type: NSPersistentStore.StoreType) throws -> Set<String> {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("predicate-meaning-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try coordinator.addPersistentStore(type: type, at: directory.appendingPathComponent("store"))
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try Self.populate(context)
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        return try fresh.performAndWait {
            let names = Set(try fresh.fetch(request).map { $0.value(forKey: "name") as? String ?? "nil" })
            #expect(try fresh.count(for: request) == names.count, "count(for:) of \(format)")
            return names
        }
    }

    static let stores: [NSPersistentStore.StoreType] = [.sqlite, .inMemory]

    @Test(arguments: stores) func aValueIsNeverLeftBoundWhenPartOfAComparisonFallsBackToMemory(_ type: NSPersistentStore.StoreType) throws {
        #expect(try authors("'a*e' LIKE[c] name", on: type) == ["a?e"])
        #expect(try authors("age BETWEEN {20, 40 / 40}", on: type) == [])
        #expect(try authors("name LIKE -1e-999", on: type) == [])
        #expect(try authors("SUBQUERY(books, $b, $b.price > 10 AND ALL $b.title CONTAINS 'a').@count == 1", on: type) == ["e", ""])
        #expect(try authors("name == 'Ann' OR age BETWEEN {20, 40 / 40}", on: type) == ["Ann"])
        #expect(try authors("NOT (name BEGINSWITH 'e' AND 'x' LIKE note)", on: type) == ["Ann", "E", "", "a?e"])
    }

    @Test(arguments: stores) func aToManyKeyPathWithoutQuantifierComparesTheCollection(_ type: NSPersistentStore.StoreType) throws {
        #expect(try authors("books.pages > 5", on: type) == [])
        #expect(try authors("ANY books.pages > 5", on: type) == ["Ann", "e", "a?e"])
        #expect(try authors("books.title CONTAINS 'Ode'", on: type) == ["Ann"])
    }

    @Test(arguments: stores) func theRightSideOfAQuantifiedComparisonIsReadFromTheObject(_ type: NSPersistentStore.StoreType) throws {
        // Each author's note against its books' notes (nil equals nil), not each book's note against itself.
        #expect(try authors("ANY books.note == note", on: type) == ["Ann", "e"])
        #expect(try authors("ALL books.note != note", on: type) == ["E", "", "a?e"])
    }

    @Test(arguments: stores) func aConstantOnTheLeftIsTheStringTested(_ type: NSPersistentStore.StoreType) throws {
        #expect(try authors("'E' ENDSWITH[c] name", on: type) == ["e", "E"])
        #expect(try authors("45 < age", on: type) == ["a?e"])
    }

    @Test(arguments: stores) func theEmptyStringBeginsNothing(_ type: NSPersistentStore.StoreType) throws {
        #expect(try authors("note != nil AND note BEGINSWITH ''", on: type) == [])
        #expect(try authors("note ENDSWITH '' OR note CONTAINS ''", on: type) == [])
        #expect(try authors("note == ''", on: type) == ["E"])
    }

    @Test(arguments: stores) func inWithAStringArgumentIsSubstringContainment(_ type: NSPersistentStore.StoreType) throws {
        #expect(try authors("name IN %@", ["Ann and a?e"], on: type) == ["Ann", "e", "a?e"])
        #expect(try authors("name IN[c] %@", ["ANN"], on: type) == ["Ann"])
    }
}

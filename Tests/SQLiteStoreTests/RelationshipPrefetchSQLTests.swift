import Testing
import CoreData
import CoreDataStoreKit
import StoreTestSupport

/// `relationshipKeyPathsForPrefetching` on SQLite, counted with the SQL debug observer: each key path step is one
/// `SELECT` for all the objects of the step before (one per 1,024 objects), and reading what was prefetched runs
/// no statement at all.
@Suite struct RelationshipPrefetchSQLTests {
    /// Author —< Book (title), Book >—< Shelf (label).
    static func model() -> NSManagedObjectModel {
        let books = NSRelationshipDescription(name: "books", destination: nil, toMany: true)
        let author = NSRelationshipDescription(name: "author", destination: nil, toMany: false)
        let shelves = NSRelationshipDescription(name: "shelves", destination: nil, toMany: true)
        let shelfBooks = NSRelationshipDescription(name: "books", destination: nil, toMany: true)
        let authorEntity = entity("Author", [attribute("name", .string), books])
        let bookEntity = entity("Book", [attribute("title", .string), author, shelves])
        let shelfEntity = entity("Shelf", [attribute("label", .string), shelfBooks])
        books.destinationEntity = bookEntity
        author.destinationEntity = authorEntity
        shelves.destinationEntity = shelfEntity
        shelfBooks.destinationEntity = bookEntity
        inverse(books, author)
        inverse(shelves, shelfBooks)
        return NSManagedObjectModel(entities: [authorEntity, bookEntity, shelfEntity])
    }

    /// Every statement a store runs, by database path.
    final class Statements: @unchecked Sendable {  // `lock` guards `records`; the observer appends from any thread
        private let lock = NSLock()
        private var records: [SQLStatementRecord] = []
        func append(_ record: SQLStatementRecord) { lock.withLock { records.append(record) } }
        /// The `SELECT`s run on `database` while `body` ran.
        func selects<T>(on database: URL, during body: () throws -> T) rethrows -> (result: T, sql: [String]) {
            let start = lock.withLock { records.count }
            let result = try body()
            let sql = lock.withLock { records[start...].filter { $0.database == database.path && $0.sql.hasPrefix("SELECT") }.map(\.sql) }
            return (result, sql)
        }
    }

    /// A store of `authors` authors with `booksEach` books each (book j of every author on shelf j % 3), and a
    /// new context on it.
    static func library(at url: URL, authors: Int, booksEach: Int) throws -> NSManagedObjectContext {
        let context = try openStore(.sqlite, at: url, model: model())
        try context.performAndWait {
            let shelves = (0..<3).map { index -> NSManagedObject in
                let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                shelf.setValue("shelf \(index)", forKey: "label")
                return shelf
            }
            for number in 0..<authors {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue(String(format: "author %05d", number), forKey: "name")
                for index in 0..<booksEach {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue("book \(number).\(index)", forKey: "title")
                    book.setValue(author, forKey: "author")
                    book.setValue(Set([shelves[index % 3]]), forKey: "shelves")
                }
            }
            try context.save()
        }
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        return fresh
    }

    static func authors(prefetching keyPaths: [String], faults: Bool = false) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.relationshipKeyPathsForPrefetching = keyPaths
        request.returnsObjectsAsFaults = faults
        return request
    }

    /// Reads every author's name, books, their titles, authors and shelves; returns how many books it read.
    static func readEverything(_ authors: [NSManagedObject]) -> Int {
        var count = 0
        for author in authors {
            _ = author.value(forKey: "name")
            for case let book as NSManagedObject in (author.value(forKey: "books") as? Set<NSManagedObject>) ?? [] {
                _ = book.value(forKey: "title")
                _ = (book.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name")
                count += 1
            }
        }
        return count
    }

    @Test(arguments: [false, true])
    func aToManyIsOneQueryAndReadingItRunsNone(faults: Bool) throws {
        let directory = TemporaryDirectory(prefix: "prefetch-sql")
        let url = directory.file("store.sqlite")
        let context = try Self.library(at: url, authors: 50, booksEach: 3)
        let statements = Statements()
        let observation = SQLDebugLog.addObserver { statements.append($0) }
        defer { SQLDebugLog.removeObserver(observation) }
        try context.performAndWait {
            let (authors, fetchSQL) = try statements.selects(on: url) { try context.fetch(Self.authors(prefetching: ["books"], faults: faults)) }
            #expect(authors.count == 50)
            #expect(fetchSQL.count == 2, "the fetch and one prefetch query: \(fetchSQL)")
            #expect(fetchSQL.last?.contains("FROM ZBOOK t0 WHERE t0.ZAUTHOR IN (") == true, "books by author: \(fetchSQL)")
            let (books, readSQL) = statements.selects(on: url) { Self.readEverything(authors) }
            #expect(books == 150)
            #expect(readSQL.isEmpty, "reading the prefetched books and their authors runs no statement: \(readSQL)")
        }

        let plain = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        plain.persistentStoreCoordinator = context.persistentStoreCoordinator
        try plain.performAndWait {
            let authors = try plain.fetch(Self.authors(prefetching: [], faults: faults))
            let (books, readSQL) = statements.selects(on: url) { Self.readEverything(authors) }
            #expect(books == 150)
            #expect(readSQL.count >= 50, "without prefetching each author's books are one query: \(readSQL.count)")
        }
    }

    @Test func eachStepOfAChainIsOneQuery() throws {
        let directory = TemporaryDirectory(prefix: "prefetch-sql")
        let url = directory.file("store.sqlite")
        let context = try Self.library(at: url, authors: 40, booksEach: 4)
        let statements = Statements()
        let observation = SQLDebugLog.addObserver { statements.append($0) }
        defer { SQLDebugLog.removeObserver(observation) }
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Shelf")
            request.sortDescriptors = [NSSortDescriptor(key: "label", ascending: true)]
            request.relationshipKeyPathsForPrefetching = ["books.author", "books.shelves"]
            let (shelves, fetchSQL) = try statements.selects(on: url) { try context.fetch(request) }
            #expect(fetchSQL.count == 4, "the fetch, then books, their authors and their shelves, one query each: \(fetchSQL)")
            #expect(fetchSQL.filter { $0.contains("FROM Z_2SHELVES j JOIN") }.count == 2, "books and shelves through the join table: \(fetchSQL)")
            #expect(fetchSQL.contains { $0.contains("s JOIN ZAUTHOR t0 ON t0.Z_PK = s.ZAUTHOR") }, "authors through the books' key: \(fetchSQL)")
            let (names, readSQL) = statements.selects(on: url) {
                shelves.flatMap { shelf in
                    ((shelf.value(forKey: "books") as? Set<NSManagedObject>) ?? []).flatMap { book in
                        [(book.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String]
                            + ((book.value(forKey: "shelves") as? Set<NSManagedObject>) ?? []).map { $0.value(forKey: "label") as? String }
                    }
                }
            }
            #expect(names.count == 320 && !names.contains(nil), "every book's author and shelf")
            #expect(readSQL.isEmpty, "reading books, authors and shelves runs no statement: \(readSQL)")

            let (_, heldSQL) = try statements.selects(on: url) { try context.fetch(request) }
            #expect(heldSQL.count == 1, "fetched again, only the fetch runs: what the context holds is not read again: \(heldSQL)")
        }
    }

    @Test func theFaultsOfAToManyReadBeforeGetTheirRows() throws {
        let directory = TemporaryDirectory(prefix: "prefetch-sql")
        let url = directory.file("store.sqlite")
        let context = try Self.library(at: url, authors: 20, booksEach: 3)
        let statements = Statements()
        let observation = SQLDebugLog.addObserver { statements.append($0) }
        defer { SQLDebugLog.removeObserver(observation) }
        try context.performAndWait {
            // The rows the library's save left in the coordinator's row cache are not used: the books' rows are
            // read from the store, and the statements show it.
            context.stalenessInterval = 0
            let first = try context.fetch(Self.authors(prefetching: []))
            let faults = first.flatMap { ($0.value(forKey: "books") as? Set<NSManagedObject>) ?? [] }
            #expect(faults.count == 60 && faults.allSatisfy(\.isFault), "books read through the relationship are faults")
            let (authors, fetchSQL) = try statements.selects(on: url) { try context.fetch(Self.authors(prefetching: ["books"])) }
            #expect(fetchSQL.count == 2 && fetchSQL.last?.contains("t0.Z_PK IN (") == true,
                    "the relationships are held, so only the books' rows are read, in one query: \(fetchSQL)")
            let (books, readSQL) = statements.selects(on: url) { Self.readEverything(authors) }
            #expect(books == 60 && readSQL.isEmpty, "reading the books runs no statement: \(readSQL)")
        }
    }

    @Test func manyObjectsAreReadInChunksOfOneQueryEach() throws {
        let directory = TemporaryDirectory(prefix: "prefetch-sql")
        let url = directory.file("store.sqlite")
        let context = try Self.library(at: url, authors: 1_100, booksEach: 1)
        let statements = Statements()
        let observation = SQLDebugLog.addObserver { statements.append($0) }
        defer { SQLDebugLog.removeObserver(observation) }
        try context.performAndWait {
            let (authors, fetchSQL) = try statements.selects(on: url) { try context.fetch(Self.authors(prefetching: ["books"])) }
            #expect(authors.count == 1_100)
            #expect(fetchSQL.filter { $0.contains("FROM ZBOOK") }.count == 2, "1,100 authors: two chunks of at most 1,024")
            let (books, readSQL) = statements.selects(on: url) { Self.readEverything(authors) }
            #expect(books == 1_100 && readSQL.isEmpty, "every book prefetched: \(readSQL.count) statements")
        }
    }
}

import CSQLite
import CoreData
import Foundation

/// Prefetching (`relationshipKeyPathsForPrefetching`): fetch every author of a SQLite store and read the title of
/// each of their books, without prefetching (one query per author's books, then one per book), with
/// `["books"]` prefetched (two queries), and as one raw SQLite join over the same file for comparison.
struct PrefetchBenchmarkResult {
    let authors: Int
    let booksEach: Int
    /// Median seconds of each side.
    let withoutPrefetching: Double
    let prefetching: Double
    let rawJoin: Double

    /// The result as the report's lines.
    var report: String {
        func line(_ name: String, _ time: Double) -> String {
            "| \(name) | \(ms(time)) | \(String(format: "%.1f×", time / rawJoin)) |"
        }
        return ["\nPrefetching: fetch \(authors) authors and read the title of each of their \(booksEach) books (SQLite)",
                "| side | median | / raw join |", "|---|---:|---:|",
                line("without prefetching", withoutPrefetching), line("relationshipKeyPathsForPrefetching = [\"books\"]", prefetching),
                line("raw SQLite join", rawJoin)].joined(separator: "\n")
    }
}

/// Runs the prefetch workload `repetitions` times on a store of `authors` × `booksEach` books, made once.
func benchmarkPrefetching(authors: Int = 1_000, booksEach: Int = 10, repetitions: Int) throws -> PrefetchBenchmarkResult {
    let model = prefetchBenchmarkModel()
    let url = scratchURL("prefetch.sqlite")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    try withPrefetchContext(model, url) { context in
        try context.performAndWait {
            for number in 0..<authors {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("author \(number)", forKey: "name")
                for index in 0..<booksEach {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue("book \(number).\(index)", forKey: "title")
                    book.setValue(author, forKey: "author")
                }
            }
            try context.save()
        }
    }
    var without: [Double] = [], with: [Double] = [], raw: [Double] = []
    for _ in 0..<repetitions {
        without.append(try timeReadingBooks(model, url, prefetching: [], expected: authors * booksEach))
        with.append(try timeReadingBooks(model, url, prefetching: ["books"], expected: authors * booksEach))
        raw.append(try timeRawJoin(url, expected: authors * booksEach))
    }
    return PrefetchBenchmarkResult(authors: authors, booksEach: booksEach, withoutPrefetching: median(without),
                                   prefetching: median(with), rawJoin: median(raw))
}

/// Author (name) —< Book (title).
private func prefetchBenchmarkModel() -> NSManagedObjectModel {
    let author = NSEntityDescription(name: "Author"), book = NSEntityDescription(name: "Book")
    let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
    let bookAuthor = NSRelationshipDescription(name: "author", destination: author, toMany: false)
    books.inverseRelationship = bookAuthor
    bookAuthor.inverseRelationship = books
    author.properties = [NSAttributeDescription(name: "name", type: .string), books]
    book.properties = [NSAttributeDescription(name: "title", type: .string), bookAuthor]
    return NSManagedObjectModel(entities: [author, book])
}

/// Runs `body` with a context on a new coordinator of the store at `url` (opened outside any timing).
private func withPrefetchContext<T>(_ model: NSManagedObjectModel, _ url: URL, _ body: (NSManagedObjectContext) throws -> T) throws -> T {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .sqlite, at: url)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return try body(context)
}

/// Seconds to fetch every author (prefetching `keyPaths`) and read every book's title, in a new coordinator.
private func timeReadingBooks(_ model: NSManagedObjectModel, _ url: URL, prefetching keyPaths: [String], expected: Int) throws -> Double {
    try withPrefetchContext(model, url) { context in
        try context.performAndWait {
            var titles = 0
            let time = try seconds {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
                request.relationshipKeyPathsForPrefetching = keyPaths
                for author in try context.fetch(request) {
                    for case let book as NSManagedObject in (author.value(forKey: "books") as? Set<NSManagedObject>) ?? [] {
                        titles += (book.value(forKey: "title") as? String)?.utf8.count ?? 0
                    }
                }
            }
            guard titles > expected else { throw RawFailure(description: "prefetch benchmark read too few titles (\(titles) characters)") }
            return time
        }
    }
}

/// Seconds to read every author's name and every book's title with one raw join over the store's file.
private func timeRawJoin(_ url: URL, expected: Int) throws -> Double {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw RawFailure(description: "open") }
    defer { sqlite3_close_v2(db) }
    var rows = 0
    let time = try seconds {
        var statement: OpaquePointer?
        let sql = "SELECT a.Z_PK, a.ZNAME, b.Z_PK, b.ZTITLE FROM ZAUTHOR a LEFT JOIN ZBOOK b ON b.ZAUTHOR = a.Z_PK"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw RawFailure(description: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW {
            let name = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
            let title = sqlite3_column_text(statement, 3).map { String(cString: $0) } ?? ""
            rows += name.isEmpty || title.isEmpty ? 0 : 1
        }
    }
    guard rows == expected else { throw RawFailure(description: "the raw join read \(rows) books, not \(expected)") }
    return time
}

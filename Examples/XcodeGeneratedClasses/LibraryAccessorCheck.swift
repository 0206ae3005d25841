import CoreData
import Foundation

/// Uses every accessor of the Xcode-generated classes of this module (every attribute type, to-one, to-many,
/// ordered to-many and every generated relationship method) on a store, saves, reopens the store in a new
/// container and reads everything back. Shared by the tests (debug build) and `XcodeGeneratedClassesCheck`
/// (which CI builds in release, `-O` with whole-module optimization).
///
/// Returns the expectations that failed, as readable lines; empty when all held.
public func checkLibraryAccessors(storeType: String, at url: URL) throws -> [String] {
    var failures: [String] = []
    func expect(_ condition: Bool, _ what: String, line: Int = #line) {
        if !condition { failures.append("line \(line): \(what)") }
    }

    let container = try loadLibrary(storeType: storeType, at: url)
    let context = container.viewContext
    let cover = Data([0, 1, 2, 254, 255])
    let identifier = UUID()
    let published = Date(timeIntervalSinceReferenceDate: 700_000_000.5)

    let book = Book(context: context)
    expect(book.title == nil && book.pages == 0 && !book.inPrint && book.stock == nil, "a new book's values are empty")
    expect(book.price == NSDecimalNumber(value: 0), "a new book's price is the model's default, 0")
    expect(book.tags?.count ?? 0 == 0 && book.chapters?.count ?? 0 == 0, "a new book has no tags or chapters")
    book.title = "Middlemarch"
    book.pages = 880
    book.wordCount = 316_059
    book.isbn13 = 9_780_141_439_549
    book.rating = 4.5
    book.weight = 0.75
    book.inPrint = true
    book.published = published
    book.cover = cover
    book.identifier = identifier
    book.homepage = URL(string: "https://example.org/middlemarch")
    book.price = NSDecimalNumber(string: "12.99")
    book.stock = NSNumber(value: 42)
    book.notes = ["edition": "Penguin Classics"] as NSDictionary
    book.pages += 1

    let author = Author(context: context)
    author.name = "George Eliot"
    book.author = author
    expect(author.books?.contains(book) == true, "setting book.author adds the book to author.books")

    let classic = Tag(context: context)
    classic.name = "classic"
    let victorian = Tag(context: context)
    victorian.name = "victorian"
    let novel = Tag(context: context)
    novel.name = "novel"
    book.addToTags(classic)
    book.addToTags(NSSet(array: [victorian, novel]))
    book.removeFromTags(novel)
    expect(book.tags?.count == 2, "tags after adding three and removing one")
    expect(classic.books?.contains(book) == true, "addToTags updates the inverse")
    expect(novel.books?.count ?? 0 == 0, "removeFromTags updates the inverse")
    novel.addToBooks(book)
    novel.removeFromBooks(NSSet(object: book))
    expect(book.tags?.count == 2, "the inverse's generated methods change the book's tags")

    let chapters = (1...6).map { number -> Chapter in
        let chapter = Chapter(context: context)
        chapter.title = "Chapter \(number)"
        return chapter
    }
    book.addToChapters(chapters[0])                                             // 1
    book.addToChapters(NSOrderedSet(array: [chapters[2], chapters[3]]))         // 1 3 4
    book.insertIntoChapters(chapters[1], at: 1)                                 // 1 2 3 4
    book.insertIntoChapters([chapters[4], chapters[5]], at: NSIndexSet(indexesIn: NSRange(location: 4, length: 2)))  // 1 2 3 4 5 6
    book.removeFromChapters(at: 5)                                              // 1 2 3 4 5
    book.replaceChapters(at: 0, with: chapters[5])                              // 6 2 3 4 5
    book.replaceChapters(at: NSIndexSet(index: 0), with: [chapters[0]])         // 1 2 3 4 5
    book.removeFromChapters(at: NSIndexSet(indexesIn: NSRange(location: 3, length: 2)))  // 1 2 3
    book.removeFromChapters(chapters[2])                                        // 1 2
    book.addToChapters(chapters[3])                                             // 1 2 4
    book.removeFromChapters(NSOrderedSet(object: chapters[3]))                  // 1 2
    expect(titles(book.chapters) == ["Chapter 1", "Chapter 2"], "ordered chapters after every generated method: \(titles(book.chapters))")
    expect(chapters[1].book === book && chapters[5].book == nil, "ordered methods update the inverse")

    try context.save()

    let reopened = try loadLibrary(storeType: storeType, at: url)
    let request: NSFetchRequest<Book> = Book.fetchRequest()
    let saved = try reopened.viewContext.fetch(request)
    expect(saved.count == 1, "one book after reopening, found \(saved.count)")
    guard let copy = saved.first else { return failures }
    expect(copy.title == "Middlemarch", "title")
    expect(copy.pages == 881, "pages (Int16), incremented in place")
    expect(copy.wordCount == 316_059, "wordCount (Int32)")
    expect(copy.isbn13 == 9_780_141_439_549, "isbn13 (Int64)")
    expect(copy.rating == 4.5, "rating (Double)")
    expect(copy.weight == 0.75, "weight (Float)")
    expect(copy.inPrint, "inPrint (Bool)")
    expect(copy.published == published, "published (Date)")
    // The custom accessors: private and fileprivate primitive accessors, and key-value coding of a computed property.
    let year = Calendar(identifier: .gregorian).component(.year, from: published)
    expect(copy.publishedYear == year, "publishedYear, through the private primitive accessor")
    expect(copy.value(forKey: "publishedYear") as? Int == year, "value(forKey: \"publishedYear\") calls the computed property")
    expect(copy.authorThroughPrimitive === copy.author, "the author through the fileprivate primitive accessor")
    expect(copy.cover == cover, "cover (Data)")
    expect(copy.identifier == identifier, "identifier (UUID)")
    expect(copy.homepage == URL(string: "https://example.org/middlemarch"), "homepage (URL)")
    expect(copy.price == NSDecimalNumber(string: "12.99"), "price (NSDecimalNumber): \(String(describing: copy.price))")
    expect(copy.stock?.intValue == 42, "stock (NSNumber)")
    expect(copy.notes?["edition"] as? String == "Penguin Classics", "notes (transformable NSDictionary)")
    expect(copy.author?.name == "George Eliot", "author (to-one)")
    expect(copy.author?.books?.count == 1, "author.books (inverse to-many)")
    let tagNames = Set((copy.tags?.allObjects as? [Tag] ?? []).compactMap(\.name))
    expect(tagNames == ["classic", "victorian"], "tags (to-many): \(tagNames)")
    expect(titles(copy.chapters) == ["Chapter 1", "Chapter 2"], "chapters (ordered): \(titles(copy.chapters))")

    // Sorting by Swift key paths of @NSManaged properties, as Apple's code writes it.
    let second = Book(context: reopened.viewContext)
    second.title = "Adam Bede"
    second.pages = 600
    let byPages: NSFetchRequest<Book> = Book.fetchRequest()
    byPages.sortDescriptors = [NSSortDescriptor(keyPath: \Book.pages, ascending: false)]
    expect(try reopened.viewContext.fetch(byPages).map(\.pages) == [881, 600], "sorted by \\Book.pages, descending")
    let byTitle: NSFetchRequest<Book> = Book.fetchRequest()
    byTitle.sortDescriptors = [NSSortDescriptor(keyPath: \Book.title, ascending: true)]
    expect(try reopened.viewContext.fetch(byTitle).compactMap(\.title) == ["Adam Bede", "Middlemarch"], "sorted by \\Book.title")
    let byPrint: NSFetchRequest<Book> = Book.fetchRequest()
    byPrint.sortDescriptors = [NSSortDescriptor(keyPath: \Book.inPrint, ascending: true)]
    expect(try reopened.viewContext.fetch(byPrint).map(\.inPrint) == [false, true], "sorted by \\Book.inPrint (a Boolean)")
    let byAuthor: NSFetchRequest<Book> = Book.fetchRequest()
    byAuthor.sortDescriptors = [NSSortDescriptor(keyPath: \Book.author?.name, ascending: true)]
    expect(try reopened.viewContext.fetch(byAuthor).map(\.title) == ["Adam Bede", "Middlemarch"], "sorted by \\Book.author?.name, nil first")
    reopened.viewContext.delete(second)

    copy.title = nil
    copy.price = nil
    copy.stock = nil
    copy.author = nil
    copy.tags = nil
    copy.chapters = NSOrderedSet(array: (copy.chapters?.array as? [Chapter] ?? []).reversed())
    try reopened.viewContext.save()
    let again = try loadLibrary(storeType: storeType, at: url).viewContext
    let cleared = try again.fetch(Book.fetchRequest()).first
    expect(cleared?.title == nil && cleared?.price == nil && cleared?.stock == nil, "attributes set to nil stay nil")
    expect(cleared?.author == nil && cleared?.tags?.count ?? 0 == 0, "relationships set to nil are empty")
    expect(titles(cleared?.chapters) == ["Chapter 2", "Chapter 1"], "a reordered ordered relationship: \(titles(cleared?.chapters))")
    return failures
}

/// The `Shelf` model's container with one store of `storeType` at `url`.
public func loadLibrary(storeType: String, at url: URL) throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Shelf")
    let description = NSPersistentStoreDescription(url: url)
    description.type = storeType
    container.persistentStoreDescriptions = [description]
    var failure: Error?
    container.loadPersistentStores { _, error in failure = error }
    if let failure { throw failure }
    return container
}

private func titles(_ chapters: NSOrderedSet?) -> [String] {
    (chapters?.array as? [Chapter] ?? []).map { $0.title ?? "?" }
}

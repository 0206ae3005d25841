import CoreData

final class Author: NSManagedObject {
    @Managed var name: String?
    @Managed var age: Int64
    @Managed var rating: Double
    @Managed var books: Set<Book>
    @Managed var drafts: [Draft]
    @Managed("nickname") var alias: String?

    var events: [String] = []
    override func awakeFromInsert() { events.append("awakeFromInsert"); setPrimitiveValue("new", forKey: "nickname") }
    override func awakeFromFetch() { events.append("awakeFromFetch") }
    override func willSave() { events.append("willSave") }
    override func didSave() { events.append("didSave") }
    override func prepareForDeletion() { events.append("prepareForDeletion") }
}

final class Book: NSManagedObject {
    @Managed var title: String?
    @Managed var pages: Int
    @Managed var author: Author?
    @Managed var tags: [String]?

    @nonobjc class func fetchRequest() -> NSFetchRequest<Book> { NSFetchRequest<Book>(entityName: "Book") }
}

final class Draft: NSManagedObject {
    @Managed var text: String?
    @Managed var author: Author?
}

/// Author —< Book (books/author), Author —< ordered Draft (drafts/author, cascade).
func libraryModel() -> NSManagedObjectModel {
    let author = NSEntityDescription(name: "Author")
    let book = NSEntityDescription(name: "Book")
    let draft = NSEntityDescription(name: "Draft")
    let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
    let bookAuthor = NSRelationshipDescription(name: "author", destination: author, toMany: false)
    books.inverseRelationship = bookAuthor
    bookAuthor.inverseRelationship = books
    let drafts = NSRelationshipDescription(name: "drafts", destination: draft, toMany: true, deleteRule: .cascadeDeleteRule, isOrdered: true)
    let draftAuthor = NSRelationshipDescription(name: "author", destination: author, toMany: false)
    drafts.inverseRelationship = draftAuthor
    draftAuthor.inverseRelationship = drafts
    author.properties = [
        NSAttributeDescription(name: "name", type: .string),
        NSAttributeDescription(name: "age", type: .integer64, defaultValue: 18),
        NSAttributeDescription(name: "rating", type: .double),
        NSAttributeDescription(name: "nickname", type: .string),
        books, drafts,
    ]
    book.properties = [
        NSAttributeDescription(name: "title", type: .string, isOptional: false),
        NSAttributeDescription(name: "pages", type: .integer32, defaultValue: 0),
        NSAttributeDescription(name: "tags", type: .transformable),
        bookAuthor,
    ]
    draft.properties = [NSAttributeDescription(name: "text", type: .string), draftAuthor]
    return NSManagedObjectModel(entities: [author, book, draft])
}

/// A private-queue context on a coordinator with one in-memory store.
func inMemoryContext(model: NSManagedObjectModel = libraryModel()) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

/// A private-queue context whose parent is `parent`.
func childContext(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = parent
    return child
}

/// Inserts an `entity` object into `context` and sets `values` on it by key.
@discardableResult
func insert(_ entity: String, _ values: [String: Any], into context: NSManagedObjectContext) -> NSManagedObject {
    let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
    for (key, value) in values { object.setValue(value, forKey: key) }
    return object
}

import CoreData

/// A shelf with a stored to-many relationship (`books`) and a transient one (`picks`), counting its
/// `awakeFromInsert` calls: the insertion cases' own class, so they can see each awakening.
final class ConformanceShelf: NSManagedObject {
    @Managed var name: String?
    @Managed var books: Set<ConformanceBook>
    @Managed var picks: Set<ConformanceBook>
    var insertAwakenings = 0
    override func awakeFromInsert() { insertAwakenings += 1 }
}

final class ConformanceBook: NSManagedObject {
    @Managed var title: String?
    @Managed var shelf: ConformanceShelf?
}

/// Inserting an object, as Apple's contexts do it: a new object starts with its attribute defaults and an empty set
/// for every to-many relationship, stored or transient, and is awakened once; inserting an object of another context
/// leaves it in its own; a deleted object inserted again is no longer deleted; an object's `managedObjectContext` is
/// its context until its deletion is saved. Each case checks what the store holds afterwards, after a reopen when
/// the store has a file. The cases use their own model (`model()`), whose classes count `awakeFromInsert`.
enum InsertionCases {
    /// `Shelf` (`name`, default "unnamed"; `books`, stored; `picks`, transient) —< `Book` (`title`, `shelf`).
    static func model() -> NSManagedObjectModel {
        let shelf = NSEntityDescription(name: "Shelf")
        shelf.managedObjectClassName = String(reflecting: ConformanceShelf.self)
        let book = NSEntityDescription(name: "Book")
        book.managedObjectClassName = String(reflecting: ConformanceBook.self)
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        let shelfOfBook = NSRelationshipDescription(name: "shelf", destination: shelf, toMany: false)
        books.inverseRelationship = shelfOfBook
        shelfOfBook.inverseRelationship = books
        let picks = NSRelationshipDescription(name: "picks", destination: book, toMany: true)
        picks.isTransient = true
        shelf.properties = [NSAttributeDescription(name: "name", type: .string, defaultValue: "unnamed"), books, picks]
        book.properties = [NSAttributeDescription(name: "title", type: .string), shelfOfBook]
        return NSManagedObjectModel(entities: [shelf, book])
    }

    /// A context on a new coordinator of the case's store, with the insertion model.
    static func open(_ env: ConformanceEnvironment, _ model: NSManagedObjectModel) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = try env.openCoordinator(model: model)
        return (coordinator, env.context(coordinator))
    }

    /// The shelves the store holds, by name, with the titles of their books, read in a context on a new coordinator
    /// (or, for a store without a file, on `coordinator`); a transient relationship must come back empty.
    static func storedShelves(_ env: ConformanceEnvironment, _ model: NSManagedObjectModel,
                              after coordinator: NSPersistentStoreCoordinator) throws -> [String: [String]] {
        let context = try env.reopenedContext(or: coordinator, model: model)
        return try context.performAndWait {
            var result: [String: [String]] = [:]
            for shelf in try context.fetch(NSFetchRequest<ConformanceShelf>(entityName: "Shelf")) {
                try env.expect(shelf.picks.isEmpty, "a transient relationship is not stored: \(shelf.name ?? "-") read again with picks")
                result[shelf.name ?? "-"] = shelf.books.compactMap(\.title).sorted()
            }
            return result
        }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("insertion/new-objects-start-with-defaults-and-empty-to-many-relationships") { env in
            let model = model()
            let (coordinator, context) = try open(env, model)
            try context.performAndWait {
                let shelf = ConformanceShelf(context: context)
                try env.expectEqual(shelf.name, "unnamed", "a new object's attribute starts with its default")
                try env.expect(shelf.value(forKey: "books") as? Set<NSManagedObject> == [], "a stored to-many relationship starts as an empty set")
                try env.expect(shelf.value(forKey: "picks") as? Set<NSManagedObject> == [], "a transient to-many relationship starts as an empty set")
                try env.expectEqual(shelf.insertAwakenings, 1, "awakeFromInsert runs once")
                try env.expect(shelf.managedObjectContext === context, "the new object's context is the one it was inserted into")
                let first = ConformanceBook(context: context)
                first.title = "First"
                let second = ConformanceBook(context: context)
                second.title = "Second"
                first.shelf = shelf
                shelf.books.insert(second)
                shelf.picks = [first]
                try env.expectEqual(shelf.picks.map(\.objectID), [first.objectID], "the transient relationship can be set at once")
                try env.expectEqual(Set(shelf.books.compactMap(\.title)), ["First", "Second"], "both sides of the stored relationship")
                try context.save()
                try env.expectEqual(shelf.insertAwakenings, 1, "a save does not awaken an inserted object again")
                try env.expect(shelf.managedObjectContext === context && first.managedObjectContext === context, "saved objects keep their context")
            }
            try env.expectEqual(try storedShelves(env, model, after: coordinator), ["unnamed": ["First", "Second"]], "the store after the save")
        },
        ConformanceCase("insertion/another-contexts-object-is-left-alone") { env in
            let model = model()
            let (coordinator, context) = try open(env, model)
            let other = env.context(coordinator)
            let shelf = context.performAndWait {
                let shelf = ConformanceShelf(context: context)
                shelf.name = "Mine"
                return shelf
            }
            try other.performAndWait {
                other.insert(shelf)
                try env.expect(!other.hasChanges && other.insertedObjects.isEmpty, "inserting another context's object changes nothing")
            }
            try context.performAndWait {
                try env.expect(shelf.managedObjectContext === context, "the object stays in its own context")
                try env.expect(context.insertedObjects == [shelf], "its own context still lists it as inserted")
                try env.expectEqual(shelf.insertAwakenings, 1, "it is not awakened again")
                try context.save()
            }
            try env.expectEqual(try storedShelves(env, model, after: coordinator), ["Mine": []], "the store after its context saved it")
        },
        ConformanceCase("insertion/deleted-objects-inserted-again") { env in
            let model = model()
            let (coordinator, context) = try open(env, model)
            try context.performAndWait {
                let kept = ConformanceShelf(context: context)
                kept.name = "Kept"
                let gone = ConformanceShelf(context: context)
                gone.name = "Gone"
                try context.save()
                context.delete(kept)
                context.delete(gone)
                try env.expect(kept.isDeleted, "deleted before the save")
                context.insert(kept)
                try env.expect(!kept.isDeleted && !kept.isInserted, "a saved object deleted and inserted again is neither deleted nor inserted")
                try env.expect(kept.managedObjectContext === context, "and keeps its context")
                try env.expectEqual(kept.insertAwakenings, 1, "and is not awakened again")
                try context.save()
                try env.expect(gone.managedObjectContext == nil, "an object whose deletion is saved has no context")
                context.insert(gone)
                try env.expect(!gone.isInserted && gone.managedObjectContext == nil && !context.hasChanges,
                               "inserting an object whose deletion is saved does not bring it back")
            }
            try env.expectEqual(try storedShelves(env, model, after: coordinator), ["Kept": []], "the store keeps the object inserted again")
        },
        ConformanceCase("insertion/unsaved-object-deleted-and-inserted-again") { env in
            let model = model()
            let (coordinator, context) = try open(env, model)
            try context.performAndWait {
                let shelf = ConformanceShelf(context: context)
                shelf.name = "Back"
                context.delete(shelf)
                try env.expect(shelf.managedObjectContext == nil && !shelf.isInserted, "an unsaved object deleted leaves the context")
                context.insert(shelf)
                try env.expect(shelf.managedObjectContext === context && shelf.isInserted, "inserted again, it is an insert of the context")
                try env.expectEqual(shelf.name, "Back", "with the values it had")
                try env.expect(shelf.value(forKey: "picks") as? Set<NSManagedObject> == [], "and an empty transient relationship")
                try context.save()
            }
            try env.expectEqual(try storedShelves(env, model, after: coordinator), ["Back": []], "the store after the save")
        },
    ]
}

import Foundation
import Testing
import CoreData

/// A shelf with a stored to-many relationship (`books`) and a transient one (`picks`), and a count of its
/// `awakeFromInsert` calls.
final class InsertionShelf: NSManagedObject {
    @Managed var name: String?
    @Managed var books: Set<InsertionBook>
    @Managed var picks: Set<InsertionBook>
    var insertAwakenings = 0
    override func awakeFromInsert() { insertAwakenings += 1 }
}

final class InsertionBook: NSManagedObject {
    @Managed var title: String?
    @Managed var shelf: InsertionShelf?
}

/// Inserting an object: a new object starts with its defaults and an empty set for every to-many relationship, stored
/// or transient, and is awakened once; an object of another context is left alone; a deleted object inserted again is
/// no longer deleted; an object's `managedObjectContext` is its context until its deletion is saved. Each case checks
/// what the store holds after a reopen.
@Suite struct ObjectInsertionTests {
    static func model() -> NSManagedObjectModel {
        let shelf = NSEntityDescription(name: "Shelf")
        shelf.managedObjectClassName = "InsertionShelf"
        let book = NSEntityDescription(name: "Book")
        book.managedObjectClassName = "InsertionBook"
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

    static func context(_ model: NSManagedObjectModel, at url: URL) throws -> NSManagedObjectContext {
        try SaveListsTests.context(model, stores: [url])
    }

    static func storeURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ObjectInsertionTests-\(UUID().uuidString).sqlite")
    }

    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// The shelves saved at `url`, by name, with the titles of their books, read through a new coordinator.
    static func reopenedShelves(_ model: NSManagedObjectModel, at url: URL) throws -> [String: [String]] {
        let context = try context(model, at: url)
        return try context.performAndWait {
            var result: [String: [String]] = [:]
            for shelf in try context.fetch(NSFetchRequest<InsertionShelf>(entityName: "Shelf")) {
                #expect(shelf.picks.isEmpty)  // transient: never stored
                result[shelf.name ?? "-"] = shelf.books.compactMap(\.title).sorted()
            }
            return result
        }
    }

    /// A new object has its attribute defaults and an empty set for both to-many relationships, the transient one
    /// included, which can be added to at once; it is awakened once and its context is the one it was inserted into.
    @Test func newObjectsStartWithDefaultsAndEmptyToManyRelationships() throws {
        let url = Self.storeURL()
        defer { Self.remove(url) }
        let model = Self.model()
        let context = try Self.context(model, at: url)
        try context.performAndWait {
            let shelf = InsertionShelf(context: context)
            #expect(shelf.name == "unnamed")
            #expect(shelf.value(forKey: "books") as? Set<NSManagedObject> == [])
            #expect(shelf.value(forKey: "picks") as? Set<NSManagedObject> == [])
            #expect(shelf.insertAwakenings == 1)
            #expect(shelf.managedObjectContext === context)
            let first = InsertionBook(context: context)
            first.title = "First"
            let second = InsertionBook(context: context)
            second.title = "Second"
            first.shelf = shelf
            shelf.books.insert(second)
            shelf.picks = [first]
            #expect(shelf.picks.map(\.objectID) == [first.objectID])
            #expect(Set(shelf.books.compactMap(\.title)) == ["First", "Second"])
            try context.save()
            #expect(shelf.insertAwakenings == 1)
            #expect(shelf.managedObjectContext === context && first.managedObjectContext === context)
        }
        #expect(try Self.reopenedShelves(model, at: url) == ["unnamed": ["First", "Second"]])
    }

    /// Inserting another context's object into a context does nothing: it stays in its own context, which saves it,
    /// and the other context has no changes.
    @Test func insertingAnotherContextsObjectLeavesIt() throws {
        let url = Self.storeURL()
        defer { Self.remove(url) }
        let model = Self.model()
        let context = try Self.context(model, at: url)
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let shelf = context.performAndWait {
            let shelf = InsertionShelf(context: context)
            shelf.name = "Mine"
            return shelf
        }
        other.performAndWait {
            other.insert(shelf)
            #expect(!other.hasChanges)
            #expect(other.insertedObjects.isEmpty)
        }
        try context.performAndWait {
            #expect(shelf.managedObjectContext === context)
            #expect(context.insertedObjects == [shelf])
            #expect(shelf.insertAwakenings == 1)
            try context.save()
        }
        #expect(try Self.reopenedShelves(model, at: url) == ["Mine": []])
    }

    /// A saved object deleted and inserted again is no longer deleted, is not awakened again, keeps its context and
    /// stays in the store; a deleted object whose deletion is saved has no context, and inserting it again does not
    /// bring it back.
    @Test func deletedObjectsInsertedAgain() throws {
        let url = Self.storeURL()
        defer { Self.remove(url) }
        let model = Self.model()
        let context = try Self.context(model, at: url)
        try context.performAndWait {
            let kept = InsertionShelf(context: context)
            kept.name = "Kept"
            let gone = InsertionShelf(context: context)
            gone.name = "Gone"
            try context.save()
            context.delete(kept)
            context.delete(gone)
            #expect(kept.isDeleted)
            context.insert(kept)
            #expect(!kept.isDeleted && !kept.isInserted)
            #expect(kept.managedObjectContext === context)
            #expect(kept.insertAwakenings == 1)
            try context.save()
            #expect(gone.managedObjectContext == nil)
            context.insert(gone)
            #expect(!gone.isInserted && gone.managedObjectContext == nil)
            #expect(!context.hasChanges)
        }
        #expect(try Self.reopenedShelves(model, at: url) == ["Kept": []])
    }

    /// An inserted object deleted again before a save leaves the context (no context, not inserted); inserted again,
    /// it is an insert of the context again, with the values it had, and saved.
    @Test func unsavedObjectDeletedAndInsertedAgainIsSaved() throws {
        let url = Self.storeURL()
        defer { Self.remove(url) }
        let model = Self.model()
        let context = try Self.context(model, at: url)
        try context.performAndWait {
            let shelf = InsertionShelf(context: context)
            shelf.name = "Back"
            context.delete(shelf)
            #expect(shelf.managedObjectContext == nil && !shelf.isInserted)
            context.insert(shelf)
            #expect(shelf.managedObjectContext === context && shelf.isInserted)
            #expect(shelf.name == "Back")
            #expect(shelf.value(forKey: "picks") as? Set<NSManagedObject> == [])
            try context.save()
        }
        #expect(try Self.reopenedShelves(model, at: url) == ["Back": []])
    }
}

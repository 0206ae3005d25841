import CoreData
import Testing

/// Nested contexts with typed subclasses: what the conformance suite's `nested/*` cases do not reach.
struct NestedContextTests {
    @Test func childEditsAnObjectItsParentInserted() throws {
        let root = try inMemoryContext()
        let id = root.performAndWait {
            let author = Author(context: root)
            author.name = "Ann"
            return author.objectID
        }
        let child = childContext(of: root)
        try child.performAndWait {
            let author = try #require(try child.existingObject(with: id) as? Author)
            #expect(author.name == "Ann" && author.age == 18)
            #expect(author.events == ["awakeFromFetch"], "the child's copy is fetched, not inserted")
            author.rating = 4.5
            let book = Book(context: child)
            book.title = "Dune"
            book.author = author
            try child.save()
        }
        try root.performAndWait {
            let author = try #require(root.registeredObject(for: id) as? Author)
            #expect(author.isInserted && author.rating == 4.5)
            #expect(author.books.map(\.title) == ["Dune"])
            #expect(author.events == ["awakeFromInsert"], "pushing a child's save runs no awake hook in the parent")
            try root.save()
            #expect(try root.count(for: Book.fetchRequest()) == 1)
        }
    }

    /// A transient value lives in the object that set it: a child's save hands it to the parent's object, and a
    /// new child's object of the same ID starts without it, as a fetched object does (Apple's; CoreDataPlus's
    /// investigation tests assert it).
    @Test func aNewChildsObjectStartsWithoutTheParentsTransientValue() throws {
        let car = NSEntityDescription(name: "Car")
        let speed = NSAttributeDescription(name: "speed", type: .integer64)
        speed.isTransient = true
        car.properties = [NSAttributeDescription(name: "plate", type: .string), speed]
        let root = try inMemoryContext(model: NSManagedObjectModel(entities: [car]))
        let id = try root.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Car", into: root)
            object.setValue("1", forKey: "plate")
            try root.save()
            return object.objectID
        }
        let writer = childContext(of: root)
        try writer.performAndWait {
            try writer.existingObject(with: id).setValue(Int64(20), forKey: "speed")
            try writer.save()
        }
        root.performAndWait { #expect(root.object(with: id).value(forKey: "speed") as? Int64 == 20, "the child's save hands it to the parent") }
        let reader = childContext(of: root)
        try reader.performAndWait {
            let fetched = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car"))
            #expect(fetched.count == 1)
            #expect(fetched.first?.value(forKey: "plate") as? String == "1")
            #expect((fetched.first?.value(forKey: "speed") as? Int64 ?? 0) == 0, "the new child's object has no transient value")
        }
    }

    @Test func orderedRelationshipsAndCascadesPassThroughAChild() throws {
        let root = try inMemoryContext()
        let id = try root.performAndWait {
            let author = Author(context: root)
            author.name = "Bea"
            for text in ["one", "two", "three"] {
                let draft = Draft(context: root)
                draft.text = text
                draft.author = author
            }
            try root.save()
            return author.objectID
        }
        let child = childContext(of: root)
        try child.performAndWait {
            let author = try #require(child.object(with: id) as? Author)
            #expect(author.drafts.map(\.text) == ["one", "two", "three"])
            author.drafts = Array(author.drafts.reversed())
            try child.save()
        }
        try root.performAndWait {
            let author = try #require(root.object(with: id) as? Author)
            #expect(author.drafts.map(\.text) == ["three", "two", "one"])
            try root.save()
        }
        let other = childContext(of: root)
        try other.performAndWait {
            let author = try #require(other.object(with: id) as? Author)
            other.delete(author)
            try other.save()
        }
        try root.performAndWait {
            #expect(root.deletedObjects.count == 4, "the author and its three drafts, by the cascade rule")
            try root.save()
            #expect(try root.count(for: NSFetchRequest<Draft>(entityName: "Draft")) == 0)
        }
    }

    @Test func aMainQueueParentServesAPrivateChild() async throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: libraryModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.persistentStoreDescriptions[0].type = NSInMemoryStoreType
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let view = container.viewContext
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = view
        try await child.perform {
            let author = Author(context: child)
            author.name = "Cat"
            try child.save()
        }
        try await MainActor.run {
            #expect(view.insertedObjects.count == 1)
            try view.save()
        }
        let names = try await container.newBackgroundContext().perform {
            try NSFetchRequest<Author>(entityName: "Author").execute().map(\.name)
        }
        #expect(names == ["Cat"])
    }
}

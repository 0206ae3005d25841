import CoreData
import Testing

/// Change reports a user relies on: the fetched results controller's reports describe the new results exactly,
/// an object moving between contexts is reported, and values set in `awakeFromFetch` leave no changes.

// MARK: Helpers

/// Applies a fetched results controller's reported changes to a copy of its old results the way a table view
/// applies a batch of updates, so a test can check that the reports turn the old results into the new ones.
private final class MirroringDelegate: NSFetchedResultsControllerDelegate {
    var sections: [[NSManagedObject]] = []
    private var deletedSections: [Int] = []
    private var insertedSections: [Int] = []
    private var deletedRows: [IndexPath] = []
    private var insertedRows: [(IndexPath, NSManagedObject)] = []
    var events: [String] = []
    /// Set when a reported index path or section index does not exist where it should.
    var unappliable = false

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        deletedSections = []; insertedSections = []; deletedRows = []; insertedRows = []
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        events.append("section \(type.rawValue) \(sectionInfo.name) @\(sectionIndex)")
        if type == .delete { deletedSections.append(sectionIndex) }
        if type == .insert { insertedSections.append(sectionIndex) }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        events.append("object \(type.rawValue) \(indexPath.map { "\($0)" } ?? "nil")->\(newIndexPath.map { "\($0)" } ?? "nil")")
        switch type {
        case .delete: deletedRows.append(indexPath!)
        case .insert: insertedRows.append((newIndexPath!, anObject as! NSManagedObject))
        case .move:
            deletedRows.append(indexPath!)
            insertedRows.append((newIndexPath!, anObject as! NSManagedObject))
        case .update: break
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        // Deletions by old index paths (rows, then sections), highest first; insertions by new ones, lowest first.
        // An index outside the mirror means the reports cannot be applied (a table view raises); recorded, not trapped.
        for path in deletedRows.sorted(by: >) {
            guard sections.indices.contains(path[0]), sections[path[0]].indices.contains(path[1]) else { unappliable = true; continue }
            sections[path[0]].remove(at: path[1])
        }
        for index in deletedSections.sorted(by: >) {
            guard sections.indices.contains(index) else { unappliable = true; continue }
            sections.remove(at: index)
        }
        for index in insertedSections.sorted() {
            guard index <= sections.count else { unappliable = true; continue }
            sections.insert([], at: index)
        }
        for (path, object) in insertedRows.sorted(by: { $0.0 < $1.0 }) {
            guard sections.indices.contains(path[0]), path[1] <= sections[path[0]].count else { unappliable = true; continue }
            sections[path[0]].insert(object, at: path[1])
        }
    }
}

private func identities(_ sections: [[NSManagedObject]]) -> [[ObjectIdentifier]] {
    sections.map { $0.map(ObjectIdentifier.init) }
}

private func identities(_ sections: [NSFetchedResultsSectionInfo]?) -> [[ObjectIdentifier]] {
    (sections ?? []).map { ($0.objects ?? []).map { ObjectIdentifier($0 as AnyObject) } }
}

/// A class whose awakeFromFetch sets a transient cache through a public setter, as Apple's documentation says it may.
final class AwakeCachingObject: NSManagedObject {
    override func awakeFromFetch() {
        super.awakeFromFetch()
        setValue("warm", forKey: "cache")
    }
}

struct ChangeReportTests {
    // MARK: NSFetchedResultsController

    /// Sections by a to-one relationship's attribute: renaming the author moves the author's books to another
    /// section; the reported section and object changes still turn the old results into the new ones (a table
    /// view raises on a batch that does not), with no book regrouped silently.
    @Test func frcReportsAccountForBooksRegroupedByTheirAuthorsRename() throws {
        let context = try inMemoryContext()
        let (ann, dune) = context.performAndWait { () -> (Author, Book) in
            let ann = Author(context: context); ann.name = "Ann"
            let bob = Author(context: context); bob.name = "Bob"
            let dune = Book(context: context); dune.title = "Dune"; dune.author = ann
            let emma = Book(context: context); emma.title = "Emma"; emma.author = bob
            return (ann, dune)
        }
        try context.performAndWait { try context.save() }
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "author.name", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "author.name", cacheName: nil)
        let mirror = MirroringDelegate()
        controller.delegate = mirror
        try controller.performFetch()
        mirror.sections = (controller.sections ?? []).map { ($0.objects ?? []).compactMap { $0 as? NSManagedObject } }
        #expect(controller.sections?.map(\.name) == ["Ann", "Bob"])

        context.performAndWait { ann.name = "Zed" }  // an Author changes: the controller of books ignores it
        context.performAndWait {
            let ulysses = Book(context: context)
            ulysses.title = "Ulysses"
            ulysses.author = dune.author
        }
        #expect(!mirror.unappliable, "reported: \(mirror.events)")
        #expect(identities(mirror.sections) == identities(controller.sections), "reported: \(mirror.events); now: \(controller.sections?.map(\.name) ?? [])")
    }

    // MARK: Objects-did-change notification

    /// An unsaved object deleted in one context and inserted into another within one block: the second context
    /// lists it and reports the insertion (no pending-change flag left from the first context hides it).
    @Test func objectMovedUnsavedToAnotherContextIsReportedInserted() throws {
        let first = try inMemoryContext()
        let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        second.persistentStoreCoordinator = first.persistentStoreCoordinator
        var reported: [Set<NSManagedObject>] = []
        let token = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: second,
                                                           queue: nil) { notification in
            reported.append(notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? [])
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let book = first.performAndWait { () -> Book in
            let book = Book(context: first)
            book.title = "Moved"
            first.delete(book)  // an unsaved object simply leaves its context
            return book
        }
        #expect(book.managedObjectContext == nil)
        second.performAndWait { second.insert(book) }
        #expect(second.insertedObjects.contains(book))
        #expect(reported.contains { $0.contains(book) }, "the second context's insert was never reported")
    }

    /// Apple: `changedValues()` "only reports changes to properties that are persistent properties of the
    /// receiver, not changes to transient properties"; the transient change still makes the object changed.
    @Test func changedValuesLeaveTransientPropertiesOut() throws {
        let entity = NSEntityDescription(name: "Person")
        let nickname = NSAttributeDescription(name: "nickname", type: .string)
        nickname.isTransient = true
        entity.properties = [NSAttributeDescription(name: "name", type: .string), nickname]
        let context = try inMemoryContext(model: NSManagedObjectModel(entities: [entity]))
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("Ann", forKey: "name")
            try context.save()
            person.setValue("Annie", forKey: "nickname")
            #expect(person.changedValues().isEmpty)
            #expect(!person.hasPersistentChangedValues)
            person.setValue("Bob", forKey: "name")
            #expect(person.changedValues().keys.sorted() == ["name"])
            #expect(person.changedValues()["name"] as? String == "Bob")
        }
    }

    /// Apple: change processing is disabled around awakeFromFetch, so setting values there (a transient cache)
    /// does not dirty the object or its context.
    @Test func valuesSetInAwakeFromFetchLeaveNoChanges() throws {
        let entity = NSEntityDescription(name: "Cached")
        entity.managedObjectClassName = NSStringFromClass(AwakeCachingObject.self)
        let cache = NSAttributeDescription(name: "cache", type: .string)
        cache.isTransient = true
        entity.properties = [NSAttributeDescription(name: "name", type: .string), cache]
        let context = try inMemoryContext(model: NSManagedObjectModel(entities: [entity]))
        try context.performAndWait {
            let object = AwakeCachingObject(context: context)
            object.setValue("a", forKey: "name")
            try context.save()
            context.reset()
            let fetched = try context.fetch(NSFetchRequest<AwakeCachingObject>(entityName: "Cached"))
            #expect(fetched.first?.value(forKey: "cache") as? String == "warm")
            #expect(fetched.first?.hasChanges == false)
            #expect(context.hasChanges == false)
        }
    }
}

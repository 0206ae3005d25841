import CoreData
import Foundation
import Testing

/// A delegate that implements Apple's difference form, `controller(_:didChangeContentWith:)` with a
/// `CollectionDifference<NSManagedObjectID>`, and counts any other delegate call.
private final class DifferenceDelegate: NSFetchedResultsControllerDelegate {
    var differences: [CollectionDifference<NSManagedObjectID>] = []
    var otherCalls = 0

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        differences.append(diff)
    }
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { otherCalls += 1 }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
}

/// A delegate with the per-object methods only.
private final class ObjectChangeDelegate: NSFetchedResultsControllerDelegate {
    var changes: [NSFetchedResultsChangeType] = []
    var finished = 0

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { changes.append(type) }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { finished += 1 }
}

struct FetchedResultsDifferenceTests {
    private func titles(_ context: NSManagedObjectContext, _ ids: [NSManagedObjectID]) -> [String] {
        context.performAndWait { ids.map { (context.object(with: $0) as? Book)?.title ?? "?" } }
    }

    /// Apple: without a section key path, a delegate that implements the difference form gets the change of the
    /// results' object IDs, and no other delegate method is invoked; applying the difference to the old IDs gives
    /// the new ones.
    @Test func aDelegateWithTheDifferenceFormGetsTheIDsDifferenceOnly() throws {
        let context = try inMemoryContext()
        let books = context.performAndWait { () -> [Book] in
            ["Dune", "Emma", "Ulysses"].map { title in
                let book = Book(context: context)
                book.title = title
                return book
            }
        }
        try context.performAndWait { try context.save() }
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let delegate = DifferenceDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let before = context.performAndWait { (controller.fetchedObjects ?? []).map(\.objectID) }

        try context.performAndWait {
            context.delete(books[1])              // Emma leaves
            books[0].title = "Zadig"              // Dune moves to the end
            let added = Book(context: context)    // Anna arrives first
            added.title = "Anna"
            try context.save()
        }
        let after = context.performAndWait { (controller.fetchedObjects ?? []).map(\.objectID) }
        #expect(titles(context, after) == ["Anna", "Ulysses", "Zadig"])
        #expect(delegate.otherCalls == 0, "no other delegate method is invoked")
        let differences = delegate.differences
        #expect(!differences.isEmpty)
        var applied = before
        for difference in differences {
            guard let next = applied.applying(difference) else {
                Issue.record("a difference does not apply to the IDs it follows")
                return
            }
            applied = next
        }
        #expect(applied == after, "the differences turn the old IDs into the new ones")
        #expect(differences.contains { $0.insertions.contains { change in
            if case .insert(_, _, let associated) = change { return associated != nil }
            return false
        } }, "a moved object is an insertion associated with its removal")
    }

    /// Apple: the difference form is only invoked when the controller has no section key path; with one, the
    /// delegate gets the per-object methods. A delegate without the difference form gets them too.
    @Test func sectionsOrNoDifferenceFormGetThePerObjectMethods() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            let book = Book(context: context)
            book.title = "Dune"
            book.author = author
            try context.save()
        }
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let sectioned = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                   sectionNameKeyPath: "author.name", cacheName: nil)
        let differenceDelegate = DifferenceDelegate()
        sectioned.delegate = differenceDelegate
        try sectioned.performFetch()
        let plain = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let objectDelegate = ObjectChangeDelegate()
        plain.delegate = objectDelegate
        try plain.performFetch()

        try context.performAndWait {
            let book = Book(context: context)
            book.title = "Emma"
            book.author = try context.fetch(NSFetchRequest<Author>(entityName: "Author")).first
            try context.save()
        }
        #expect(differenceDelegate.differences.isEmpty, "with sections the difference form is not invoked")
        #expect(differenceDelegate.otherCalls >= 3, "with sections the per-object methods are")
        #expect(objectDelegate.changes.first == .insert, "a delegate without the difference form gets the per-object methods: \(objectDelegate.changes)")
        #expect(objectDelegate.finished >= 1)
    }
}

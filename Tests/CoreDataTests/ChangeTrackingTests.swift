import CoreData
import Testing

/// `NSManagedObjectContextObjectsDidChange` and `NSFetchedResultsController`, through the public API.

// MARK: Helpers

@discardableResult
private func book(_ title: String, pages: Int, in context: NSManagedObjectContext) -> Book {
    let book = Book(context: context)
    book.title = title
    book.pages = pages
    return book
}

/// Books in sections by page count, sorted by pages then title.
private func booksByPages(in context: NSManagedObjectContext) -> NSFetchedResultsController<Book> {
    let request = NSFetchRequest<Book>(entityName: "Book")
    request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
    return NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "pages", cacheName: nil)
}

/// Performs `controller`'s fetch on its context's queue with a new recorder as its delegate; the caller keeps the
/// recorder alive.
private func fetchAndRecord<T>(_ controller: NSFetchedResultsController<T>) throws -> ChangeRecorder {
    let recorder = ChangeRecorder()
    controller.delegate = recorder
    try controller.managedObjectContext.performAndWait { try controller.performFetch() }
    return recorder
}

private func titles(_ objects: [Any]?) -> [String] {
    (objects ?? []).compactMap { ($0 as? Book)?.title }
}

/// Every objects-did-change notification one context posts.
private final class ChangeLog: @unchecked Sendable {
    private(set) var notifications: [[AnyHashable: Any]] = []
    private var token: NSObjectProtocol?

    init(_ context: NSManagedObjectContext) {
        token = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: context,
                                                       queue: nil) { [weak self] notification in
            self?.notifications.append(notification.userInfo ?? [:])
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }

    var count: Int { notifications.count }

    /// The sorted titles of the books under `key` in the last notification.
    func titles(_ key: String) -> [String] {
        guard let info = notifications.last, let objects = info[key] as? Set<NSManagedObject> else { return [] }
        return objects.compactMap { ($0 as? Book)?.title }.sorted()
    }

    var lastKeys: Set<String> { Set((notifications.last ?? [:]).keys.compactMap { $0 as? String }) }
}

private final class ChangeCounts: @unchecked Sendable {
    var values: [Int] = []
}

/// What a fetched results controller tells its delegate, as text.
private final class ChangeRecorder: NSFetchedResultsControllerDelegate {
    var events: [String] = []
    var controller: NSFetchedResultsController<NSFetchRequestResult>?

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        self.controller = controller
        events.append("will")
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        events.append("section \(Self.name(type)) \(sectionInfo.name) @\(sectionIndex)")
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let title = (anObject as? Book)?.title ?? "?"
        events.append("\(Self.name(type)) \(title) \(Self.text(indexPath))->\(Self.text(newIndexPath))")
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append("did")
    }

    /// The events since the last call.
    func take() -> [String] {
        defer { events = [] }
        return events
    }

    private static func name(_ type: NSFetchedResultsChangeType) -> String {
        switch type {
        case .insert: return "insert"
        case .delete: return "delete"
        case .move: return "move"
        case .update: return "update"
        }
    }

    private static func text(_ path: IndexPath?) -> String {
        guard let path else { return "nil" }
        return "[\(path.section),\(path.row)]"
    }
}

// MARK: Objects-did-change notification

struct ObjectsDidChangeNotificationTests {
    @Test func eachBlockPostsItsChangesOnce() throws {
        let context = try inMemoryContext()
        let log = ChangeLog(context)
        let (dune, emma) = context.performAndWait { (book("Dune", pages: 100, in: context), book("Emma", pages: 200, in: context)) }
        #expect(log.count == 1)
        #expect(context.performAndWait { log.titles(NSInsertedObjectsKey) } == ["Dune", "Emma"])
        #expect(log.lastKeys == [NSInsertedObjectsKey])

        try context.performAndWait { try context.save() }
        #expect(log.count == 1, "a save of changes already reported posts no change notification")

        context.performAndWait {
            dune.pages = 150
            context.delete(emma)
        }
        #expect(log.count == 2)
        #expect(context.performAndWait { log.titles(NSUpdatedObjectsKey) } == ["Dune"])
        #expect(context.performAndWait { log.titles(NSDeletedObjectsKey) } == ["Emma"])
        #expect(log.lastKeys == [NSUpdatedObjectsKey, NSDeletedObjectsKey])

        try context.performAndWait {
            _ = try context.fetch(NSFetchRequest<Book>(entityName: "Book"))
            context.performAndWait { _ = context.hasChanges }
        }
        #expect(log.count == 2, "blocks that change nothing post nothing")
    }

    @Test func explicitProcessPendingChangesReportsWhatChangedSinceTheLastPost() throws {
        let context = try inMemoryContext()
        let log = ChangeLog(context)
        context.performAndWait {
            let dune = book("Dune", pages: 100, in: context)
            context.processPendingChanges()
            #expect(log.count == 1)
            #expect(log.titles(NSInsertedObjectsKey) == ["Dune"])

            dune.pages = 300
            context.delete(book("Gone", pages: 1, in: context))
            context.processPendingChanges()
            #expect(log.count == 2)
            #expect(log.lastKeys == [NSUpdatedObjectsKey], "an object inserted and deleted between two posts is not reported")
            #expect(log.titles(NSUpdatedObjectsKey) == ["Dune"])

            context.processPendingChanges()
            #expect(log.count == 2)

            context.rollback()
            context.processPendingChanges()
            #expect(log.count == 3)
            #expect(log.titles(NSDeletedObjectsKey) == ["Dune"], "rolling back a reported insert reports a deletion")
        }
        #expect(log.count == 3)
    }

    @Test func fetchAndSaveProcessPendingChangesFirst() throws {
        let context = try inMemoryContext()
        let log = ChangeLog(context)
        let countsSeenBySave = ChangeCounts()
        let token = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.willSaveObjectsNotification, object: context,
                                                           queue: nil) { _ in countsSeenBySave.values.append(log.count) }
        defer { NotificationCenter.default.removeObserver(token) }
        try context.performAndWait {
            book("Dune", pages: 100, in: context)
            _ = try context.fetch(NSFetchRequest<Book>(entityName: "Book"))
            #expect(log.count == 1, "a fetch posts the pending changes first")
            book("Emma", pages: 100, in: context)
            try context.save()
            #expect(countsSeenBySave.values == [2], "the change notification comes before the will-save one")
            #expect(log.titles(NSInsertedObjectsKey) == ["Emma"])
        }
        #expect(log.count == 2)
    }

    @Test func resetAndRefreshAreReported() throws {
        let context = try inMemoryContext()
        let log = ChangeLog(context)
        try context.performAndWait {
            let dune = book("Dune", pages: 100, in: context)
            try context.save()
            context.refresh(dune, mergeChanges: false)
        }
        #expect(context.performAndWait { log.titles(NSRefreshedObjectsKey) } == ["Dune"])
        context.performAndWait { context.reset() }
        #expect(log.lastKeys == [NSInvalidatedAllObjectsKey])
        #expect((log.notifications.last?[NSInvalidatedAllObjectsKey] as? [NSManagedObjectID])?.count == 1)
    }

    @Test func applesSwiftNamesHaveApplesValues() {
        #expect(NSManagedObjectContext.didChangeObjectsNotification.rawValue == "NSObjectsChangedInManagingContextNotification")
        #expect(NSManagedObjectContext.didSaveObjectsNotification == .NSManagedObjectContextDidSave)
        #expect(NSManagedObjectContext.willSaveObjectsNotification == .NSManagedObjectContextWillSave)
        #expect(NSManagedObjectContext.NotificationKey.insertedObjects.rawValue == NSInsertedObjectsKey)
        #expect(NSManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue == NSInvalidatedAllObjectsKey)
        #expect(NSFetchedResultsChangeType.insert.rawValue == 1 && NSFetchedResultsChangeType.delete.rawValue == 2)
        #expect(NSFetchedResultsChangeType.move.rawValue == 3 && NSFetchedResultsChangeType.update.rawValue == 4)
    }
}

// MARK: Fetched results controller

struct FetchedResultsControllerTests {
    /// An in-memory context holding Dune (100 pages), Emma (100) and Ulysses (200), saved.
    private func library() throws -> NSManagedObjectContext {
        let context = try inMemoryContext()
        try context.performAndWait {
            book("Dune", pages: 100, in: context)
            book("Emma", pages: 100, in: context)
            book("Ulysses", pages: 200, in: context)
            try context.save()
        }
        return context
    }

    @Test func sectionsAndObjects() throws {
        let context = try library()
        let controller = booksByPages(in: context)
        #expect(controller.fetchedObjects == nil && controller.sections == nil)
        try context.performAndWait {
            try controller.performFetch()
            #expect(titles(controller.fetchedObjects) == ["Dune", "Emma", "Ulysses"])
            let sections = controller.sections ?? []
            #expect(sections.map(\.name) == ["100", "200"])
            #expect(sections.map(\.numberOfObjects) == [2, 1])
            #expect(sections.map { titles($0.objects) } == [["Dune", "Emma"], ["Ulysses"]])
            #expect(sections.map(\.indexTitle) == ["1", "2"])
            #expect(controller.object(at: IndexPath(row: 1, section: 0)).title == "Emma")
            let ulysses = controller.object(at: IndexPath(item: 0, section: 1))
            #expect(controller.indexPath(forObject: ulysses) == IndexPath(row: 0, section: 1))
            #expect(controller.sectionIndexTitles == ["1", "2"])
            #expect(controller.section(forSectionIndexTitle: "2", at: 1) == 1)
            #expect(controller.sectionIndexTitle(forSectionName: "apple") == "A")
        }
        let unsectioned = NSFetchedResultsController(fetchRequest: controller.fetchRequest, managedObjectContext: context,
                                                     sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            try unsectioned.performFetch()
            #expect(unsectioned.sections?.map(\.name) == [""])
            #expect(unsectioned.sections?.first?.numberOfObjects == 3)
        }
        NSFetchedResultsController<Book>.deleteCache(withName: nil)
    }

    @Test func requestWithoutSortDescriptorsIsRefused() throws {
        let context = try library()
        let controller = NSFetchedResultsController(fetchRequest: NSFetchRequest<Book>(entityName: "Book"), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let error = #expect(throws: NSError.self) { try context.performAndWait { try controller.performFetch() } }
        #expect(error?.code == NSCoreDataError)
        #expect(controller.fetchedObjects == nil)
    }

    @Test func anEmptyArrayOfSortDescriptorsIsAccepted() throws {
        let context = try library()
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = []
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait { try controller.performFetch() }
        let all = try context.performAndWait { try context.count(for: NSFetchRequest<Book>(entityName: "Book")) }
        #expect(controller.fetchedObjects?.count == all)
        #expect(all > 0)
    }

    @Test func delegateHearsInsertUpdateMoveDeleteAndSectionChanges() throws {
        let context = try library()
        let controller = booksByPages(in: context)
        let recorder = try fetchAndRecord(controller)
        #expect(recorder.take() == [], "fetching reports nothing")

        let anna = context.performAndWait { book("Anna", pages: 100, in: context) }
        #expect(recorder.take() == ["will", "insert Anna nil->[0,0]", "did"])
        #expect(recorder.controller?.isEqual(controller) == true, "the delegate's controller is a view of this one")

        let emma = context.performAndWait { controller.object(at: IndexPath(row: 2, section: 0)) }
        context.performAndWait { emma.title = "Eve" }
        #expect(recorder.take() == ["will", "update Eve [0,2]->[0,2]", "did"], "a change that keeps the order is an update")

        context.performAndWait { anna.title = "Zora" }
        #expect(recorder.take() == ["will", "move Zora [0,0]->[0,2]", "did"], "a change of a sort key is a move")
        #expect(context.performAndWait { titles(controller.fetchedObjects) } == ["Dune", "Eve", "Zora", "Ulysses"])

        context.performAndWait { controller.object(at: IndexPath(row: 0, section: 0)).pages = 200 }
        #expect(recorder.take() == ["will", "move Dune [0,0]->[1,0]", "did"], "a change of section is a move")

        let solo = context.performAndWait { book("Solo", pages: 300, in: context) }
        #expect(recorder.take() == ["will", "section insert 300 @2", "insert Solo nil->[2,0]", "did"])

        context.performAndWait { context.delete(solo) }
        #expect(recorder.take() == ["will", "section delete 300 @2", "delete Solo [2,0]->nil", "did"])

        context.performAndWait {
            context.delete(controller.object(at: IndexPath(row: 1, section: 1)))
            book("Bea", pages: 100, in: context)
        }
        #expect(recorder.take() == ["will", "delete Ulysses [1,1]->nil", "insert Bea nil->[0,0]", "did"])
        #expect(context.performAndWait { controller.sections?.map { titles($0.objects) } } == [["Bea", "Eve", "Zora"], ["Dune"]])

        context.performAndWait { _ = book("Unsorted", pages: 100, in: context); context.processPendingChanges() }
        #expect(recorder.take() == ["will", "insert Unsorted nil->[0,2]", "did"], "an explicit processPendingChanges() reports at once")
    }

    @Test func predicateDecidesWhetherChangedObjectsEnterOrLeave() throws {
        let context = try library()
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.predicate = NSPredicate(format: "pages < %d", 150)
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let recorder = try fetchAndRecord(controller)
        #expect(context.performAndWait { titles(controller.fetchedObjects) } == ["Dune", "Emma"])
        let ulysses = try context.performAndWait {
            let request = NSFetchRequest<Book>(entityName: "Book")
            request.predicate = NSPredicate(format: "title == %@", "Ulysses")
            return try #require(try context.fetch(request).first)
        }
        context.performAndWait {
            ulysses.pages = 120
            controller.object(at: IndexPath(row: 0, section: 0)).pages = 500
        }
        #expect(recorder.take() == ["will", "delete Dune [0,0]->nil", "insert Ulysses nil->[0,1]", "did"])
        #expect(context.performAndWait { titles(controller.fetchedObjects) } == ["Emma", "Ulysses"])
    }

    @Test func withoutDelegateTheResultsStayAsFetched() throws {
        let context = try library()
        let controller = booksByPages(in: context)
        try context.performAndWait { try controller.performFetch() }
        context.performAndWait { _ = book("Anna", pages: 100, in: context) }
        #expect(context.performAndWait { titles(controller.fetchedObjects) } == ["Dune", "Emma", "Ulysses"])
        try context.performAndWait { try controller.performFetch() }
        #expect(context.performAndWait { titles(controller.fetchedObjects) } == ["Anna", "Dune", "Emma", "Ulysses"])
    }

    @Test func resetFetchesAgain() throws {
        let context = try library()
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.fetchLimit = 2
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let recorder = try fetchAndRecord(controller)
        context.performAndWait { context.reset() }
        #expect(recorder.take() == ["will", "delete Dune [0,0]->nil", "delete Emma [0,1]->nil",
                                    "insert Dune nil->[0,0]", "insert Emma nil->[0,1]", "did"])
        context.performAndWait { _ = book("Anna", pages: 1, in: context) }
        #expect(recorder.take() == ["will", "delete Emma [0,1]->nil", "insert Anna nil->[0,0]", "did"], "the fetch limit holds")
        #expect(context.performAndWait { titles(controller.fetchedObjects) } == ["Anna", "Dune"])
    }

    @Test func childSavesReachTheParentsController() throws {
        let parent = try library()
        let controller = booksByPages(in: parent)
        let recorder = try fetchAndRecord(controller)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            book("Anna", pages: 200, in: child)
            try child.save()
        }
        #expect(recorder.take() == ["will", "insert Anna nil->[1,0]", "did"])
    }

    @Test func sqliteStoreReopenedAndChangesMergedFromAnotherContext() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("frc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Books.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                book("Dune", pages: 100, in: context)
                book("Emma", pages: 100, in: context)
                book("Ulysses", pages: 200, in: context)
                try context.save()
            }
        }

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let viewContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        viewContext.persistentStoreCoordinator = coordinator
        viewContext.performAndWait { viewContext.automaticallyMergesChangesFromParent = true }
        let log = ChangeLog(viewContext)
        let controller = booksByPages(in: viewContext)
        let recorder = try fetchAndRecord(controller)
        #expect(viewContext.performAndWait { controller.sections?.map { titles($0.objects) } } == [["Dune", "Emma"], ["Ulysses"]])

        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try writer.performAndWait {
            let all = try writer.fetch(NSFetchRequest<Book>(entityName: "Book"))
            for book in all where book.title == "Dune" { writer.delete(book) }
            for book in all where book.title == "Emma" { book.pages = 200 }
            book("Solo", pages: 300, in: writer)
            try writer.save()
        }
        viewContext.performAndWait {}  // runs after the merge the writer's save queued on the view context
        viewContext.performAndWait {
            #expect(log.titles(NSInsertedObjectsKey) == ["Solo"])
            #expect(log.titles(NSDeletedObjectsKey) == ["Dune"])
            #expect(log.titles(NSRefreshedObjectsKey) == ["Emma"])
        }
        #expect(recorder.take() == ["will", "section delete 100 @0", "section insert 300 @1",
                                    "delete Dune [0,0]->nil", "insert Solo nil->[1,0]", "move Emma [0,1]->[0,0]", "did"])
        viewContext.performAndWait {
            #expect(controller.sections?.map { titles($0.objects) } == [["Emma", "Ulysses"], ["Solo"]])
        }
    }
}

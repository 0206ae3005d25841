import CoreData
import Foundation
import Testing

/// A store of one kind in a temporary folder, with contexts that have undo managers, and a way to read it
/// again as a new process would.
final class UndoTestStore {
    enum Kind: String, CaseIterable, Sendable { case inMemory, sqlite }

    let kind: Kind
    let folder: URL
    let url: URL
    let coordinator: NSPersistentStoreCoordinator

    init(_ kind: Kind) throws {
        self.kind = kind
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("undo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent("Library.sqlite")
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
        try coordinator.addPersistentStore(type: storeType, at: url)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var storeType: NSPersistentStore.StoreType { kind == .sqlite ? .sqlite : .inMemory }

    /// A private-queue context of the store with a new undo manager.
    func contextWithUndo() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = UndoManager()
        return context
    }

    /// The authors' names as the store has them: the SQLite file opened by a new coordinator, the in-memory
    /// store (which lives as long as its coordinator) read by a new context.
    func savedAuthorNames() throws -> [String] {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        if kind == .sqlite {
            let reopened = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
            try reopened.addPersistentStore(type: .sqlite, at: url)
            reader.persistentStoreCoordinator = reopened
        } else {
            reader.persistentStoreCoordinator = coordinator
        }
        return try reader.performAndWait {
            try reader.fetch(NSFetchRequest<Author>(entityName: "Author")).map { $0.name ?? "" }.sorted()
        }
    }

    /// Each book's title with its author's name, as the store has them.
    func savedBookAuthors() throws -> [String] {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        if kind == .sqlite {
            let reopened = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
            try reopened.addPersistentStore(type: .sqlite, at: url)
            reader.persistentStoreCoordinator = reopened
        } else {
            reader.persistentStoreCoordinator = coordinator
        }
        return try reader.performAndWait {
            try reader.fetch(Book.fetchRequest()).map { "\($0.title ?? "") by \($0.author?.name ?? "nobody")" }.sorted()
        }
    }
}

/// Records a context's `NSManagedObjectContextObjectsDidChange` notifications.
private final class ObjectsDidChangeLog: @unchecked Sendable {
    private(set) var notifications: [[AnyHashable: Any]] = []
    private var token: NSObjectProtocol?

    init(_ context: NSManagedObjectContext) {
        token = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: context,
                                                       queue: nil) { [weak self] notification in
            self?.notifications.append(notification.userInfo ?? [:])
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }

    /// Keeps a notification an observer received.
    final class SavedNotification: @unchecked Sendable {
        var notification: Notification?
    }

    /// The objects under `key` in the latest notification.
    func last(_ key: String) -> Set<NSManagedObject> {
        notifications.last?[key] as? Set<NSManagedObject> ?? []
    }
}

/// Undo in contexts: every change a context processes registers with its undo manager, and undo and redo put
/// objects, values, relationships and the change sets back, on every store, before and after saves.
@Suite struct ContextUndoTests {
    /// Apple's example is main-queue code (the view context used outside blocks), so it runs on the main actor.
    @Test(arguments: UndoTestStore.Kind.allCases) @MainActor
    func applesExampleRunsUnchanged(_ kind: UndoTestStore.Kind) throws {
        let store = try UndoTestStore(kind)
        let container = NSPersistentContainer(name: "Library", managedObjectModel: libraryModel())
        let description = NSPersistentStoreDescription(url: store.folder.appendingPathComponent("Container.sqlite"))
        description.type = kind == .sqlite ? NSSQLiteStoreType : NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        #expect(container.viewContext.undoManager == nil, "no undo manager by default")

        container.viewContext.undoManager = UndoManager()
        let context = container.viewContext
        let item = Author(context: context)
        item.name = "A"
        #expect(context.undoManager?.canUndo == true)
        context.undo()
        #expect(!context.insertedObjects.contains(item))
        #expect(!context.hasChanges)
        #expect(item.managedObjectContext == nil)
        context.redo()
        #expect(context.insertedObjects.contains(item))
        #expect(item.managedObjectContext === context)
        #expect(item.name == "A")

        context.undoManager?.beginUndoGrouping()
        item.name = "B"
        context.undoManager?.endUndoGrouping()
        context.undoManager?.setActionName("Rename")
        #expect(context.undoManager?.undoActionName == "Rename")
        #expect(context.undoManager?.undoMenuItemTitle == "Undo Rename")
        context.undo()
        #expect(item.name == "A")
        #expect(context.undoManager?.redoMenuItemTitle == "Redo Rename")
        #expect(context.undoManager?.levelsOfUndo == 0)

        try context.save()
        context.undoManager?.removeAllActions()
        #expect(context.undoManager?.canUndo == false)
        item.name = "C"
        context.rollback()
        #expect(context.undoManager?.canUndo == false, "rollback empties the undo stack")
        #expect(item.name == "A")
    }

    @Test(arguments: UndoTestStore.Kind.allCases)
    func undoingAnUpdateRestoresValuesAndTheUpdatedSet(_ kind: UndoTestStore.Kind) throws {
        let store = try UndoTestStore(kind)
        let context = store.contextWithUndo()
        let author = try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            author.age = 30
            try context.save()
            return author
        }
        context.performAndWait {
            author.name = "Bea"
            author.age = 40
        }
        context.performAndWait {
            #expect(context.updatedObjects == [author])
            context.undo()
            #expect(author.name == "Ann")
            #expect(author.age == 30)
            #expect(context.updatedObjects.isEmpty)
            #expect(!context.hasChanges)
            #expect(!author.hasChanges)
            context.redo()
            #expect(author.name == "Bea")
            #expect(context.updatedObjects == [author])
            #expect(author.changedValues().keys.sorted() == ["age", "name"])
        }
        try context.performAndWait { try context.save() }
        #expect(try store.savedAuthorNames() == ["Bea"])
    }

    @Test(arguments: UndoTestStore.Kind.allCases)
    func undoingADeletionBringsBackItsRelationshipsAndCascades(_ kind: UndoTestStore.Kind) throws {
        let store = try UndoTestStore(kind)
        let context = store.contextWithUndo()
        let (author, book, draft) = try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            let book = Book(context: context)
            book.title = "Dune"
            book.author = author
            let draft = Draft(context: context)
            draft.text = "first"
            draft.author = author
            try context.save()
            return (author, book, draft)
        }
        context.performAndWait { context.delete(author) }
        try context.performAndWait {
            #expect(context.deletedObjects == Set<NSManagedObject>([author, draft]), "the drafts cascade")
            #expect(book.author == nil)
            context.undo()
            #expect(context.deletedObjects.isEmpty)
            #expect(!author.isDeleted && !draft.isDeleted)
            #expect(!context.hasChanges)
            #expect(book.author === author)
            #expect(author.books == [book])
            #expect(author.drafts == [draft])
            #expect(draft.author === author)
            context.redo()
            #expect(context.deletedObjects == Set<NSManagedObject>([author, draft]))
            #expect(book.author == nil)
            try context.save()
        }
        #expect(try store.savedAuthorNames() == [])
        #expect(try store.savedBookAuthors() == ["Dune by nobody"])
    }

    @Test(arguments: UndoTestStore.Kind.allCases)
    func undoingARelationshipChangeRestoresBothSides(_ kind: UndoTestStore.Kind) throws {
        let store = try UndoTestStore(kind)
        let context = store.contextWithUndo()
        let (ann, bea, book) = try context.performAndWait {
            let ann = Author(context: context), bea = Author(context: context)
            ann.name = "Ann"
            bea.name = "Bea"
            let book = Book(context: context)
            book.title = "Dune"
            book.author = ann
            try context.save()
            return (ann, bea, book)
        }
        context.performAndWait { book.author = bea }
        try context.performAndWait {
            #expect(ann.books.isEmpty && bea.books == [book])
            context.undo()
            #expect(book.author === ann)
            #expect(ann.books == [book])
            #expect(bea.books.isEmpty)
            #expect(!context.hasChanges)
            context.redo()
            #expect(book.author === bea)
            #expect(bea.books == [book] && ann.books.isEmpty)
            #expect(context.updatedObjects == Set<NSManagedObject>([ann, bea, book]))
            context.undo()
            try context.save()
        }
        #expect(try store.savedBookAuthors() == ["Dune by Ann"])
    }

    @Test(arguments: UndoTestStore.Kind.allCases)
    func undoingAReorderOfAnOrderedRelationshipRestoresTheOrder(_ kind: UndoTestStore.Kind) throws {
        let store = try UndoTestStore(kind)
        let context = store.contextWithUndo()
        let (author, first, second) = try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            let first = Draft(context: context), second = Draft(context: context)
            first.text = "first"
            second.text = "second"
            author.drafts = [first, second]
            try context.save()
            return (author, first, second)
        }
        context.performAndWait { author.drafts = [second, first] }
        try context.performAndWait {
            context.undo()
            #expect(author.drafts.map(\.text) == ["first", "second"])
            #expect(!context.hasChanges)
            context.redo()
            #expect(author.drafts.map(\.text) == ["second", "first"])
            try context.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        if kind == .sqlite {
            let reopened = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
            try reopened.addPersistentStore(type: .sqlite, at: store.url)
            reader.persistentStoreCoordinator = reopened
        } else {
            reader.persistentStoreCoordinator = store.coordinator
        }
        let texts = try reader.performAndWait {
            try reader.fetch(NSFetchRequest<Author>(entityName: "Author")).first?.drafts.map { $0.text ?? "" }
        }
        #expect(texts == ["second", "first"])
    }

    @Test func aValueSetAndSetBackRegistersNothing() throws {
        let store = try UndoTestStore(.inMemory)
        let context = store.contextWithUndo()
        let author = try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            try context.save()
            context.undoManager?.removeAllActions()
            return author
        }
        context.performAndWait {
            author.name = "Bea"
            author.name = "Ann"
            context.processPendingChanges()
            #expect(context.undoManager?.canUndo == false)
        }
    }

    @Test(arguments: UndoTestStore.Kind.allCases)
    func undoAfterASaveChangesTheObjectAgainAndSavingWritesIt(_ kind: UndoTestStore.Kind) throws {
        let store = try UndoTestStore(kind)
        let context = store.contextWithUndo()
        let author = try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            try context.save()
            return author
        }
        try context.performAndWait {
            author.name = "Bea"
            try context.save()
        }
        #expect(try store.savedAuthorNames() == ["Bea"])

        try context.performAndWait {
            context.undo()
            #expect(author.name == "Ann")
            #expect(context.hasChanges, "the store still has Bea")
            #expect(context.updatedObjects == [author])
            try context.save()
        }
        #expect(try store.savedAuthorNames() == ["Ann"])

        try context.performAndWait {
            context.undo()  // the insertion: the saved object is deleted
            #expect(context.deletedObjects == [author])
            try context.save()
        }
        #expect(try store.savedAuthorNames() == [])

        try context.performAndWait {
            context.redo()  // inserted again, with its ID
            #expect(context.insertedObjects == [author])
            try context.save()
            context.redo()
            #expect(author.name == "Bea")
            try context.save()
        }
        #expect(try store.savedAuthorNames() == ["Bea"])
    }

    @Test func undoAndRedoPostObjectsDidChange() throws {
        let store = try UndoTestStore(.inMemory)
        let context = store.contextWithUndo()
        let log = ObjectsDidChangeLog(context)
        let author = context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            return author
        }
        #expect(log.last(NSInsertedObjectsKey) == [author])
        context.performAndWait { context.undo() }
        #expect(log.last(NSDeletedObjectsKey) == [author])
        context.performAndWait { context.redo() }
        #expect(log.last(NSInsertedObjectsKey) == [author])
        context.performAndWait { author.name = "Bea" }
        context.performAndWait { context.undo() }
        #expect(log.last(NSUpdatedObjectsKey) == [author])
        #expect(context.performAndWait { author.name } == "Ann")
    }

    @Test func eachBlockOfAPrivateContextIsOneUndoGroup() throws {
        let store = try UndoTestStore(.inMemory)
        let context = store.contextWithUndo()
        let ann = context.performAndWait { Author(context: context) }
        let bea = context.performAndWait { Author(context: context) }
        context.performAndWait {
            #expect(context.undoManager?.undoCount == 2)
            #expect(context.undoManager?.groupingLevel == 0)
            context.undo()
            #expect(context.insertedObjects == [ann])
            #expect(bea.managedObjectContext == nil)
        }
    }

    @Test func theViewContextsChangesOnTheMainQueueAreOneGroupPerEvent() async throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: libraryModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.persistentStoreDescriptions[0].type = NSInMemoryStoreType
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let view = container.viewContext
        await MainActor.run {
            view.undoManager = UndoManager()
            Author(context: view).name = "Ann"
        }
        await MainActor.run {
            #expect(view.undoManager?.groupingLevel == 0, "the event ended: its changes were registered and its group closed")
            let bea = Author(context: view)
            bea.name = "Bea"
            bea.age = 20
        }
        await MainActor.run {
            #expect(view.undoManager?.undoCount == 2)
            view.undo()
            #expect(view.insertedObjects.compactMap { ($0 as? Author)?.name } == ["Ann"])
        }
    }

    @Test func rollbackAndResetClearTheUndoStack() throws {
        let store = try UndoTestStore(.inMemory)
        let context = store.contextWithUndo()
        context.performAndWait {
            Author(context: context).name = "Ann"
            context.processPendingChanges()
            #expect(context.undoManager?.canUndo == true)
            context.rollback()
            #expect(context.undoManager?.canUndo == false)
            #expect(!context.hasChanges)
            Author(context: context).name = "Bea"
            #expect(context.undoManager?.canUndo == true)
            context.reset()
            #expect(context.undoManager?.canUndo == false)
        }
    }

    @Test func changesMadeWhileRegistrationIsDisabledCannotBeUndone() throws {
        let store = try UndoTestStore(.inMemory)
        let context = store.contextWithUndo()
        let author = try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            try context.save()
            context.undoManager?.removeAllActions()
            return author
        }
        context.performAndWait {
            // Apple's documented way to keep changes out of the undo stack.
            context.processPendingChanges()
            context.undoManager?.disableUndoRegistration()
            author.name = "Imported"
            context.processPendingChanges()
            context.undoManager?.enableUndoRegistration()
            #expect(context.undoManager?.canUndo == false)
            context.undo()
            #expect(author.name == "Imported")
        }
    }

    @Test func mergedChangesAndChildSavesAreNotRegistered() throws {
        let store = try UndoTestStore(.inMemory)
        let context = store.contextWithUndo()
        let author = try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            try context.save()
            context.undoManager?.removeAllActions()
            return author
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = store.coordinator
        let saved = ObjectsDidChangeLog.SavedNotification()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: other, queue: nil) { saved.notification = $0 }
        defer { NotificationCenter.default.removeObserver(token) }
        try other.performAndWait {
            let copy = try other.fetch(NSFetchRequest<Author>(entityName: "Author"))
            copy.first?.name = "Bob"
            try other.save()
        }
        let notification = try #require(saved.notification)
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: notification)
            #expect(author.name == "Bob")
            #expect(context.undoManager?.canUndo == false)
        }

        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = context
        try child.performAndWait {
            Author(context: child).name = "Cat"
            try child.save()
        }
        context.performAndWait {
            #expect(context.insertedObjects.count == 1)
            #expect(context.undoManager?.canUndo == false)
        }
    }

    @Test func settingTheUndoManagerToNilStopsRecording() throws {
        let store = try UndoTestStore(.inMemory)
        let context = store.contextWithUndo()
        let manager = try #require(context.undoManager)
        context.undoManager = nil
        context.performAndWait { Author(context: context).name = "Ann" }
        #expect(!manager.canUndo)
        context.performAndWait { context.undo() }
        #expect(context.performAndWait { context.insertedObjects.count } == 1)
    }
}

import CoreData
import Foundation
import Testing

/// What `updatedObjects`, the change notifications and a save report for saved objects that change, whatever the
/// order of their updates, removals from the updated objects (refresh, rollback, undo, delete) and updates again:
/// each changed object is listed once, an object that leaves is not listed, and the others stay. SQLite store,
/// checked again after a reopen.
@Suite struct UpdatedObjectsTableTests {
    /// A store holding authors "a0" … "a<count - 1>", saved, and a context (with an undo manager) that fetched them,
    /// sorted by name.
    private func savedAuthors(_ count: Int) throws -> (UndoTestStore, NSManagedObjectContext, [Author]) {
        let store = try UndoTestStore(.sqlite)
        let writer = store.contextWithUndo()
        try writer.performAndWait {
            for index in 0..<count { Author(context: writer).name = "a\(index)" }
            try writer.save()
        }
        let context = store.contextWithUndo()
        let authors = try context.performAndWait {
            let request = NSFetchRequest<Author>(entityName: "Author")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request)
        }
        return (store, context, authors)
    }

    private func names(_ objects: Set<NSManagedObject>) -> Set<String> {
        Set(objects.compactMap { ($0 as? Author)?.name })
    }

    /// The names in the `key` set of each did-save notification of `context` posted while `body` runs.
    private func didSaveNames(_ context: NSManagedObjectContext, _ key: String, _ body: () throws -> Void) rethrows -> [Set<String>] {
        final class Log: @unchecked Sendable { var sets: [Set<String>] = [] }
        let log = Log()
        let token = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: context,
                                                           queue: nil) { notification in
            let objects = notification.userInfo?[key] as? Set<NSManagedObject> ?? []
            log.sets.append(Set(objects.compactMap { ($0 as? Author)?.name }))
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try body()
        return log.sets
    }

    @Test func anObjectSetManyTimesIsListedOnceAndSavedWithItsLastValue() throws {
        let (store, context, authors) = try savedAuthors(3)
        try context.performAndWait {
            for round in 0..<5 {
                authors[1].name = "b\(round)"
                authors[2].name = "c\(round)"
            }
            #expect(context.updatedObjects.count == 2)
            #expect(names(context.updatedObjects) == ["b4", "c4"])
            #expect(authors[1].isUpdated && authors[2].isUpdated && !authors[0].isUpdated)
            let updated = try didSaveNames(context, NSUpdatedObjectsKey) { try context.save() }
            #expect(updated == [["b4", "c4"]])
            #expect(context.updatedObjects.isEmpty && !context.hasChanges)
        }
        #expect(try store.savedAuthorNames() == ["a0", "b4", "c4"])
    }

    @Test func anObjectUpdatedThenDeletedIsSavedAndReportedOnlyAsDeleted() throws {
        let (store, context, authors) = try savedAuthors(3)
        try context.performAndWait {
            authors[0].name = "x0"
            authors[1].name = "x1"
            context.delete(authors[0])
            #expect(names(context.updatedObjects) == ["x1"])
            #expect(context.deletedObjects.count == 1)
            var deleted: [Set<String>] = []
            let updated = try didSaveNames(context, NSUpdatedObjectsKey) {
                deleted = try didSaveNames(context, NSDeletedObjectsKey) { try context.save() }
            }
            #expect(updated == [["x1"]])
            #expect(deleted == [["x0"]])
            #expect(!context.hasChanges)
        }
        #expect(try store.savedAuthorNames() == ["a2", "x1"])
    }

    @Test func aRefreshedObjectLeavesTheUpdatedObjectsAndTheOthersStay() throws {
        let (store, context, authors) = try savedAuthors(4)
        try context.performAndWait {
            for (index, author) in authors.enumerated() { author.name = "u\(index)" }
            // Out of the middle of the table, then the first: the remaining objects are still listed, once each.
            context.refresh(authors[1], mergeChanges: false)
            context.refresh(authors[0], mergeChanges: false)
            #expect(names(context.updatedObjects) == ["u2", "u3"])
            #expect(authors[0].name == "a0" && authors[1].name == "a1")
            // Updated again after leaving: listed once more, once.
            authors[1].name = "v1"
            authors[1].name = "w1"
            #expect(names(context.updatedObjects) == ["w1", "u2", "u3"])
            #expect(context.updatedObjects.count == 3)
            let updated = try didSaveNames(context, NSUpdatedObjectsKey) { try context.save() }
            #expect(updated == [["w1", "u2", "u3"]])
        }
        #expect(try store.savedAuthorNames() == ["a0", "u2", "u3", "w1"])
    }

    @Test func rollbackAndUndoEmptyTheUpdatedObjectsAndLaterUpdatesAreListedAgain() throws {
        let (store, context, authors) = try savedAuthors(3)
        try context.performAndWait {
            authors[0].name = "r0"
            authors[2].name = "r2"
            context.rollback()
            #expect(context.updatedObjects.isEmpty && !context.hasChanges)
            #expect(authors[0].name == "a0")

            authors[2].name = "s2"
            context.processPendingChanges()
            context.undoManager?.undo()
            #expect(context.updatedObjects.isEmpty, "undoing the only change leaves the object unchanged")
            #expect(authors[2].name == "a2")
            context.undoManager?.redo()
            #expect(names(context.updatedObjects) == ["s2"])

            authors[2].name = "t2"
            authors[1].name = "t1"
            #expect(names(context.updatedObjects) == ["t1", "t2"])
            try context.save()
        }
        #expect(try store.savedAuthorNames() == ["a0", "t1", "t2"])
    }

    @Test func afterResetTheContextsNewObjectsAreListedFromScratch() throws {
        let (store, context, authors) = try savedAuthors(2)
        try context.performAndWait {
            authors[0].name = "gone"
            context.reset()
            #expect(context.updatedObjects.isEmpty && !context.hasChanges)
            let request = NSFetchRequest<Author>(entityName: "Author")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let fetched = try context.fetch(request)
            fetched[1].name = "kept"
            #expect(names(context.updatedObjects) == ["kept"])
            try context.save()
        }
        #expect(try store.savedAuthorNames() == ["a0", "kept"])
    }
}

import CoreData
import Foundation
import Testing

/// What `insertedObjects` and `hasChanges` report as objects are inserted, deleted before a save, rolled back,
/// brought back by undo and saved: the context keeps its inserted objects as a list and a count, and these pin down
/// that the count follows every way an object stops being inserted. SQLite store, checked again after a reopen.
@Suite struct InsertedObjectsCountTests {
    private func names(_ objects: Set<NSManagedObject>) -> Set<String> {
        Set(objects.compactMap { ($0 as? Author)?.name })
    }

    @Test func insertsDeletedBeforeTheSaveLeaveTheInsertedObjectsAndTheRestAreSaved() throws {
        let store = try UndoTestStore(.sqlite)
        let context = store.contextWithUndo()
        try context.performAndWait {
            let first = Author(context: context), second = Author(context: context)
            first.name = "first"
            second.name = "second"
            #expect(names(context.insertedObjects) == ["first", "second"] && context.hasChanges)
            context.delete(first)
            #expect(names(context.insertedObjects) == ["second"] && context.hasChanges)
            context.delete(second)
            #expect(context.insertedObjects.isEmpty)
            #expect(!context.hasChanges, "inserting and deleting both leaves nothing to save")
            let third = Author(context: context)
            third.name = "third"
            #expect(names(context.insertedObjects) == ["third"])
            try context.save()
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)
        }
        #expect(try store.savedAuthorNames() == ["third"])
    }

    @Test func rollbackUndoAndRedoKeepTheInsertedObjectsTrue() throws {
        let store = try UndoTestStore(.sqlite)
        let context = store.contextWithUndo()
        try context.performAndWait {
            Author(context: context).name = "rolled back"
            context.rollback()
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)

            let kept = Author(context: context)
            kept.name = "kept"
            context.processPendingChanges()
            context.undoManager?.undo()
            #expect(context.insertedObjects.isEmpty && !context.hasChanges, "the insert undone")
            context.undoManager?.redo()
            #expect(names(context.insertedObjects) == ["kept"] && context.hasChanges, "the insert redone, counted once")
            try context.save()
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)
        }
        #expect(try store.savedAuthorNames() == ["kept"])
    }

    @Test func afterResetNewInsertsAreCountedFromScratch() throws {
        let store = try UndoTestStore(.sqlite)
        let context = store.contextWithUndo()
        try context.performAndWait {
            Author(context: context).name = "forgotten"
            context.reset()
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)
            let fresh = Author(context: context)
            fresh.name = "fresh"
            context.delete(fresh)
            #expect(!context.hasChanges)
            Author(context: context).name = "saved"
            #expect(names(context.insertedObjects) == ["saved"])
            try context.save()
        }
        #expect(try store.savedAuthorNames() == ["saved"])
    }
}

import CoreData
import Foundation
import Testing
import AppleStyleJournal

/// Apple-style app code (`Examples/AppleStyleJournal`, written as apps write it against Apple's Core Data and
/// built unchanged but for `@objc(…)`) run on every built-in store type: Xcode's generated classes, a container
/// subclass, validation rules from the model, undo, a merge-policy subclass, batch deletes merged into the view
/// context, persistent history with a token kept on disk, and backups. The app's code uses the view context on the
/// main queue, so the tests run on the main actor.
@Suite @MainActor struct AppleStyleJournalTests {
    nonisolated static let types = [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType, NSInMemoryStoreType]

    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    @Test func xcodesTemplatePreviewStoreHoldsItsEntries() throws {
        #expect(try previewEntryCount() == 10)
    }

    @Test(arguments: types) func anAppsJournalWorksOnEveryStore(_ type: String) throws {
        let folder = Folder()
        let url = folder.url.appendingPathComponent("Journal.store")
        let container = try JournalContainer.make(storeURL: url, type: type)
        let context = container.viewContext
        let old = Date(timeIntervalSinceReferenceDate: 600_000_000)

        let journal = Journal(context: context)
        journal.name = "Travels"
        for (index, title) in ["Lisbon", "Porto", "Faro"].enumerated() {
            let entry = Entry(context: context)
            entry.id = UUID()
            entry.title = title
            entry.createdAt = index == 0 ? old : Date()
            entry.mood = Int16(index + 2)
            journal.addToEntries(entry)
        }
        try container.saveContext()
        #expect(journal.entries?.count == 3)

        // The model's rules: mood at most 5.
        let entry = try #require((journal.entries as? Set<Entry>)?.first { $0.title == "Lisbon" })
        entry.mood = 9
        do {
            try container.saveContext()
            Issue.record("a mood above the model's maximum must not save")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSValidationNumberTooLargeError)
        }
        context.rollback()
        #expect(entry.mood <= 5)

        // Editing with undo: one named group per edit.
        let editor = EntryEditor(container: container)
        let title = entry.title
        editor.rename(entry, to: "Renamed")
        #expect(editor.undoActionName == "Rename Entry")
        editor.undo()
        #expect(entry.title == title)
        editor.redo()
        #expect(entry.title == "Renamed")
        try container.saveContext()

        // A merge-policy subclass adds counters that two contexts inserted under one name.
        try addToCounter("visits", 2, in: container)
        try addToCounter("visits", 3, in: container)
        let counters = try context.fetch(Counter.fetchRequest())
        #expect(counters.map(\.value) == [5], "one counter, with both amounts")

        // A batch delete, merged into the view context.
        #expect(try deleteEntries(olderThan: Date(timeIntervalSinceReferenceDate: 650_000_000), in: container) == 1)
        #expect(journal.entries?.count == 2, "the view context lost the deleted entry")
        let sorted: NSFetchRequest<Entry> = Entry.fetchRequest()
        sorted.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        #expect(try context.fetch(sorted).map(\.title) == ["Faro", "Porto"])
        #expect(entryTitles(startingWith: "P", in: context) == ["Porto"], "the codebase's own Managed protocol")
        #expect(try newestEntryTitles(in: context).count == 2)

        guard type != NSInMemoryStoreType else { return }
        // A backup through the coordinator, opened as a store of its own.
        let backup = folder.url.appendingPathComponent("Backup.sqlite")
        try backUpStore(of: container, to: backup)
        let restored = try JournalContainer.make(storeURL: backup, type: NSSQLiteStoreType)
        #expect(try restored.viewContext.count(for: Entry.fetchRequest()) == 2)
        #expect(try restored.viewContext.fetch(Counter.fetchRequest()).map(\.value) == [5])

        // The store again, in a new container.
        let reopened = try JournalContainer.make(storeURL: url, type: type)
        let journals = try reopened.viewContext.fetch(Journal.fetchRequest())
        #expect(journals.map(\.name) == ["Travels"])
        #expect(Set((journals.first?.entries as? Set<Entry> ?? []).map(\.title)).count == 2)
        #expect(try reopened.viewContext.count(for: Entry.fetchRequest()) == 2)
    }

    @Test func historyFromAnotherAuthorIsMergedOnceAndTheTokenKept() throws {
        let folder = Folder()
        let container = try JournalContainer.make(storeURL: folder.url.appendingPathComponent("Journal.sqlite"), type: NSSQLiteStoreType)
        let tokenFile = folder.url.appendingPathComponent("token.data")
        let reader = HistoryReader(container: container, tokenFile: tokenFile)
        try reader.mergeNewTransactions()  // nothing yet

        let importer = container.newBackgroundContext()
        importer.transactionAuthor = "importer"
        try importer.performAndWait {
            let entry = Entry(context: importer)
            entry.id = UUID()
            entry.title = "Imported"
            entry.createdAt = Date()
            try importer.save()
        }
        #expect(try reader.mergeNewTransactions() == 1)
        #expect(try reader.mergeNewTransactions() == 0, "a transaction is merged once")
        #expect(FileManager.default.fileExists(atPath: tokenFile.path))
        #expect(try HistoryReader(container: container, tokenFile: tokenFile).mergeNewTransactions() == 0,
                "a new reader starts from the token on disk")
    }
}

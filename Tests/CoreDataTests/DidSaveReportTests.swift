import CoreData
import Foundation
import Testing

/// What a save writes and what its did-save notification reports, when objects change while the save runs: in an
/// object's `willSave()`, or in an observer of the objects-did-change notification that the save posts first. The
/// save reuses that notification's sets for its own when nothing changed in between; these cases pin down that
/// whatever changes in between is still written and reported. SQLite store, checked again after a reopen.

/// A note whose `willSave()` runs a closure once (set by the test).
final class SaveHookNote: NSManagedObject {
    @Managed var text: String?
    var onWillSave: (() -> Void)?

    override func willSave() {
        let hook = onWillSave
        onWillSave = nil
        hook?()
    }
}

/// The sets of every did-save notification of one context.
private final class DidSaveLog: @unchecked Sendable {
    private(set) var inserted: [Set<String>] = []
    private(set) var updated: [Set<String>] = []
    private var token: NSObjectProtocol?

    init(_ context: NSManagedObjectContext) {
        token = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: context,
                                                       queue: nil) { [weak self] notification in
            let info = notification.userInfo ?? [:]
            self?.inserted.append(Self.texts(info[NSInsertedObjectsKey]))
            self?.updated.append(Self.texts(info[NSUpdatedObjectsKey]))
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }

    private static func texts(_ value: Any?) -> Set<String> {
        Set(((value as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "text") as? String })
    }
}

@Suite struct DidSaveReportTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("did-save-report-\(UUID().uuidString)")
    private let model: NSManagedObjectModel = {
        let note = NSEntityDescription(name: "SaveHookNote")
        note.managedObjectClassName = "SaveHookNote"
        note.properties = [NSAttributeDescription(name: "text", type: .string)]
        return NSManagedObjectModel(entities: [note])
    }()

    private func context() throws -> NSManagedObjectContext {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("notes.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The texts of every note in the store, read through a new coordinator.
    private func storedTexts() throws -> [String] {
        let context = try context()
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SaveHookNote")).compactMap { $0.value(forKey: "text") as? String }.sorted()
        }
    }

    private func note(_ text: String, in context: NSManagedObjectContext) -> SaveHookNote {
        let note = SaveHookNote(context: context)
        note.text = text
        return note
    }

    @Test func objectsAWillSaveInsertsOrChangesAreWrittenAndReported() throws {
        let context = try context()
        let log = DidSaveLog(context)
        try context.performAndWait {
            let quiet = note("quiet", in: context)
            let edited = note("edited", in: context)
            try context.save()
            edited.text = "edited again"
            let hooked = note("hooked", in: context)
            hooked.onWillSave = {
                _ = self.note("from willSave", in: context)
                quiet.text = "changed in willSave"
            }
            try context.save()
        }
        #expect(log.inserted.last == ["hooked", "from willSave"])
        #expect(log.updated.last == ["edited again", "changed in willSave"])
        #expect(try storedTexts() == ["changed in willSave", "edited again", "from willSave", "hooked"])
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func objectsAnObserverChangesWhileTheSaveReportsChangesAreWrittenAndReported() throws {
        let context = try context()
        let log = DidSaveLog(context)
        final class Once: @unchecked Sendable { var done = false; var quiet: SaveHookNote? }
        let once = Once()
        let token = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: context,
                                                           queue: nil) { _ in
            guard let quiet = once.quiet, !once.done else { return }
            once.done = true
            _ = self.note("from observer", in: context)
            quiet.text = "changed by observer"
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try context.performAndWait {
            let quiet = note("quiet", in: context)
            let edited = note("edited", in: context)
            try context.save()
            once.quiet = quiet
            edited.text = "edited again"
            _ = note("new", in: context)
            try context.save()  // its objects-did-change notification runs the observer
        }
        #expect(once.done)
        #expect(log.inserted.last == ["new", "from observer"])
        #expect(log.updated.last == ["edited again", "changed by observer"])
        #expect(try storedTexts() == ["changed by observer", "edited again", "from observer", "new"])
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func objectsChangedBeforeAnEarlierReportAreReportedToo() throws {
        let context = try context()
        let log = DidSaveLog(context)
        let (first, second) = try context.performAndWait {
            let first = note("first", in: context)
            let second = note("second", in: context)
            try context.save()
            return (first, second)
        }
        // The end of this block reports the first change and the insert; the save's own report has only what follows.
        context.performAndWait {
            first.text = "first, changed earlier"
            _ = note("inserted earlier", in: context)
        }
        try context.performAndWait {
            second.text = "second, changed with the save"
            _ = note("inserted with the save", in: context)
            try context.save()
        }
        #expect(log.inserted.last == ["inserted earlier", "inserted with the save"])
        #expect(log.updated.last == ["first, changed earlier", "second, changed with the save"])
        #expect(try storedTexts() == ["first, changed earlier", "inserted earlier", "inserted with the save", "second, changed with the save"])
        try? FileManager.default.removeItem(at: folder)
    }
}

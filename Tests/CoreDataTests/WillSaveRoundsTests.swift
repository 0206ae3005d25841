import CoreData
import Foundation
import Testing

/// A folder whose `willSave()` is counted.
final class StampedFolder: NSManagedObject {
    @Managed var name: String?
    @Managed var modified: Date?
    var willSaveCalls = 0

    override func willSave() {
        willSaveCalls += 1
    }
}

/// A note whose `willSave()` stamps itself and its folder the way Apple's documentation asks (setting a value only
/// when it is not already changed), or, with `stampsEveryTime`, without checking.
final class StampedNote: NSManagedObject {
    @Managed var text: String?
    @Managed var modified: Date?
    @Managed var folder: StampedFolder?
    var willSaveCalls = 0
    var stampsEveryTime = false
    var stampsPrimitively = false

    override func willSave() {
        willSaveCalls += 1
        guard !isDeleted else { return }
        if stampsPrimitively { return setPrimitiveValue(Date(), forKey: "modified") }
        if stampsEveryTime || changedValues()["modified"] == nil { modified = Date() }
        if let folder, folder.changedValues()["modified"] == nil { folder.modified = Date() }
    }
}

/// `willSave()` as Apple documents it: "If you change property values using standard accessor methods, Core Data
/// will observe the resultant change notification and so invoke `willSave` again before saving the object's managed
/// object context." Objects another object's `willSave()` changes get theirs too. SQLite store, checked after a reopen.
@Suite struct WillSaveRoundsTests {
    private let url = FileManager.default.temporaryDirectory.appendingPathComponent("will-save-\(UUID().uuidString).sqlite")
    private let model: NSManagedObjectModel = {
        let note = NSEntityDescription(name: "StampedNote")
        note.managedObjectClassName = "StampedNote"
        let folder = NSEntityDescription(name: "StampedFolder")
        folder.managedObjectClassName = "StampedFolder"
        let toFolder = NSRelationshipDescription(name: "folder", destination: folder, toMany: false)
        let notes = NSRelationshipDescription(name: "notes", destination: note, toMany: true)
        toFolder.inverseRelationship = notes
        notes.inverseRelationship = toFolder
        note.properties = [NSAttributeDescription(name: "text", type: .string), NSAttributeDescription(name: "modified", type: .date), toFolder]
        folder.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "modified", type: .date), notes]
        return NSManagedObjectModel(entities: [note, folder])
    }()

    private func context() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func aWillSaveThatChangesValuesIsCalledAgainAndTheObjectsItChangesGetTheirs() throws {
        let context = try context()
        try context.performAndWait {
            let folder = StampedFolder(context: context)
            folder.name = "Inbox"
            let note = StampedNote(context: context)
            note.text = "hello"
            note.folder = folder
            try context.save()
            #expect(note.willSaveCalls == 2, "once, then again after it stamped itself")
            #expect(folder.willSaveCalls == 2, "inserted too: once, then again after the note stamped it")
            note.willSaveCalls = 0
            folder.willSaveCalls = 0
            note.text = "edited"
            try context.save()
            #expect(note.willSaveCalls == 2)
            #expect(folder.willSaveCalls == 1, "not changed before the save; changed by the note's willSave")
            #expect(!context.hasChanges)
        }
        let reopened = try self.context()
        try reopened.performAndWait {
            let folders = try reopened.fetch(NSFetchRequest<StampedFolder>(entityName: "StampedFolder"))
            let notes = try reopened.fetch(NSFetchRequest<StampedNote>(entityName: "StampedNote"))
            #expect(folders.first?.modified != nil, "the folder's stamp was saved")
            #expect(notes.first?.modified != nil && notes.first?.text == "edited")
        }
    }

    /// Apple's other way to set a value in `willSave`: the primitive setter sends no change notification, so the
    /// save does not call `willSave` again, however often it sets.
    @Test func aPrimitiveSetInWillSaveIsSavedWithoutAnotherCall() throws {
        let context = try context()
        try context.performAndWait {
            let note = StampedNote(context: context)
            note.text = "quiet"
            note.stampsPrimitively = true
            try context.save()
            #expect(note.willSaveCalls == 1)
            note.text = "edited"
            try context.save()
            #expect(note.willSaveCalls == 2)
        }
        let reopened = try self.context()
        let stamped = try reopened.performAndWait {
            try reopened.fetch(NSFetchRequest<StampedNote>(entityName: "StampedNote")).first?.modified != nil
        }
        #expect(stamped, "the primitive set is saved")
    }

    @Test func aWillSaveThatAlwaysChangesAValueFailsTheSaveInsteadOfLooping() throws {
        let context = try context()
        context.performAndWait {
            let note = StampedNote(context: context)
            note.text = "restless"
            note.stampsEveryTime = true
            var caught: NSError?
            do { try context.save() } catch { caught = error as NSError }
            #expect(caught?.domain == NSCocoaErrorDomain && caught?.code == NSCoreDataError)
            #expect(caught?.localizedDescription.contains("StampedNote") == true)
            #expect(note.willSaveCalls == 100, "one call per round, up to the limit of 100 rounds")
        }
        let reopened = try self.context()
        let count = try reopened.performAndWait { try reopened.count(for: NSFetchRequest<StampedNote>(entityName: "StampedNote")) }
        #expect(count == 0, "nothing was written")
    }
}

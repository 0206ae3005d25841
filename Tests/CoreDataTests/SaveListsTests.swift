import Foundation
import Testing
import CoreData

/// An item with a number (stored), a note and a transient scratch number.
final class SaveListItem: NSManagedObject {
    @Managed var number: Int64
    @Managed var note: String?
}

/// A save's lists of objects share one buffer where they can (the insertion list, one store's plan, objects already
/// in key order) and are copied where they cannot (objects going to two stores, objects without persistent changes,
/// updated objects out of key order); the objects-did-change notification builds its sets in one pass; a typed
/// property set stores a number bit for bit over nil or a number. Each case checks what the stores hold after a
/// reopen and what the notifications name.
@Suite struct SaveListsTests {
    typealias Item = SaveListItem

    static func model() -> NSManagedObjectModel {
        let entity = NSEntityDescription(name: "Item")
        entity.managedObjectClassName = "SaveListItem"
        let scratch = NSAttributeDescription(name: "scratch", type: .integer64)
        scratch.isTransient = true
        entity.properties = [
            NSAttributeDescription(name: "number", type: .integer64, defaultValue: 0),
            NSAttributeDescription(name: "note", type: .string),
            scratch,
        ]
        return NSManagedObjectModel(entities: [entity])
    }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("SaveListsTests-\(UUID().uuidString)")
    }

    static func context(_ model: NSManagedObjectModel, stores urls: [URL]) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        for url in urls { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The numbers saved in the store at `url`, read through a new coordinator, sorted.
    static func reopenedNumbers(_ model: NSManagedObjectModel, at url: URL) throws -> [Int64] {
        let context = try context(model, stores: [url])
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { ($0.value(forKey: "number") as? Int64) ?? -1 }.sorted()
        }
    }

    /// Inserted objects going to two stores, first a run to one store, then alternating: each store holds its own,
    /// and the did-save notification names every object.
    @Test func insertsSplitBetweenTwoStoresEachLandInTheirOwn() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let urls = [folder.appendingPathComponent("a.sqlite"), folder.appendingPathComponent("b.sqlite")]
        let model = Self.model()
        let context = try Self.context(model, stores: urls)
        let saved = try context.performAndWait {
            let stores = try #require(context.persistentStoreCoordinator?.persistentStores)
            for number in Int64(0)..<10 {
                let item = Item(context: context)
                item.number = number
                context.assign(item, to: stores[number < 3 ? 0 : Int(number % 2)])
            }
            var saved: Set<NSManagedObject> = []
            let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
                saved = note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
            }
            defer { NotificationCenter.default.removeObserver(token) }
            try context.save()
            #expect(!context.hasChanges)
            return saved.compactMap { ($0 as? Item)?.number }.sorted()
        }
        #expect(saved == Array(0..<10))
        #expect(try Self.reopenedNumbers(model, at: urls[0]) == [0, 1, 2, 4, 6, 8])
        #expect(try Self.reopenedNumbers(model, at: urls[1]) == [3, 5, 7, 9])
    }

    /// Updated objects fetched in descending key order and in ascending key order (their list is in address order,
    /// which then is or is not key order), some changing only a transient attribute: every persistent change is
    /// written, none other.
    @Test(arguments: [false, true])
    func updatesInEitherOrderWriteEachPersistentChange(ascending: Bool) throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("items.sqlite")
        let model = Self.model()
        let writer = try Self.context(model, stores: [url])
        try writer.performAndWait {
            for number in Int64(0)..<40 { Item(context: writer).number = number }
            try writer.save()
        }
        let context = try Self.context(model, stores: [url])
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: ascending)]
            for item in try context.fetch(request) {
                if item.number % 3 == 0 {
                    item.setValue(Int64(7), forKey: "scratch")  // transient only: nothing to write
                } else {
                    item.number += 1000
                }
            }
            try context.save()
            #expect(!context.hasChanges)
        }
        let expected = (Int64(0)..<40).map { $0 % 3 == 0 ? $0 : $0 + 1000 }.sorted()
        #expect(try Self.reopenedNumbers(model, at: url) == expected)
    }

    /// One objects-did-change notification with an object of each kind: each set holds exactly its own.
    @Test func objectsDidChangeSortsEachObjectIntoItsSet() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = Self.model()
        let context = try Self.context(model, stores: [folder.appendingPathComponent("items.sqlite")])
        try context.performAndWait {
            let items = (Int64(0)..<4).map { number in
                let item = Item(context: context)
                item.number = number
                return item
            }
            try context.save()
            var info: [AnyHashable: Any] = [:]
            let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { note in
                info = note.userInfo ?? [:]
            }
            defer { NotificationCenter.default.removeObserver(token) }
            items[0].number = 100
            context.delete(items[1])
            context.refresh(items[2], mergeChanges: true)
            let added = Item(context: context)
            added.number = 50
            let gone = Item(context: context)  // inserted and deleted again: not reported
            context.delete(gone)
            context.processPendingChanges()
            #expect(info[NSUpdatedObjectsKey] as? Set<NSManagedObject> == [items[0]])
            #expect(info[NSDeletedObjectsKey] as? Set<NSManagedObject> == [items[1]])
            #expect(info[NSRefreshedObjectsKey] as? Set<NSManagedObject> == [items[2]])
            #expect(info[NSInsertedObjectsKey] as? Set<NSManagedObject> == [added])
            try context.save()
        }
        #expect(try Self.reopenedNumbers(model, at: folder.appendingPathComponent("items.sqlite")) == [2, 3, 50, 100])
    }

    /// A typed set over a value of another type (kept for validation) or over a number: the new number is stored,
    /// saved and read back, and the other object's value is untouched.
    @Test func typedSetReplacesAnyHeldValue() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("items.sqlite")
        let model = Self.model()
        let context = try Self.context(model, stores: [url])
        try context.performAndWait {
            let first = Item(context: context)
            first.setValue("not a number", forKey: "number")
            #expect(throws: (any Error).self) { try first.validateForInsert() }
            first.number = 41
            #expect(first.value(forKey: "number") as? Int64 == 41)
            first.number += 1
            let second = Item(context: context)
            second.number = -5
            second.note = "kept"
            #expect(first.number == 42)
            try context.save()
            second.number = 6
            try context.save()
        }
        #expect(try Self.reopenedNumbers(model, at: url) == [6, 42])
    }
}

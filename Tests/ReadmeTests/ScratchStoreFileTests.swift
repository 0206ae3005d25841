// What the conformance suite leaves to each store and ScratchStore (ScratchStore.swift) promises about its file:
// each kind of bad file gets its own code and is left as it was; a read-only store writes nothing.
import Testing
import CoreData

@Suite struct ScratchStoreFileTests {
    static func model() -> NSManagedObjectModel {
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "title", type: .string), NSAttributeDescription(name: "stars", type: .integer16)]
        return NSManagedObjectModel(entities: [note])
    }

    /// A new coordinator with the Scratch store at `url`.
    static func coordinator(at url: URL, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStoreCoordinator {
        NSPersistentStoreCoordinator.registerStoreClass(ScratchStore.self, forStoreType: ScratchStore.typeName)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(ofType: ScratchStore.typeName, configurationName: nil, at: url, options: options)
        return coordinator
    }

    /// A store file in a new temporary folder, holding one note ("First", 3 stars).
    static func storeWithOneNote() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID().uuidString)/Notes.scratch")
        let coordinator = try coordinator(at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("First", forKey: "title")
            note.setValue(Int16(3), forKey: "stars")
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    /// The error of adding the store at `url`, which must fail and leave the file's bytes as they were.
    static func refusal(at url: URL) throws -> NSError? {
        let before = try Data(contentsOf: url)
        let error = #expect(throws: NSError.self) { try coordinator(at: url) }
        #expect(try Data(contentsOf: url) == before)
        return error
    }

    @Test func reopensWithTheSavedNote() throws {
        let url = try Self.storeWithOneNote()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = try Self.coordinator(at: url)
        let notes = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).map { [$0.value(forKey: "title") as? String, ($0.value(forKey: "stars") as? Int16).map(String.init)] }
        }
        #expect(notes == [["First", "3"]])
    }

    @Test func aDamagedObjectIs259() throws {
        let url = try Self.storeWithOneNote()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var root = try #require(BinaryPropertyListCheck.propertyList(from: Data(contentsOf: url)) as? [String: Any])
        var objects = try #require(root["objects"] as? [[String: Any]])
        try #require(objects.count == 1)
        objects[0]["values"] = ["stars": "three"]
        root["objects"] = objects
        try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0).write(to: url)
        let error = try Self.refusal(at: url)
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains("stars") == true, "\(String(describing: error))")
    }

    /// 300 copies of a store file, each with a few bytes changed: each opens, or is refused with a Cocoa error
    /// of a bad file; none traps.
    @Test func damagedBytesNeverTrap() throws {
        let url = try Self.storeWithOneNote()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let original = [UInt8](try Data(contentsOf: url))
        var state: UInt64 = 0x5C7A_7C40
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var refused = 0
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<(1 + next(4)) { bytes[next(bytes.count)] = UInt8(truncatingIfNeeded: next(256)) }
            try Data(bytes).write(to: url)
            do {
                let coordinator = try Self.coordinator(at: url)
                for store in coordinator.persistentStores { try coordinator.remove(store) }
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain)
                #expect([NSPersistentStoreInvalidTypeError, NSFileReadCorruptFileError, NSPersistentStoreIncompatibleVersionHashError].contains(error.code),
                        "\(error.code): \(error.localizedDescription)")
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    @Test func aPropertyListOfAnotherKindIs134000() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID().uuidString)/Other.plist")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["objects": [String]()], format: .binary, options: 0).write(to: url)
        let error = try Self.refusal(at: url)
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
    }

    @Test func aMissingStoreHasNoMetadata() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID().uuidString)/Missing.scratch")
        NSPersistentStoreCoordinator.registerStoreClass(ScratchStore.self, forStoreType: ScratchStore.typeName)
        let error = #expect(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: ScratchStore.typeName, at: url)
        }
        #expect(error?.code == NSFileReadNoSuchFileError)
    }

    @Test func aReadOnlyStoreThatIsMissingIsNeverCreated() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("ReadOnly.scratch")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = try Self.coordinator(at: url, options: [NSReadOnlyPersistentStoreOption: true])
        let (count, saveError) = context.performAndWait { () -> (Int?, NSError?) in
            let count = try? context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("Never", forKey: "title")
            do { try context.save(); return (count, nil) } catch { return (count, error as NSError) }
        }
        #expect(count == 0)
        #expect(saveError?.code == NSPersistentStoreSaveError)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}

import Testing
import CoreData
import StoreTestSupport

/// `replacePersistentStore` on SQLite stores whose latest transactions live in their write-ahead logs: the copy
/// holds the source's committed log, and the destination's old log never reaches the new file.
@Suite struct WholeStoreReplacementTests {
    /// A store whose last save is still in its `-wal`, as a process that was killed leaves it: the database
    /// and log copied while a coordinator has them open.
    static func storeWithALog(at url: URL, titles: [String], in directory: TemporaryDirectory) throws {
        let scratch = directory.file("scratch-\(UUID().uuidString).sqlite")
        let context = try openStore(.sqlite, at: scratch, model: everyTypeModel())
        try context.performAndWait { () throws -> Void in
            for title in titles { NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(title, forKey: "title") }
            try context.save()
        }
        #expect(FileManager.default.fileExists(atPath: scratch.path + "-wal"), "the save must still be in the log")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: scratch.path + suffix, toPath: url.path + suffix) }
        if let coordinator = context.persistentStoreCoordinator {
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
    }

    static func titles(at url: URL) throws -> Set<String> {
        let context = try openStore(.sqlite, at: url, model: everyTypeModel())
        return try context.performAndWait {
            Set(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "title") as? String })
        }
    }

    @Test func theCopyHoldsTheSourcesLogAndNotTheDestinationsOldOne() throws {
        let directory = TemporaryDirectory(prefix: "replace")
        let source = directory.file("source.sqlite"), destination = directory.file("destination.sqlite")
        try Self.storeWithALog(at: source, titles: ["new 1", "new 2"], in: directory)
        try Self.storeWithALog(at: destination, titles: ["old"], in: directory)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: everyTypeModel())
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)

        #expect(!FileManager.default.fileExists(atPath: destination.path + "-wal"), "the destination's old log is gone")
        #expect(try Self.titles(at: destination) == ["new 1", "new 2"], "the destination holds exactly the source's objects")
        #expect(try Self.titles(at: source) == ["new 1", "new 2"], "the source is unchanged")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "no temporary copy is left: \(leftovers)")
    }

    @Test func replacingFromAMissingStoreThrowsAndLeavesTheDestination() throws {
        let directory = TemporaryDirectory(prefix: "replace")
        let destination = directory.file("destination.sqlite")
        try Self.storeWithALog(at: destination, titles: ["kept"], in: directory)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: everyTypeModel())
        let error = thrownError { try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: directory.file("none.sqlite"), type: .sqlite) }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSFileReadNoSuchFileError)
        #expect(try Self.titles(at: destination) == ["kept"])
    }
}

import CoreData
import Foundation
import StoreTestSupport
import Testing

/// A SQLite store at `/dev/null` is Apple's in-memory SQLite store: it works like any SQLite store, each one is
/// a database of its own, and nothing is written beside `/dev/null`.
@Suite struct DevNullStoreTests {
    static let devNull = URL(fileURLWithPath: "/dev/null")

    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Person", [attribute("name", .string)])])
    }

    @Test func savesAndFetchesInMemoryWithoutWritingFiles() throws {
        let companions = ["-journal", "-wal", "-shm"].filter { FileManager.default.fileExists(atPath: "/dev/null" + $0) }
        let stack = try Stack(model: Self.model(), url: Self.devNull)
        #expect(stack.store.type == NSSQLiteStoreType)
        #expect(!stack.store.capabilities.contains(.persistsToFile))
        try stack.context.performAndWait {
            for name in ["Ann", "Bob"] { NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context).setValue(name, forKey: "name") }
            try stack.context.save()
        }
        #expect(try stack.count("Person") == 2)
        #expect(try stack.count("Person", NSPredicate(format: "name BEGINSWITH 'A'")) == 1)
        let after = ["-journal", "-wal", "-shm"].filter { FileManager.default.fileExists(atPath: "/dev/null" + $0) }
        #expect(after == companions, "nothing is created beside /dev/null")
    }

    @Test func eachStoreAtDevNullIsADatabaseOfItsOwn() throws {
        let first = try Stack(model: Self.model(), url: Self.devNull)
        try first.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: first.context).setValue("Ann", forKey: "name")
            try first.context.save()
        }
        let second = try Stack(model: Self.model(), url: Self.devNull)
        #expect(try second.count("Person") == 0)
        #expect(try first.count("Person") == 1)
    }

    @Test func destroyingAStoreAtDevNullLeavesDevNullAlone() throws {
        let stack = try Stack(model: Self.model(), url: Self.devNull)
        try stack.coordinator.destroyPersistentStore(at: Self.devNull, type: .sqlite)
        #expect(stack.coordinator.persistentStores.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        #expect(attributes[.type] as? FileAttributeType == .typeCharacterSpecial)
    }
}

/// `destroyPersistentStore` on a SQLite store leaves the database file in place, truncated to zero bytes, as
/// Apple's does, deletes its companions, and a store added there afterwards is new and empty.
@Suite struct DestroyedSQLiteStoreTests {
    @Test func destroyTruncatesTheFileAndDeletesItsCompanions() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: DevNullStoreTests.model(), url: url)
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context).setValue("Ann", forKey: "name")
            try stack.context.save()
        }
        try stack.coordinator.destroyPersistentStore(at: url, type: .sqlite)
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
        #expect(size?.intValue == 0)
        for suffix in ["-wal", "-shm", "-journal"] { #expect(!FileManager.default.fileExists(atPath: url.path + suffix)) }
        let fresh = try Stack(model: DevNullStoreTests.model(), url: url)
        #expect(try fresh.count("Person") == 0)
        try fresh.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: fresh.context).setValue("Bob", forKey: "name")
            try fresh.context.save()
        }
        try fresh.close()
        #expect(try Stack(model: DevNullStoreTests.model(), url: url).count("Person") == 1)
    }
}

import Testing
import Foundation
import CoreData

/// Two processes on one SQLite store: each sees the other's saves, and a stale write is a merge conflict.
/// The second process is this test binary running `childUpdatesTheStore`.
@Suite(.serialized) struct TwoProcessTests {
    static let storeVariable = "COREDATA_TWO_PROCESS_STORE"

    static func model() -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item")
        item.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "rank", type: .integer64)]
        return NSManagedObjectModel(entities: [item])
    }

    static func context(at url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func anotherProcessSeesAndConflicts() throws {
        let url = TemporaryStore.url()
        let context = try Self.context(at: url)
        let item = try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("shared", forKey: "name")
            item.setValue(1, forKey: "rank")
            try context.save()
            return item
        }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "TwoProcessTests/childUpdatesTheStore"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.storeVariable] = url.path
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0, "the child process saved")

        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        try fresh.performAndWait {
            let names = Set(try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String })
            #expect(names == ["shared", "from the child"], "this process sees the other's insert")
            let shared = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first { $0.value(forKey: "name") as? String == "shared" }
            #expect(shared?.value(forKey: "rank") as? Int64 == 2, "and its update")
        }

        context.performAndWait {
            item.setValue(3, forKey: "rank")
            do {
                try context.save()
                Issue.record("a stale write must not be saved")
            } catch let error as NSError {
                #expect(error.code == NSManagedObjectMergeError)
            }
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[storeVariable] != nil, "runs only as a child process"))
    func childUpdatesTheStore() throws {
        let url = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment[Self.storeVariable]))
        let context = try Self.context(at: url)
        try context.performAndWait {
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            let shared = try #require(items.first)
            shared.setValue(2, forKey: "rank")
            let added = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            added.setValue("from the child", forKey: "name")
            try context.save()
        }
    }
}

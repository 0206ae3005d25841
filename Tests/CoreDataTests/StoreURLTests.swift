import CoreData
import Foundation
import Testing

/// `NSPersistentStoreCoordinator.url(for:)`, as apps use it to find a store's file (to delete it, or to copy it).
@Suite struct StoreURLTests {
    @Test func aStoresURLIsTheOneItWasAddedWith() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-url-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Library.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        #expect(coordinator.url(for: store) == url)
        #expect(coordinator.persistentStore(for: coordinator.url(for: store)) === store)
        #expect(FileManager.default.fileExists(atPath: coordinator.url(for: store).path))

        let memory = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        #expect(coordinator.url(for: memory) == URL(fileURLWithPath: "/dev/null"))
    }
}

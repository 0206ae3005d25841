import Testing
import CoreData

/// A container's in-memory store description needs no URL.
@Suite struct InMemoryStoreDescriptionTests {
    @Test func inMemoryDescriptionNeedsNoURL() {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: libraryModel())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
    }
}

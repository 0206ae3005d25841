import CoreData
import StoreTestSupport
import Foundation
import Testing

/// The coordinator's store-file operations (replace, destroy, migrate) with the store open elsewhere or split
/// by configuration.
struct StoreFileOperationTests {
    /// Replacing a store that another coordinator of the process has open would leave that coordinator writing
    /// to an unlinked file: it is refused, and the open store keeps its later saves.
    @Test func replacingAStoreOpenInAnotherCoordinatorIsRefused() throws {
        let source = TemporaryStore.url()
        let seed = try Stack(model: NoteStore.model(), url: source)
        try NoteStore.insert(seed, "from source")
        try seed.close()

        let destination = TemporaryStore.url()
        let open = try Stack(model: NoteStore.model(), url: destination)
        try NoteStore.insert(open, "old")

        let restorer = NSPersistentStoreCoordinator(managedObjectModel: NoteStore.model())
        let refused = thrownError { try restorer.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite) }
        #expect(refused?.code == NSPersistentStoreOperationError, "replacing a store another coordinator has open is refused")

        try NoteStore.insert(open, "saved after the replace")  // succeeds
        try open.close()
        #expect(try NoteStore.titles(destination).contains("saved after the replace"), "a save that succeeded is not in the store file")
    }

    /// The same for `destroyPersistentStore`.
    @Test func destroyingAStoreOpenInAnotherCoordinatorIsRefused() throws {
        let url = TemporaryStore.url()
        let open = try Stack(model: NoteStore.model(), url: url)
        try NoteStore.insert(open, "first")
        let other = NSPersistentStoreCoordinator(managedObjectModel: NoteStore.model())
        let refused = thrownError { try other.destroyPersistentStore(at: url, type: .sqlite) }
        #expect(refused?.code == NSPersistentStoreOperationError, "destroying a store another coordinator has open is refused")
        let saved = (try? NoteStore.insert(open, "saved after the destroy")) != nil
        try open.close()
        let onDisk = FileManager.default.fileExists(atPath: url.path) ? try NoteStore.titles(url) : []
        #expect(!saved || onDisk.contains("saved after the destroy"), "the save succeeded but went to a deleted file")
    }

    /// `migratePersistentStore` of one store of a coordinator with configurations copies that store's entities
    /// only (asking it for the other configuration's entities, which it refuses, would fail the migration).
    @Test func migratingAStoreOfOneConfigurationCopiesItsEntities() throws {
        let model = NSManagedObjectModel(entities: [entity("Note", [attribute("title", .string)]), entity("Tag", [attribute("name", .string)])])
        model.setEntities([try #require(model.entitiesByName["Note"])], forConfigurationName: "Notes")
        model.setEntities([try #require(model.entitiesByName["Tag"])], forConfigurationName: "Tags")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let notes = try coordinator.addPersistentStore(type: .sqlite, configuration: "Notes", at: TemporaryStore.url())
        try coordinator.addPersistentStore(type: .sqlite, configuration: "Tags", at: TemporaryStore.url())
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context).setValue("kept", forKey: "title")
            NSManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context).setValue("other", forKey: "name")
            try context.save()
        }
        let error = thrownError { try coordinator.migratePersistentStore(notes, to: TemporaryStore.url(), type: .sqlite) }
        #expect(error == nil, "migration failed: \(String(describing: error))")
    }
}

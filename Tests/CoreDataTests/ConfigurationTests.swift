import Testing
import CoreData

@Suite struct ConfigurationTests {
    /// Authors live in one store, books and drafts in another, as the model's configurations say.
    @Test func configurationsRouteEntitiesToStores() throws {
        let model = libraryModel()
        let entities = model.entitiesByName
        model.setEntities([entities["Author"]!], forConfigurationName: "People")
        model.setEntities([entities["Book"]!], forConfigurationName: "Works")
        #expect(model.configurations == ["People", "Works"])
        #expect(model.entities(forConfigurationName: "Works")?.compactMap(\.name) == ["Book"])
        #expect(model.entities(forConfigurationName: "Missing") == nil)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let people = try coordinator.addPersistentStore(type: .inMemory, configuration: "People", at: URL(fileURLWithPath: "/people"))
        let works = try coordinator.addPersistentStore(type: .inMemory, configuration: "Works", at: URL(fileURLWithPath: "/works"))
        #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(type: .inMemory, configuration: "Nope", at: URL(fileURLWithPath: "/nope"))
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Routed"
            let book = Book(context: context)
            book.title = "Separate"
            try context.save()
            #expect(author.objectID.persistentStore === people)
            #expect(book.objectID.persistentStore === works)
            let onlyWorks = NSFetchRequest<Book>(entityName: "Book")
            onlyWorks.affectedStores = [people]
            #expect(try context.fetch(onlyWorks).isEmpty, "a request limited to a store sees only that store")
            #expect(try context.count(for: NSFetchRequest<Author>(entityName: "Author")) == 1)
        }
    }

    @Test func relationshipsCannotCrossStores() throws {
        let model = libraryModel()
        let entities = model.entitiesByName
        model.setEntities([entities["Author"]!], forConfigurationName: "People")
        model.setEntities([entities["Book"]!], forConfigurationName: "Works")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, configuration: "People", at: URL(fileURLWithPath: "/people"))
        try coordinator.addPersistentStore(type: .inMemory, configuration: "Works", at: URL(fileURLWithPath: "/works"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.performAndWait {
            let book = Book(context: context)
            book.title = "Linked"
            book.author = Author(context: context)
            do {
                try context.save()
                Issue.record("the save should fail")
            } catch let error as NSError {
                #expect(error.code == NSManagedObjectExternalRelationshipError)
            }
        }
    }
}

@Suite struct MergedModelTests {
    @Test func mergedModelCombinesTheModelsOfABundle() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        #expect(Set(model.entitiesByName.keys) == ["myCoreDataEntity", "FamilyMember", "Movie"])
        #expect(NSManagedObjectModel.mergedModel(from: []) == nil)
    }
}

import CoreData
import Testing

/// `migratePersistentStore(_:to:options:type:)` between store types: every type reads what the one before
/// it wrote, relationships and order included.
struct StoreTypeMigrationTests {
    @Test func throughEveryStoreType() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("type-migration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
        var store = try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("start.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            for title in ["A", "B"] {
                let book = Book(context: context)
                book.title = title
                book.author = author
                book.tags = [title.lowercased()]
            }
            author.drafts = ["one", "two", "three"].map { text in
                let draft = Draft(context: context)
                draft.text = text
                return draft
            }
            try context.save()
        }
        for (type, name) in [(NSPersistentStore.StoreType.xml, "next.xml"), (.binary, "next.binary"), (.inMemory, "memory"), (.sqlite, "end.sqlite")] {
            store = try coordinator.migratePersistentStore(store, to: folder.appendingPathComponent(name), type: type)
            #expect(store.type == type.rawValue && coordinator.persistentStores.count == 1)
            let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            reader.persistentStoreCoordinator = coordinator
            try reader.performAndWait {
                let author = try #require(try reader.fetch(NSFetchRequest<Author>(entityName: "Author")).first)
                #expect(author.name == "Ann", "\(type.rawValue)")
                #expect(author.books.compactMap(\.title).sorted() == ["A", "B"], "\(type.rawValue)")
                #expect(author.books.compactMap { $0.tags?.first }.sorted() == ["a", "b"], "transformable values in \(type.rawValue)")
                #expect(author.drafts.compactMap(\.text) == ["one", "two", "three"], "ordered drafts in \(type.rawValue)")
            }
        }
    }
}

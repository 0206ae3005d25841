import Testing
import CoreData

/// `stalenessInterval` (0 makes a fault read its store instead of the coordinator's cached row) and query
/// generations with a store that has none (an in-memory store: pinning succeeds and reads the latest state;
/// SQLite's generations are tested in `QueryGenerationTests`).
@Suite struct QueryGenerationAndStalenessTests {
    @Test func withNoStalenessAFaultReadsItsStore() throws {
        let writer = try inMemoryContext()
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = writer.persistentStoreCoordinator
        #expect(reader.stalenessInterval < 0, "Apple's default: any staleness")
        let author = try writer.performAndWait { () throws -> Author in
            let author = Author(context: writer)
            author.name = "fetched"
            try writer.save()
            return author
        }
        func fetchThenChangeThenRead(staleness: TimeInterval) throws -> String? {
            let fault = try reader.performAndWait { () throws -> Author in
                reader.reset()
                reader.stalenessInterval = staleness
                return try #require(try reader.fetch(NSFetchRequest<Author>(entityName: "Author")).first)
            }
            try writer.performAndWait {
                author.name = author.name == "fetched" ? "changed" : "fetched"
                try writer.save()
            }
            return reader.performAndWait { fault.name }
        }
        #expect(try fetchThenChangeThenRead(staleness: -1) == "changed",
                "a fault fills from the coordinator's row cache, which the writer's save updated")
        #expect(try fetchThenChangeThenRead(staleness: 0) == "fetched", "with no staleness it reads the store's current row")
    }

    @Test func anInMemoryStoreRevertsToUnpinnedBehaviour() throws {
        let context = try inMemoryContext()
        #expect(context.queryGenerationToken == nil)
        try context.performAndWait {
            #expect(throws: Never.self) { try context.setQueryGenerationFrom(nil) }
            try context.setQueryGenerationFrom(.current)
        }
        #expect(context.queryGenerationToken == .current)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = context.persistentStoreCoordinator
        let before = try context.performAndWait { try context.count(for: NSFetchRequest<Author>(entityName: "Author")) }
        try writer.performAndWait {
            Author(context: writer).name = "later"
            try writer.save()
        }
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<Author>(entityName: "Author")) } == before + 1,
                "a store without generations is read at its latest state")
        #expect(context.queryGenerationToken != nil, "the context stays pinned, to a generation of no store")
    }
}

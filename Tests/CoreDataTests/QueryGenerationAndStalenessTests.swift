import Testing
import CoreData

/// `stalenessInterval` (0 makes a fault read its store instead of the coordinator's cached row) and query
/// generations (not supported: pinning throws 134091, unpinning succeeds, the token stays nil).
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

    @Test func pinningAQueryGenerationIsUnsupported() throws {
        let context = try inMemoryContext()
        #expect(context.queryGenerationToken == nil)
        #expect(throws: Never.self) { try context.setQueryGenerationFrom(nil) }
        do {
            try context.setQueryGenerationFrom(.current)
            Issue.record("pinning must throw")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreUnsupportedRequestTypeError)
        }
        #expect(context.queryGenerationToken == nil)
    }
}

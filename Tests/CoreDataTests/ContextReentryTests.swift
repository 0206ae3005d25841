import Testing
import CoreData

/// `performAndWait` inside another context's `performAndWait` runs inline, back into the first context too.
@Suite struct ContextReentryTests {
    @Test func performAndWaitNestedAcrossContextsRunsInline() throws {
        let a = try inMemoryContext()
        let b = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        b.persistentStoreCoordinator = a.persistentStoreCoordinator
        var order: [String] = []
        a.performAndWait {
            order.append("a")
            b.performAndWait {
                order.append("b")
                a.performAndWait { order.append("a again") }
            }
        }
        #expect(order == ["a", "b", "a again"])
    }
}

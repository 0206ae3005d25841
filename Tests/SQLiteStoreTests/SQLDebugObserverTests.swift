import Testing
import CoreData
import CoreDataStoreKit
import StoreTestSupport

/// `SQLDebugLog.addObserver(_:)`: a server sees every statement a SQLite store runs, with its bound values and
/// row count, without anything written to standard error, until it removes the observer.
@Suite struct SQLDebugObserverTests {
    final class Records: @unchecked Sendable {
        private let lock = NSLock()
        private var records: [SQLStatementRecord] = []
        func append(_ record: SQLStatementRecord) { lock.withLock { records.append(record) } }
        func of(_ database: String) -> [SQLStatementRecord] { lock.withLock { records.filter { $0.database == database } } }
    }

    @Test func anObserverSeesEveryStatementWithItsValuesUntilRemoved() throws {
        let directory = TemporaryDirectory(prefix: "sql-observer")
        let url = directory.file("store.sqlite")
        let records = Records()
        let observation = SQLDebugLog.addObserver { records.append($0) }
        let context = try openStore(.sqlite, at: url, model: everyTypeModel())
        try populate(context, items: 4)
        let found = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "title == %@", "item 2")
            return try context.fetch(request).count
        }
        #expect(found == 1)
        SQLDebugLog.removeObserver(observation)
        let seen = records.of(url.path)
        #expect(seen.contains { $0.sql.hasPrefix("INSERT INTO ZITEM") && $0.bindings.contains("\"item 3\"") }, "the save's inserts with their values")
        let fetch = seen.last { $0.sql.hasPrefix("SELECT") && $0.sql.contains("ZTITLE") && $0.bindings.contains("\"item 2\"") }
        #expect(fetch?.rowCount == 1, "the fetch, its bound value and its one row")
        #expect((fetch?.duration ?? -1) >= 0)

        let before = records.of(url.path).count
        _ = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) }
        #expect(records.of(url.path).count == before, "a removed observer hears nothing more")
    }
}

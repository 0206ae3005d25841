import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Regressions found by reviewing persistent history, aggregates computed in SQL and the coordinator's
/// store-file operations.
struct HistoryAggregateStoreFileRegressionTests {
    // MARK: Helpers

    static func saleModel() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Sale", [attribute("region", .string), attribute("units", .integer64), attribute("price", .double)])])
    }

    static func describe(_ name: String, _ function: String, _ key: String, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: key)])
        description.expressionResultType = type
        return description
    }

    /// The same dictionary request on a SQLite store (aggregates in SQL) and on an in-memory store (aggregates
    /// computed by the context from rows), both filled with `values` (region, units, price).
    static func sqlAndRows(_ values: [(String?, Int64?, Double?)], _ configure: (NSFetchRequest<NSDictionary>) -> Void) throws -> ([NSDictionary], [NSDictionary]) {
        let sqlite = try Stack(model: saleModel(), url: TemporaryStore.url())
        let memoryCoordinator = NSPersistentStoreCoordinator(managedObjectModel: saleModel())
        try memoryCoordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let memory = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        memory.persistentStoreCoordinator = memoryCoordinator
        for context in [sqlite.context, memory] {
            try context.performAndWait {
                for (region, units, price) in values {
                    let sale = NSManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Sale"]), insertInto: context)
                    sale.setValue(region, forKey: "region")
                    sale.setValue(units, forKey: "units")
                    sale.setValue(price, forKey: "price")
                }
                try context.save()
            }
        }
        let request = NSFetchRequest<NSDictionary>(entityName: "Sale")
        request.resultType = .dictionaryResultType
        configure(request)
        let fromSQL = try sqlite.context.performAndWait { try sqlite.context.fetch(request) }
        let fromRows = try memory.performAndWait { try memory.fetch(request) }
        try sqlite.close()
        return (fromSQL, fromRows)
    }

    static func noteModel() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Note", [attribute("title", .string)])])
    }

    static func insertNote(_ stack: Stack, _ title: String) throws {
        try stack.context.performAndWait {
            let note = NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["Note"]), insertInto: stack.context)
            note.setValue(title, forKey: "title")
            try stack.context.save()
        }
    }

    static func titles(_ url: URL) throws -> [String] {
        let stack = try Stack(model: noteModel(), url: url)
        defer { try? stack.close() }
        return try stack.context.performAndWait { try stack.fetch("Note").compactMap { $0.value(forKey: "title") as? String }.sorted() }
    }

    // MARK: Aggregates: SQL and rows disagree

    /// Canonically equivalent strings ("é" precomposed and decomposed) are one group in memory (Swift `String`
    /// equality) but two in SQL (`GROUP BY` compares bytes): the number of groups depends on whether the
    /// request happens to be computable in SQL.
    @Test func groupingByStringsThatAreCanonicallyEquivalent() throws {
        let (sql, rows) = try Self.sqlAndRows([("caf\u{E9}", 1, 1), ("cafe\u{301}", 2, 1)]) { request in
            request.propertiesToFetch = ["region", Self.describe("units", "sum:", "units", .integer64AttributeType)]
            request.propertiesToGroupBy = ["region"]
        }
        #expect(sql.count == rows.count, "SQL: \(sql), rows: \(rows)")
    }

    /// `sum:`/`average:` of +inf and -inf: SQLite turns the NaN into NULL, which the SQL path reports as a sum of
    /// 0 (and no average), while the rows give NaN.
    @Test func sumOfInfinitiesIsZeroInSQL() throws {
        let (sql, rows) = try Self.sqlAndRows([("a", 1, .infinity), ("a", 1, -.infinity)]) { request in
            request.propertiesToFetch = [Self.describe("total", "sum:", "price", .doubleAttributeType),
                                         Self.describe("mean", "average:", "price", .doubleAttributeType)]
        }
        let sqlTotal = (sql.first?["total"] as? NSNumber)?.doubleValue
        let rowsTotal = (rows.first?["total"] as? NSNumber)?.doubleValue
        #expect(sqlTotal?.isNaN == rowsTotal?.isNaN, "SQL sum \(String(describing: sqlTotal)), rows sum \(String(describing: rowsTotal))")
        #expect((sql.first?["mean"] == nil) == (rows.first?["mean"] == nil), "SQL: \(sql), rows: \(rows)")
    }

    /// `average:` of integers: SQLite (3.40, linked here) adds them as doubles, the context adds them exactly.
    @Test func averageOfLargeIntegers() throws {
        let big: Int64 = 1 << 53
        let (sql, rows) = try Self.sqlAndRows([("a", big, 0), ("a", 1, 0), ("a", 1, 0)]) { request in
            request.propertiesToFetch = [Self.describe("mean", "average:", "units", .doubleAttributeType)]
        }
        #expect((sql.first?["mean"] as? NSNumber)?.doubleValue == (rows.first?["mean"] as? NSNumber)?.doubleValue, "SQL: \(sql), rows: \(rows)")
    }

    /// `propertiesToGroupBy = []` over no rows: the rows give no group, SQL (no GROUP BY clause) gives one.
    @Test func emptyGroupingOverNoRows() throws {
        let (sql, rows) = try Self.sqlAndRows([("a", 1, 1)]) { request in
            request.predicate = NSPredicate(format: "units > 100")
            request.propertiesToFetch = [Self.describe("units", "sum:", "units", .integer64AttributeType)]
            request.propertiesToGroupBy = []
        }
        #expect(sql.count == rows.count, "SQL: \(sql), rows: \(rows)")
    }

    // MARK: Store files

    /// Replacing a store that another coordinator of the process has open would leave that coordinator writing
    /// to an unlinked file: it is refused, and the open store keeps its later saves.
    @Test func replacingAStoreOpenInAnotherCoordinatorIsRefused() throws {
        let source = TemporaryStore.url()
        let seed = try Stack(model: Self.noteModel(), url: source)
        try Self.insertNote(seed, "from source")
        try seed.close()

        let destination = TemporaryStore.url()
        let open = try Stack(model: Self.noteModel(), url: destination)
        try Self.insertNote(open, "old")

        let restorer = NSPersistentStoreCoordinator(managedObjectModel: Self.noteModel())
        let refused = thrownError { try restorer.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite) }
        #expect(refused?.code == NSPersistentStoreOperationError, "replacing a store another coordinator has open is refused")

        try Self.insertNote(open, "saved after the replace")  // succeeds
        try open.close()
        #expect(try Self.titles(destination).contains("saved after the replace"), "a save that succeeded is not in the store file")
    }

    /// The same for `destroyPersistentStore`.
    @Test func destroyingAStoreOpenInAnotherCoordinatorIsRefused() throws {
        let url = TemporaryStore.url()
        let open = try Stack(model: Self.noteModel(), url: url)
        try Self.insertNote(open, "first")
        let other = NSPersistentStoreCoordinator(managedObjectModel: Self.noteModel())
        let refused = thrownError { try other.destroyPersistentStore(at: url, type: .sqlite) }
        #expect(refused?.code == NSPersistentStoreOperationError, "destroying a store another coordinator has open is refused")
        let saved = (try? Self.insertNote(open, "saved after the destroy")) != nil
        try open.close()
        let onDisk = FileManager.default.fileExists(atPath: url.path) ? try Self.titles(url) : []
        #expect(!saved || onDisk.contains("saved after the destroy"), "the save succeeded but went to a deleted file")
    }

    /// `migratePersistentStore` of one store of a coordinator with configurations: the copy fetches every root
    /// entity of the model from the store, including entities of the other configuration, which the store
    /// refuses, so the migration fails.
    @Test func migratingAStoreOfOneConfiguration() throws {
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

    // MARK: Persistent history

    /// A token taken before a lightweight migration: the migrated store restarts its transaction numbers, so
    /// `fetchHistory(after:)` with the old token silently skips the saves made after the migration.
    @Test func tokenFromBeforeALightweightMigrationSkipsLaterSaves() throws {
        let url = TemporaryStore.url()
        let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber]
        let v1 = try Stack(model: Self.noteModel(), url: url, options: tracking)
        for index in 0..<3 { try Self.insertNote(v1, "v1 \(index)") }
        let token = try #require(v1.coordinator.currentPersistentHistoryToken(fromStores: nil))
        try v1.close()

        let modelV2 = NSManagedObjectModel(entities: [entity("Note", [attribute("title", .string), attribute("body", .string)])])
        var options = tracking
        options[NSMigratePersistentStoresAutomaticallyOption] = true
        options[NSInferMappingModelAutomaticallyOption] = true
        let v2 = try Stack(model: modelV2, url: url, options: options)
        for index in 0..<2 {
            try v2.context.performAndWait {
                NSManagedObject(entity: try #require(modelV2.entitiesByName["Note"]), insertInto: v2.context).setValue("v2 \(index)", forKey: "title")
                try v2.context.save()
            }
        }
        let later = try v2.context.performAndWait {
            (try v2.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
        }
        #expect(later.count == 2, "saves after the migration: \(later.count) found with the old token \(token); numbers now \(RawSQLite.rows(url, "SELECT Z_PK FROM ATRANSACTION"))")
        try v2.close()
    }
}

import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Aggregates computed in SQL (SQLite) give what the context computes from rows (in-memory store) for the same
/// dictionary request: groups, sums, averages and empty groupings.
struct AggregatesInSQLMatchRowsTests {
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

    /// Canonically equivalent strings ("é" precomposed and decomposed) form one group, in SQL as in memory
    /// (Swift `String` equality; SQL's `GROUP BY` alone would compare bytes and make two).
    @Test func canonicallyEquivalentStringsFormOneGroup() throws {
        let (sql, rows) = try Self.sqlAndRows([("caf\u{E9}", 1, 1), ("cafe\u{301}", 2, 1)]) { request in
            request.propertiesToFetch = ["region", Self.describe("units", "sum:", "units", .integer64AttributeType)]
            request.propertiesToGroupBy = ["region"]
        }
        #expect(sql.count == rows.count, "SQL: \(sql), rows: \(rows)")
    }

    /// `sum:`/`average:` of +inf and -inf is NaN in SQL as in memory (SQLite alone turns the NaN into NULL,
    /// which would read as a sum of 0 and no average).
    @Test func sumOfOppositeInfinitiesIsNaN() throws {
        let (sql, rows) = try Self.sqlAndRows([("a", 1, .infinity), ("a", 1, -.infinity)]) { request in
            request.propertiesToFetch = [Self.describe("total", "sum:", "price", .doubleAttributeType),
                                         Self.describe("mean", "average:", "price", .doubleAttributeType)]
        }
        let sqlTotal = (sql.first?["total"] as? NSNumber)?.doubleValue
        let rowsTotal = (rows.first?["total"] as? NSNumber)?.doubleValue
        #expect(sqlTotal?.isNaN == rowsTotal?.isNaN, "SQL sum \(String(describing: sqlTotal)), rows sum \(String(describing: rowsTotal))")
        #expect((sql.first?["mean"] == nil) == (rows.first?["mean"] == nil), "SQL: \(sql), rows: \(rows)")
    }

    /// `average:` of integers is the same in SQL as in memory, where they are added exactly (SQLite 3.40 alone
    /// adds them as doubles and loses the low bits of large ones).
    @Test func averageOfLargeIntegersIsExact() throws {
        let big: Int64 = 1 << 53
        let (sql, rows) = try Self.sqlAndRows([("a", big, 0), ("a", 1, 0), ("a", 1, 0)]) { request in
            request.propertiesToFetch = [Self.describe("mean", "average:", "units", .doubleAttributeType)]
        }
        #expect((sql.first?["mean"] as? NSNumber)?.doubleValue == (rows.first?["mean"] as? NSNumber)?.doubleValue, "SQL: \(sql), rows: \(rows)")
    }

    /// `propertiesToGroupBy = []` over no rows gives no group, in SQL as in memory (SQL without a GROUP BY
    /// clause alone would give one row).
    @Test func emptyGroupingOverNoRowsGivesNoGroup() throws {
        let (sql, rows) = try Self.sqlAndRows([("a", 1, 1)]) { request in
            request.predicate = NSPredicate(format: "units > 100")
            request.propertiesToFetch = [Self.describe("units", "sum:", "units", .integer64AttributeType)]
            request.propertiesToGroupBy = []
        }
        #expect(sql.count == rows.count, "SQL: \(sql), rows: \(rows)")
    }
}

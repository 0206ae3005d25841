import CoreData
import Foundation
import Testing

/// Aggregates computed by the PostgreSQL server (`AggregatingBackend`: one `SELECT … GROUP BY`) give what the
/// context computes from rows (an in-memory store) for the same dictionary request.
@Suite(.enabled(if: PostgreSQLTestServer.url != nil, Comment(rawValue: PostgreSQLTestServer.unavailableReason)))
struct PostgreSQLAggregateTests {
    static func model() -> NSManagedObjectModel {
        let sale = NSEntityDescription(name: "Sale")
        sale.properties = [
            NSAttributeDescription(name: "region", type: .string), NSAttributeDescription(name: "units", type: .integer64),
            NSAttributeDescription(name: "price", type: .double), NSAttributeDescription(name: "weight", type: .float),
            NSAttributeDescription(name: "paid", type: .boolean), NSAttributeDescription(name: "when", type: .date),
        ]
        return NSManagedObjectModel(entities: [sale])
    }

    static func describe(_ name: String, _ function: String, _ key: String, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: key)])
        description.expressionResultType = type
        return description
    }

    /// Sales: region, units, price, weight, paid, when (seconds since 2001).
    typealias Sale = (String?, Int64?, Double?, Float?, Bool?, Double?)

    /// Thread-safe list of the statements the server ran for one store.
    final class Statements: @unchecked Sendable {
        // `lock` guards `sql`: the observer appends on the thread that ran a statement, the test reads after.
        private let lock = NSLock()
        private var sql: [String] = []
        func append(_ statement: String) { lock.withLock { sql.append(statement) } }
        var all: [String] { lock.withLock { sql } }
    }

    /// The same dictionary request on a PostgreSQL store and on an in-memory store, both holding `sales`, and
    /// whether the PostgreSQL store ran a `GROUP BY` or aggregate `SELECT` for it.
    static func serverAndRows(_ sales: [Sale], _ configure: (NSFetchRequest<NSDictionary>) -> Void) throws
        -> (server: [NSDictionary], rows: [NSDictionary], aggregatedOnServer: Bool) {
        let url = PostgreSQLTestServer.newStoreURL()
        let model = model()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .postgreSQL) }
        let server = NSPersistentStoreCoordinator(managedObjectModel: model)
        try server.addPersistentStore(type: .postgreSQL, at: url, options: [:])
        let memory = NSPersistentStoreCoordinator(managedObjectModel: model)
        try memory.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let contexts = [server, memory].map { coordinator in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        for context in contexts {
            try context.performAndWait {
                for (region, units, price, weight, paid, when) in sales {
                    let sale = NSEntityDescription.insertNewObject(forEntityName: "Sale", into: context)
                    sale.setValue(region, forKey: "region")
                    sale.setValue(units, forKey: "units")
                    sale.setValue(price, forKey: "price")
                    sale.setValue(weight, forKey: "weight")
                    sale.setValue(paid, forKey: "paid")
                    sale.setValue(when.map { Date(timeIntervalSinceReferenceDate: $0) }, forKey: "when")
                }
                try context.save()
            }
        }
        let request = NSFetchRequest<NSDictionary>(entityName: "Sale")
        request.resultType = .dictionaryResultType
        configure(request)
        let schema = PostgreSQLStoreTests.schema(of: url)
        let statements = Statements()
        let observation = SQLDebugLog.addObserver { record in
            if record.database.hasSuffix("(schema \(schema))") { statements.append(record.sql) }
        }
        let fromServer = try contexts[0].performAndWait { try contexts[0].fetch(request) }
        SQLDebugLog.removeObserver(observation)
        let fromRows = try contexts[1].performAndWait { try contexts[1].fetch(request) }
        let aggregated = statements.all.contains { $0.contains("SUM(") || $0.contains("COUNT(") || $0.contains("MIN(") || $0.contains("MAX(") }
        return (fromServer, fromRows, aggregated)
    }

    static let sales: [Sale] = [
        ("north", 3, 1.5, 0.25, true, 100), ("south", 5, 2.25, 1.5, false, 300), ("north", 7, nil, 2.75, false, 200),
        (nil, 11, 4.0, nil, true, nil), ("south", nil, 0.5, 0.125, nil, 50), ("north", 2, 8.0, 4, true, 400),
    ]

    @Test func everyFunctionPerGroupIsComputedByTheServerAsTheContextComputesIt() throws {
        let (server, rows, aggregated) = try Self.serverAndRows(Self.sales) { request in
            request.propertiesToFetch = [
                "region",
                Self.describe("units", "sum:", "units", .integer64AttributeType),
                Self.describe("meanUnits", "average:", "units", .doubleAttributeType),
                Self.describe("priced", "count:", "price", .integer64AttributeType),
                Self.describe("cheapest", "min:", "price", .doubleAttributeType),
                Self.describe("dearest", "max:", "price", .doubleAttributeType),
                Self.describe("weight", "sum:", "weight", .doubleAttributeType),
                Self.describe("paid", "sum:", "paid", .integer64AttributeType),
                Self.describe("first", "min:", "when", .dateAttributeType),
                Self.describe("last", "max:", "when", .dateAttributeType),
            ]
            request.propertiesToGroupBy = ["region"]
            request.sortDescriptors = [NSSortDescriptor(key: "region", ascending: true)]
        }
        #expect(aggregated, "the server computed the aggregates")
        #expect(server == rows, "server: \(server)\nrows: \(rows)")
        #expect(server.count == 3)
    }

    @Test func noMatchingRowsAndAPredicate() throws {
        let (server, rows, aggregated) = try Self.serverAndRows(Self.sales) { request in
            request.predicate = NSPredicate(format: "units > 100")
            request.propertiesToFetch = [Self.describe("units", "sum:", "units", .integer64AttributeType),
                                         Self.describe("mean", "average:", "price", .doubleAttributeType)]
        }
        #expect(aggregated)
        #expect(server == rows, "server: \(server)\nrows: \(rows)")
        let (grouped, groupedRows, _) = try Self.serverAndRows(Self.sales) { request in
            request.predicate = NSPredicate(format: "units > 100")
            request.propertiesToFetch = ["region", Self.describe("units", "sum:", "units", .integer64AttributeType)]
            request.propertiesToGroupBy = ["region"]
        }
        #expect(grouped.isEmpty && groupedRows.isEmpty, "no group over no rows")
    }

    @Test func averageOfLargeIntegersIsExactAndInfinitiesSumToNaN() throws {
        let big: Int64 = 1 << 53
        let (server, rows, _) = try Self.serverAndRows([("a", big, .infinity, nil, nil, nil), ("a", 1, -.infinity, nil, nil, nil), ("a", 1, 0, nil, nil, nil)]) { request in
            request.propertiesToFetch = [Self.describe("mean", "average:", "units", .doubleAttributeType),
                                         Self.describe("total", "sum:", "price", .doubleAttributeType)]
        }
        #expect((server.first?["mean"] as? NSNumber)?.doubleValue == (rows.first?["mean"] as? NSNumber)?.doubleValue, "server: \(server), rows: \(rows)")
        let serverTotal = (server.first?["total"] as? NSNumber)?.doubleValue, rowsTotal = (rows.first?["total"] as? NSNumber)?.doubleValue
        #expect(serverTotal?.isNaN == true && rowsTotal?.isNaN == true, "server: \(server), rows: \(rows)")
    }
}

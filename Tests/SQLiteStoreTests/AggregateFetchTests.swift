import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Aggregates and grouping computed in SQL by the SQLite store give the same dictionaries as the context
/// computes from rows (the in-memory store's path).
struct AggregateFetchTests {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Sale", [
            attribute("region", .string), attribute("units", .integer32), attribute("price", .double),
            attribute("day", .date), attribute("paid", .boolean), attribute("note", .string),
        ])])
    }

    static func fill(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            for index in 0..<200 {
                let sale = NSManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Sale"]), insertInto: context)
                sale.setValue(index % 7 == 0 ? nil : ["north", "south", "east"][index % 3], forKey: "region")
                sale.setValue(Int32((index * 37) % 50), forKey: "units")
                sale.setValue(Double((index * 13) % 97) / 4, forKey: "price")
                sale.setValue(Date(timeIntervalSinceReferenceDate: Double(index * 86_400)), forKey: "day")
                sale.setValue(index % 2 == 0, forKey: "paid")
                sale.setValue(index % 5 == 0 ? nil : "n\(index)", forKey: "note")
            }
            try context.save()
        }
    }

    static func describe(_ name: String, _ function: String, _ key: String?, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [key.map { NSExpression(forKeyPath: $0) } ?? NSExpression.expressionForEvaluatedObject()])
        description.expressionResultType = type
        return description
    }

    static func requests() -> [NSFetchRequest<NSDictionary>] {
        func request(_ configure: (NSFetchRequest<NSDictionary>) -> Void) -> NSFetchRequest<NSDictionary> {
            let request = NSFetchRequest<NSDictionary>(entityName: "Sale")
            request.resultType = .dictionaryResultType
            configure(request)
            return request
        }
        let all: [Any] = [describe("units", "sum:", "units", .integer64AttributeType), describe("mean", "average:", "price", .doubleAttributeType),
                   describe("first", "min:", "day", .dateAttributeType), describe("top", "max:", "price", .doubleAttributeType),
                   describe("rows", "count:", nil, .integer64AttributeType), describe("notes", "count:", "note", .integer64AttributeType),
                   describe("paid", "sum:", "paid", .integer64AttributeType)]
        return [
            request { $0.propertiesToFetch = all },
            request { $0.propertiesToFetch = all; $0.predicate = NSPredicate(format: "units > 1000") },
            request { $0.propertiesToFetch = ["region"] + all; $0.propertiesToGroupBy = ["region"]
                $0.sortDescriptors = [NSSortDescriptor(key: "region", ascending: true)] },
            request { $0.propertiesToFetch = ["region", "paid"] + Array(all.prefix(2)); $0.propertiesToGroupBy = ["region", "paid"]
                $0.sortDescriptors = [NSSortDescriptor(key: "region", ascending: false), NSSortDescriptor(key: "paid", ascending: true)]
                $0.predicate = NSPredicate(format: "price < 20") },
            request { $0.propertiesToFetch = ["region"] + all; $0.propertiesToGroupBy = ["region"]
                $0.sortDescriptors = [NSSortDescriptor(key: "region", ascending: true)]; $0.havingPredicate = NSPredicate(format: "rows > 50")
                $0.fetchLimit = 2 },
        ]
    }

    @Test func sqlGivesWhatRowsGive() throws {
        let sqlite = try Stack(model: Self.model(), url: TemporaryStore.url())
        let memoryCoordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try memoryCoordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let memory = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        memory.persistentStoreCoordinator = memoryCoordinator
        try Self.fill(sqlite.context)
        try Self.fill(memory)
        for (index, request) in Self.requests().enumerated() {
            let fromSQL = try sqlite.context.performAndWait { try sqlite.context.fetch(request) }
            let fromRows = try memory.performAndWait { try memory.fetch(request) }
            #expect(!fromSQL.isEmpty || index == 1, "request \(index)")
            #expect(fromSQL.count == fromRows.count, "request \(index)")
            for (a, b) in zip(fromSQL, fromRows) where a != b {
                for key in Set((a.allKeys + b.allKeys).compactMap { $0 as? String }) where !((a[key] as? NSObject)?.isEqual(b[key]) ?? (b[key] == nil)) {
                    Issue.record("request \(index), \(key): \(String(describing: a[key])) vs \(String(describing: b[key]))")
                }
            }
        }
        try sqlite.close()
    }
}

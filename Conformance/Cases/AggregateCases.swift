import CoreData

/// Aggregates in dictionary fetches (`NSExpressionDescription` with `sum:`, `count:`, `min:`, `max:`,
/// `average:`; `propertiesToGroupBy`; `havingPredicate`). They apply to every store: a store adopting
/// `AggregatingBackend` computes them itself, and the context computes the same results from rows for any other
/// store, so both roads must agree. Data: `FetchCases.populated` (ranks 0–9, Ann owns the even ranks and Bob the
/// odd ones, `double` is rank / 2, `flag` is rank % 3 == 0; a special item of rank 100 without owner, double
/// or flag).
enum AggregateCases {
    /// An expression description computing `function` of `key` (of the evaluated object when nil).
    static func column(_ name: String, _ function: String, _ key: String?, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        let argument = key.map { NSExpression(forKeyPath: $0) } ?? NSExpression.expressionForEvaluatedObject()
        description.expression = NSExpression(forFunction: function, arguments: [argument])
        description.expressionResultType = type
        return description
    }

    /// A dictionary fetch of `entity` returning `properties`.
    static func request(_ entity: String, _ properties: [Any], groupBy: [Any]? = nil) -> NSFetchRequest<NSDictionary> {
        let request = NSFetchRequest<NSDictionary>(entityName: entity)
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy
        return request
    }

    /// A value of a result dictionary as text: a number's value ("2.5", "3"), a string, or "nil" when missing.
    static func text(_ value: Any?) -> String {
        guard let value, !(value is NSNull) else { return "nil" }
        switch value {
        case let number as NSNumber:
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 1e15 ? "\(Int64(double))" : "\(double)"
        case let string as String: return string
        default: return "\(value)"
        }
    }

    /// Each result dictionary as its values for `keys`, joined with spaces.
    static func rows(_ results: [NSDictionary], _ keys: [String]) -> [String] {
        results.map { result in keys.map { text(result[$0]) }.joined(separator: " ") }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("aggregates/every-function-per-group") { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let grouped = request("Item", ["owner.name",
                                               column("lowest", "min:", "rank", .integer64AttributeType),
                                               column("highest", "max:", "rank", .integer64AttributeType),
                                               column("rows", "count:", nil, .integer64AttributeType),
                                               column("total", "sum:", "double", .doubleAttributeType),
                                               column("mean", "average:", "double", .doubleAttributeType)],
                                      groupBy: ["owner.name"])
                grouped.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: true)]
                let keys = ["owner.name", "lowest", "highest", "rows", "total", "mean"]
                try env.expectEqual(rows(try context.fetch(grouped), keys),
                                    ["nil 100 100 1 0 nil", "Ann 0 8 5 10 2", "Bob 1 9 5 12.5 2.5"],
                                    "min:, max:, count:, sum: and average: per owner (sum: of no values is 0, average: of none is nil)")
                grouped.predicate = NSPredicate(format: "rank < 5")
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["Ann 0 4 3 3 1", "Bob 1 3 2 2 1"],
                                    "the predicate selects the rows before grouping")

                let special = request("SpecialItem", [column("rows", "count:", nil, .integer64AttributeType),
                                                      column("total", "sum:", "rank", .integer64AttributeType)])
                try env.expectEqual(rows(try context.fetch(special), ["rows", "total"]), ["1 100"], "aggregates over a subentity")
                let parentOnly = request("Item", [column("rows", "count:", nil, .integer64AttributeType),
                                                  column("total", "sum:", "rank", .integer64AttributeType)])
                parentOnly.includesSubentities = false
                try env.expectEqual(rows(try context.fetch(parentOnly), ["rows", "total"]), ["10 45"], "includesSubentities = false leaves the subentity out")
            }
        },
        ConformanceCase("aggregates/no-matching-rows") { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let none = request("Item", [column("rows", "count:", nil, .integer64AttributeType),
                                            column("total", "sum:", "rank", .integer64AttributeType),
                                            column("highest", "max:", "rank", .integer64AttributeType)])
                none.predicate = NSPredicate(format: "rank > 1000")
                try env.expectEqual(rows(try context.fetch(none), ["rows", "total", "highest"]), ["0 0 nil"],
                                    "one dictionary without grouping: a count and a sum of 0, no max")
                let grouped = request("Item", ["owner.name", column("rows", "count:", nil, .integer64AttributeType)], groupBy: ["owner.name"])
                grouped.predicate = NSPredicate(format: "rank > 1000")
                try env.expectEqual(try context.fetch(grouped).count, 0, "no groups when no row matches")
                try env.expectEqual(try context.count(for: grouped), 0, "count(for:) of no groups")
            }
        },
        ConformanceCase("aggregates/two-grouping-keys-and-having") { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let grouped = request("Item", ["owner.name", "flag", column("rows", "count:", nil, .integer64AttributeType),
                                               column("highest", "max:", "rank", .integer64AttributeType)],
                                      groupBy: ["owner.name", "flag"])
                grouped.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: true), NSSortDescriptor(key: "flag", ascending: true)]
                let keys = ["owner.name", "flag", "rows", "highest"]
                try env.expectEqual(rows(try context.fetch(grouped), keys),
                                    ["nil nil 1 100", "Ann 0 3 8", "Ann 1 2 6", "Bob 0 3 7", "Bob 1 2 9"],
                                    "one dictionary per pair of values, in sort order")
                try env.expectEqual(try context.count(for: grouped), 5, "count(for:) counts the pairs")
                grouped.havingPredicate = NSPredicate(format: "rows > 2")
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["Ann 0 3 8", "Bob 0 3 7"], "havingPredicate on a count")
                grouped.havingPredicate = NSPredicate(format: "highest >= 9 OR rows == 1")
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["nil nil 1 100", "Bob 1 2 9"],
                                    "havingPredicate combining computed values")
                // Apple's samples pass the column's expression, or a variable named after it, for `%@`.
                let count = try env.require(AggregateCases.column("rows", "count:", nil, .integer64AttributeType).expression, "the count")
                grouped.havingPredicate = NSPredicate(format: "%@ > 2", count)
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["Ann 0 3 8", "Bob 0 3 7"],
                                    "havingPredicate with the count's own expression for %@")
                grouped.havingPredicate = NSPredicate(format: "%@ > 2", NSExpression(forVariable: "rows"))
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["Ann 0 3 8", "Bob 0 3 7"],
                                    "havingPredicate with a variable expression for %@")
            }
        },
        // Apple's dictionary fetches give each row's object ID for "objectID" in propertiesToFetch.
        ConformanceCase("aggregates/object-id-in-properties-to-fetch") { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let byName = try Fixtures.byName(context, "Item")
                let fetch = request("Item", ["name", "objectID"])
                fetch.predicate = NSPredicate(format: "rank < 3")
                fetch.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
                let results = try context.fetch(fetch)
                try env.expectEqual(results.map { $0["name"] as? String ?? "nil" }, ["item 0", "item 1", "item 2"], "the names")
                try env.expectEqual(results.map { ($0["objectID"] as? NSManagedObjectID)?.uriRepresentation() },
                                    ["item 0", "item 1", "item 2"].map { byName[$0]?.objectID.uriRepresentation() }, "each row's own object ID")
            }
        },
        // Apps filter groups by a key path that is neither grouped nor fetched (`timestamp >= %@ AND %@ > 1`,
        // `account == %@ AND %@ > 1`): Apple's SQL reads it in its HAVING clause from a row of the group. Each key
        // path here has one value per group, so any row gives the same answer.
        ConformanceCase("aggregates/having-reads-a-key-path-from-the-groups-rows") { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let count = column("rows", "count:", nil, .integer64AttributeType)
                let grouped = request("Item", ["owner.name", count], groupBy: ["owner.name"])
                grouped.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: true)]
                let keys = ["owner.name", "rows"]
                let owners = NSFetchRequest<NSManagedObject>(entityName: "Owner")
                owners.predicate = NSPredicate(format: "name == %@", "Ann")
                let ann = try env.require(try context.fetch(owners).first, "Ann")
                grouped.havingPredicate = NSPredicate(format: "owner == %@ AND %@ > 1", ann, NSExpression(forVariable: "rows"))
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["Ann 5"], "a to-one relationship compared with an object")
                grouped.havingPredicate = NSPredicate(format: "rank >= 100")
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["nil 1"], "an attribute that is not fetched")
                grouped.havingPredicate = NSPredicate(format: "rank < 100 AND %@ > 1", NSExpression(forVariable: "rows"))
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["Ann 5", "Bob 5"], "an attribute and a count")
                grouped.havingPredicate = NSPredicate(format: "owner.name BEGINSWITH 'B'")
                try env.expectEqual(rows(try context.fetch(grouped), keys), ["Bob 5"], "a grouped key path read by key")
            }
        },
    ]
}

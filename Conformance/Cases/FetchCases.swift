import CoreData

/// Fetching: predicates, sorts with nils, limit and offset, every result type, counts, subentities, pending
/// changes and key paths through relationships.
enum FetchCases {
    /// Saves ten items (ranks 0–9, names "item 0"–"item 9", item 7 without a name), two owners and a special
    /// item, and returns a fresh context on a reopened store.
    static func populated(_ env: ConformanceEnvironment) throws -> NSManagedObjectContext {
        let coordinator = try env.openCoordinator()
        let context = env.context(coordinator)
        try context.performAndWait {
            let ann = Fixtures.owner(context, "Ann"), bob = Fixtures.owner(context, "Bob")
            for rank in 0..<10 {
                let item = Fixtures.item(context, rank == 7 ? nil : "item \(rank)", rank: Int64(rank))
                item.setValue(rank % 2 == 0 ? ann : bob, forKey: "owner")
                item.setValue(Double(rank) / 2, forKey: "double")
                item.setValue(rank % 3 == 0, forKey: "flag")
            }
            let special = Fixtures.item(context, "special", rank: 100, special: true)
            special.setValue(Int32(3), forKey: "level")
            try context.save()
        }
        return try env.reopenedContext(or: coordinator)
    }

    static func names(_ objects: [NSManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "name") as? String ?? "nil" }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("fetch/predicates") { env in
            let context = try populated(env)
            try context.performAndWait {
                func matching(_ predicate: NSPredicate) throws -> Set<String> {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                    request.predicate = predicate
                    return Set(names(try context.fetch(request)))
                }
                try env.expectEqual(try matching(NSPredicate(format: "rank >= 8")), ["item 8", "item 9", "special"], "rank >= 8")
                try env.expectEqual(try matching(NSPredicate(format: "rank BETWEEN {2, 3}")), ["item 2", "item 3"], "BETWEEN")
                try env.expectEqual(try matching(NSPredicate(format: "name BEGINSWITH[c] %@", "ITEM 1")), ["item 1"], "BEGINSWITH[c]")
                try env.expectEqual(try matching(NSPredicate(format: "name == nil")), ["nil"], "== nil")
                try env.expectEqual(try matching(NSPredicate(format: "rank IN %@", [1, 4, 100])), ["item 1", "item 4", "special"], "IN")
                try env.expectEqual(try matching(NSPredicate(format: "flag == YES AND double > 1")), ["item 3", "item 6", "item 9"], "AND")
                try env.expectEqual(try matching(NSPredicate(format: "NOT (rank < 9) OR name LIKE 'item ?'  AND rank == 0")), ["item 0", "item 9", "special"], "NOT, OR, LIKE")
                try env.expectEqual(try matching(NSPredicate(format: "name CONTAINS %@", "m 5")), ["item 5"], "CONTAINS")
                try env.expectEqual(try matching(NSPredicate(format: "name MATCHES %@", "item [0-2]")), ["item 0", "item 1", "item 2"], "MATCHES")
                try env.expectEqual(try matching(NSPredicate(value: false)), [], "FALSEPREDICATE")
            }
        },
        ConformanceCase("fetch/key-paths-through-relationships") { env in
            let context = try populated(env)
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: "owner.name == %@ AND rank < 5", "Bob")
                try env.expectEqual(Set(names(try context.fetch(request))), ["item 1", "item 3"], "owner.name predicate")
                let owners = NSFetchRequest<NSManagedObject>(entityName: "Owner")
                owners.predicate = NSPredicate(format: "ANY items.rank == 8")
                try env.expectEqual(try context.fetch(owners).compactMap { $0.value(forKey: "name") as? String }, ["Ann"], "ANY over a to-many")
                owners.predicate = NSPredicate(format: "items.@count == 5")
                try env.expectEqual(try context.count(for: owners), 2, "@count")
                owners.predicate = NSPredicate(format: "SUBQUERY(items, $i, $i.rank > 6).@count == 1")
                try env.expectEqual(try context.fetch(owners).compactMap { $0.value(forKey: "name") as? String }, ["Ann"], "SUBQUERY")
                let sorted = NSFetchRequest<NSManagedObject>(entityName: "Item")
                sorted.predicate = NSPredicate(format: "rank < 4")
                sorted.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: false), NSSortDescriptor(key: "rank", ascending: true)]
                try env.expectEqual(names(try context.fetch(sorted)), ["item 1", "item 3", "item 0", "item 2"], "sort through a to-one")
            }
        },
        ConformanceCase("fetch/sort-limit-offset") { env in
            let context = try populated(env)
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                let ascending = names(try context.fetch(request))
                try env.expectEqual(ascending.first, "nil", "nil sorts first ascending")
                try env.expectEqual(Array(ascending.dropFirst()), ["item 0", "item 1", "item 2", "item 3", "item 4", "item 5", "item 6", "item 8", "item 9", "special"], "ascending by name")
                request.sortDescriptors = [NSSortDescriptor(key: "flag", ascending: false), NSSortDescriptor(key: "rank", ascending: false)]
                try env.expectEqual(names(try context.fetch(request)), ["item 9", "item 6", "item 3", "item 0", "item 8", "nil", "item 5", "item 4", "item 2", "item 1", "special"], "two keys, descending (nil last)")
                request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
                request.fetchOffset = 2
                request.fetchLimit = 3
                try env.expectEqual(names(try context.fetch(request)), ["item 2", "item 3", "item 4"], "offset 2, limit 3")
                try env.expectEqual(try context.count(for: request), 3, "count with offset and limit")
                request.fetchOffset = 20
                try env.expectEqual(try context.fetch(request).count, 0, "offset past the end")
            }
        },
        ConformanceCase("fetch/result-types") { env in
            let context = try populated(env)
            try context.performAndWait {
                let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
                ids.resultType = .managedObjectIDResultType
                ids.predicate = NSPredicate(format: "rank < 3")
                let fetchedIDs = try context.fetch(ids)
                try env.expectEqual(fetchedIDs.count, 3, "object ID results")
                try env.expect(fetchedIDs.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Item" }, "permanent Item IDs")
                try env.expectEqual(Set(fetchedIDs.compactMap { (try? context.existingObject(with: $0))?.value(forKey: "name") as? String }),
                                    ["item 0", "item 1", "item 2"], "IDs resolve to the matching objects")
                let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Item")
                dictionaries.resultType = .dictionaryResultType
                dictionaries.propertiesToFetch = ["name", "rank", "owner"]
                dictionaries.predicate = NSPredicate(format: "rank == 4")
                let rows = try context.fetch(dictionaries)
                try env.expectEqual(rows.count, 1, "dictionary results")
                try env.expectEqual(rows.first?["name"] as? String, "item 4", "dictionary name")
                try env.expectEqual((rows.first?["rank"] as? NSNumber)?.int64Value, 4, "dictionary rank")
                try env.expect(rows.first?["owner"] is NSManagedObjectID, "a to-one comes back as an object ID")
                try env.expect(rows.first?["double"] == nil, "properties not asked for are absent")
                let distinct = NSFetchRequest<NSDictionary>(entityName: "Item")
                distinct.resultType = .dictionaryResultType
                distinct.propertiesToFetch = ["flag"]
                distinct.returnsDistinctResults = true
                distinct.includesSubentities = false
                try env.expectEqual(try context.fetch(distinct).count, 2, "distinct dictionaries")
                // The limit and offset count distinct results, not rows: four rows with the flag set come first.
                distinct.sortDescriptors = [NSSortDescriptor(key: "flag", ascending: false)]
                distinct.fetchLimit = 2
                try env.expectEqual(try context.fetch(distinct).map { ($0["flag"] as? NSNumber)?.boolValue }, [true, false],
                                    "a distinct fetch's limit counts distinct dictionaries")
                distinct.fetchOffset = 1
                try env.expectEqual(try context.fetch(distinct).map { ($0["flag"] as? NSNumber)?.boolValue }, [false],
                                    "a distinct fetch's offset skips distinct dictionaries")
                let counts = NSFetchRequest<NSNumber>(entityName: "Item")
                counts.resultType = .countResultType
                try env.expectEqual(try context.fetch(counts).first?.intValue, 11, "count result type")
                try env.expectEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")), 2, "count(for:)")
            }
        },
        ConformanceCase("fetch/pending-changes") { env in
            let context = try populated(env)
            try context.performAndWait {
                let items = try Fixtures.byName(context, "Item")
                _ = Fixtures.item(context, "new", rank: 50)
                items["item 1"].map(context.delete)
                items["item 2"]?.setValue(60, forKey: "rank")
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: "rank >= 9 OR rank == 1")
                request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
                try env.expectEqual(names(try context.fetch(request)), ["item 9", "new", "item 2", "special"], "unsaved inserts, deletes and updates")
                try env.expectEqual(try context.count(for: request), 4, "count with pending changes")
                request.includesPendingChanges = false
                try env.expectEqual(Set(names(try context.fetch(request))), ["item 1", "item 9", "special"], "includesPendingChanges = false")
            }
        },
        ConformanceCase("fetch/missing-object") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let id = try context.performAndWait {
                let item = Fixtures.item(context, "gone", rank: 1)
                try context.save()
                return item.objectID
            }
            let other = env.context(coordinator)
            try other.performAndWait {
                other.delete(try other.existingObject(with: id))
                try other.save()
            }
            let fresh = env.context(coordinator)
            try fresh.performAndWait {
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) for an object another context deleted") {
                    _ = try fresh.existingObject(with: id)
                }
            }
        },
        ConformanceCase("fetch/malformed-predicate") { env in
            let context = try populated(env)
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: "rank >= AND")
                let error = try env.expectError([2048, NSCoreDataError], "fetching with a malformed predicate") { _ = try context.fetch(request) }
                try env.expect(error.localizedDescription.contains("offset"), "the error names the position: \(error.localizedDescription)")
                request.predicate = NSPredicate(format: "noSuchKey == 1")
                try env.expectError([2048, NSCoreDataError], "fetching with a key the entity lacks") { _ = try context.fetch(request) }
                try env.expectError([NSCoreDataError], "fetching an entity the model lacks") {
                    _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "NoSuchEntity"))
                }
            }
        },
        ConformanceCase("fetch/unknown-key-in-predicate-throws") { env in
            // Apple raises NSInvalidArgumentException "keypath X not found in entity Y"; here every store throws one
            // NSError for it (2048, the key path under PredicateFormatError.keyKey, the key path and entity named), for
            // every result type, before any row is read: never an empty result.
            let context = try populated(env)
            try context.performAndWait {
                let cases: [(entity: String, format: String, predicate: NSPredicate, keyPath: String, named: String)] = [
                    ("Item", "nmae == 'item 1'", NSPredicate(format: "nmae == %@", "item 1"), "nmae", "Item"),
                    ("Item", "%K == 'item 1' with nmae", NSPredicate(format: "%K == %@", "nmae", "item 1"), "nmae", "Item"),
                    ("Item", "owner.nmae == 'Ann'", NSPredicate(format: "owner.nmae == %@", "Ann"), "owner.nmae", "Owner"),
                    ("Owner", "ANY items.rnak > 3", NSPredicate(format: "ANY items.rnak > 3"), "items.rnak", "Item"),
                    ("Owner", "SUBQUERY(items, $item, $item.rnak > 3).@count > 0",
                     NSPredicate(format: "SUBQUERY(items, $item, $item.rnak > 3).@count > 0"), "rnak", "Item"),
                    ("Item", "rank > 3 OR owner.nmae == 'Ann'", NSPredicate(format: "rank > 3 OR owner.nmae == %@", "Ann"), "owner.nmae", "Owner"),
                    ("Item", "name.nmae == 'x'", NSPredicate(format: "name.nmae == %@", "x"), "name.nmae", "name"),
                ]
                let resultTypes: [(NSFetchRequestResultType, String)] = [(.managedObjectResultType, "objects"), (.countResultType, "a count"),
                                                                         (.dictionaryResultType, "dictionaries"), (.managedObjectIDResultType, "object IDs")]
                for (entity, format, predicate, keyPath, named) in cases {
                    for (resultType, what) in resultTypes {
                        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
                        request.predicate = predicate
                        request.resultType = resultType
                        let error = try env.expectError([2048], "fetching \(what) of \(entity) with \(format)") { _ = try context.fetch(request) }
                        try env.expectEqual(error.userInfo[PredicateFormatError.keyKey] as? String, keyPath, "the key path the error names for \(format)")
                        try env.expect(error.localizedDescription.contains("\"\(keyPath)\"") && error.localizedDescription.contains(named),
                                       "the message names the key path \(keyPath) and \(named): \(error.localizedDescription)")
                    }
                    let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
                    request.predicate = predicate
                    _ = try env.expectError([2048], "counting \(entity) with \(format)") { _ = try context.count(for: request) }
                }
                // The keys spelled right fetch what they name, so the errors above are about the keys alone.
                let right = NSFetchRequest<NSManagedObject>(entityName: "Item")
                right.predicate = NSPredicate(format: "rank > 3 OR owner.name == %@", "Ann")
                try env.expectEqual(Set(names(try context.fetch(right))),
                                    ["item 0", "item 2", "item 4", "item 5", "item 6", "nil", "item 8", "item 9", "special"], "rank > 3 OR owner.name == Ann")
            }
        },
        ConformanceCase("fetch/unknown-sort-key-throws") { env in
            // Apple raises NSInvalidArgumentException for a sort key the entity lacks ("keypath … not found in
            // entity") and for one crossing a to-many relationship ("to-many key not allowed here"); here every store
            // throws 2048 naming the key path, for every result type, instead of returning rows in some order.
            let context = try populated(env)
            try context.performAndWait {
                let cases: [(entity: String, key: String)] = [("Item", "nmae"), ("Item", "owner.nmae"), ("Owner", "items.rank")]
                let resultTypes: [(NSFetchRequestResultType, String)] = [(.managedObjectResultType, "objects"),
                                                                         (.dictionaryResultType, "dictionaries"), (.managedObjectIDResultType, "object IDs")]
                for (entity, key) in cases {
                    for (resultType, what) in resultTypes {
                        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
                        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
                        request.resultType = resultType
                        let error = try env.expectError([2048], "fetching \(what) of \(entity) sorted by \(key)") { _ = try context.fetch(request) }
                        try env.expectEqual(error.userInfo[PredicateFormatError.keyKey] as? String, key, "the key path the error names for \(key)")
                        try env.expect(error.localizedDescription.contains("\"\(key)\""), "the message names \(key): \(error.localizedDescription)")
                    }
                }
                // Keys spelled right, through a to-one relationship, sort as they say.
                let right = NSFetchRequest<NSManagedObject>(entityName: "Item")
                right.predicate = NSPredicate(format: "owner != nil")
                right.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: false), NSSortDescriptor(key: "rank", ascending: true)]
                try env.expectEqual(names(try context.fetch(right)),
                                    ["item 1", "item 3", "item 5", "nil", "item 9", "item 0", "item 2", "item 4", "item 6", "item 8"],
                                    "sorted by owner.name descending, then rank")
            }
        },
        ConformanceCase("fetch/expressions-and-grouping") { env in
            let context = try populated(env)
            try context.performAndWait {
                func description(_ name: String, _ function: String, _ key: String?, _ type: NSAttributeType) -> NSExpressionDescription {
                    let description = NSExpressionDescription()
                    description.name = name
                    let argument = key.map { NSExpression(forKeyPath: $0) } ?? NSExpression.expressionForEvaluatedObject()
                    description.expression = NSExpression(forFunction: function, arguments: [argument])
                    description.expressionResultType = type
                    return description
                }
                let totals = NSFetchRequest<NSDictionary>(entityName: "Item")
                totals.resultType = .dictionaryResultType
                totals.propertiesToFetch = [description("total", "sum:", "rank", .integer64AttributeType),
                                            description("highest", "max:", "double", .doubleAttributeType),
                                            description("mean", "average:", "rank", .doubleAttributeType),
                                            description("named", "count:", "name", .integer64AttributeType),
                                            description("rows", "count:", nil, .integer64AttributeType)]
                let all = try context.fetch(totals)
                try env.expectEqual(all.count, 1, "aggregates without grouping give one dictionary")
                try env.expectEqual((all.first?["total"] as? NSNumber)?.int64Value, 145, "sum:")
                try env.expectEqual((all.first?["highest"] as? NSNumber)?.doubleValue, 4.5, "max: (the special item has no double)")
                try env.expectEqual((all.first?["mean"] as? NSNumber)?.doubleValue, 145.0 / 11, "average:")
                try env.expectEqual((all.first?["named"] as? NSNumber)?.int64Value, 10, "count: skips nil")
                try env.expectEqual((all.first?["rows"] as? NSNumber)?.int64Value, 11, "count: of the evaluated object")

                let grouped = NSFetchRequest<NSDictionary>(entityName: "Item")
                grouped.resultType = .dictionaryResultType
                grouped.propertiesToFetch = ["owner.name", description("total", "sum:", "rank", .integer64AttributeType)]
                grouped.propertiesToGroupBy = ["owner.name"]
                grouped.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: true)]
                let groups = try context.fetch(grouped).map { ($0["owner.name"] as? String ?? "none", ($0["total"] as? NSNumber)?.int64Value ?? -1) }
                try env.expectEqual(groups.map(\.0), ["none", "Ann", "Bob"], "groups in sort order (nil first)")
                try env.expectEqual(groups.map(\.1), [100, 20, 25], "a sum per group")
                try env.expectEqual(try context.count(for: grouped), 3, "count(for:) counts the groups")
                grouped.havingPredicate = NSPredicate(format: "total > 20")
                try env.expectEqual(try context.fetch(grouped).compactMap { $0["owner.name"] as? String }, ["Bob"], "havingPredicate")
                grouped.havingPredicate = NSPredicate(format: "$total > 20")
                try env.expectEqual(try context.fetch(grouped).compactMap { $0["owner.name"] as? String }, ["Bob"],
                                    "havingPredicate naming an expression description as a variable")
                grouped.havingPredicate = nil
                grouped.sortDescriptors = [NSSortDescriptor(key: "total", ascending: false)]
                grouped.fetchLimit = 1
                try env.expectEqual((try context.fetch(grouped).first?["total"] as? NSNumber)?.int64Value, 100, "sorting by a computed key, then the limit")

                let wrong = NSFetchRequest<NSDictionary>(entityName: "Item")
                wrong.resultType = .dictionaryResultType
                wrong.propertiesToFetch = ["name", description("total", "sum:", "rank", .integer64AttributeType)]
                wrong.propertiesToGroupBy = ["owner"]
                try env.expectError([NSCoreDataError], "a grouped fetch returning an ungrouped property") { _ = try context.fetch(wrong) }
                let objects = NSFetchRequest<NSManagedObject>(entityName: "Item")
                objects.propertiesToGroupBy = ["owner"]
                try env.expectError([NSCoreDataError], "grouping objects rather than dictionaries") { _ = try context.fetch(objects) }
            }
        },
    ]
}

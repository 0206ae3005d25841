import CoreData

/// Batch updates and batch inserts: predicates, subentities, every result type, merging, value types, and
/// bad input that must change nothing.
enum BatchRequestCases {
    /// The items' names and ranks, by name, read in a new context.
    static func ranks(_ context: NSManagedObjectContext) throws -> [String: Int64] {
        var result: [String: Int64] = [:]
        for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) {
            result[item.value(forKey: "name") as? String ?? "nil"] = (item.value(forKey: "rank") as? NSNumber)?.int64Value
        }
        return result
    }

    static func count(_ context: NSManagedObjectContext, _ entity: String) throws -> Int {
        try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity))
    }

    static let update: [ConformanceCase] = [
        ConformanceCase("batch-update/predicate", adopting: [.batchUpdating]) { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let request = NSBatchUpdateRequest(entityName: "Item")
                request.predicate = NSPredicate(format: "rank < %d", 3)
                request.propertiesToUpdate = ["string": "updated", "double": 9.5, "rank": 50]
                request.resultType = .updatedObjectsCountResultType
                let result = try context.execute(request) as? NSBatchUpdateResult
                try env.expectEqual((result?.result as? NSNumber)?.intValue, 3, "updated count")
                try env.expectEqual(result?.resultType, .updatedObjectsCountResultType, "result type")
            }
            let reopened = try env.reopenedContext(or: context.persistentStoreCoordinator!)
            try reopened.performAndWait {
                let items = try Fixtures.byName(reopened, "Item")
                for rank in 0..<10 where rank != 7 {
                    guard let item = items["item \(rank)"] else { try env.expect(false, "item \(rank) is still there"); continue }
                    if rank < 3 {
                        try env.expectEqual(item.value(forKey: "string") as? String, "updated", "item \(rank).string")
                        try env.expectEqual((item.value(forKey: "double") as? NSNumber)?.doubleValue, 9.5, "item \(rank).double")
                        try env.expectEqual((item.value(forKey: "rank") as? NSNumber)?.int64Value, 50, "item \(rank).rank")
                    } else {
                        try env.expect(item.value(forKey: "string") == nil, "item \(rank).string untouched")
                        try env.expectEqual((item.value(forKey: "double") as? NSNumber)?.doubleValue, Double(rank) / 2, "item \(rank).double untouched")
                        try env.expectEqual((item.value(forKey: "rank") as? NSNumber)?.int64Value, Int64(rank), "item \(rank).rank untouched")
                    }
                }
                try env.expectEqual(try count(reopened, "Item"), 11, "no rows added or lost")
            }
        },
        ConformanceCase("batch-update/result-types", adopting: [.batchUpdating]) { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let status = NSBatchUpdateRequest(entityName: "Item")
                status.predicate = NSPredicate(format: "flag == YES")
                status.propertiesToUpdate = ["int32": Int32(7)]
                let statusResult = try context.execute(status) as? NSBatchUpdateResult
                try env.expectEqual((statusResult?.result as? NSNumber)?.boolValue, true, "status result")
                try env.expectEqual(statusResult?.resultType, .statusOnlyResultType, "status result type")

                let matching = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
                matching.predicate = NSPredicate(format: "rank >= 5")
                matching.resultType = .managedObjectIDResultType
                let expected = Set(try context.fetch(matching))
                let ids = NSBatchUpdateRequest(entityName: "Item")
                ids.predicate = NSPredicate(format: "rank >= 5")
                ids.propertiesToUpdate = ["flag": true]
                ids.resultType = .updatedObjectIDsResultType
                let idResult = try context.execute(ids) as? NSBatchUpdateResult
                let updated = idResult?.result as? [NSManagedObjectID] ?? []
                try env.expectEqual(updated.count, 6, "updated IDs")
                try env.expectEqual(Set(updated), expected, "the IDs are those a fetch finds")

                let none = NSBatchUpdateRequest(entityName: "Item")
                none.predicate = NSPredicate(format: "rank > 1000")
                none.propertiesToUpdate = ["flag": false]
                none.resultType = .updatedObjectsCountResultType
                try env.expectEqual(((try context.execute(none) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue, 0, "nothing matches")
            }

            let fresh = env.context(context.persistentStoreCoordinator!)
            try fresh.performAndWait {
                let flagged = NSFetchRequest<NSManagedObject>(entityName: "Item")
                flagged.predicate = NSPredicate(format: "int32 == 7")
                try env.expectEqual(try fresh.count(for: flagged), 4, "the status-only update was applied")
                let set = NSFetchRequest<NSManagedObject>(entityName: "Item")
                set.predicate = NSPredicate(format: "flag == YES")
                try env.expectEqual(try fresh.count(for: set), 8, "flags after both updates")
            }
        },
        ConformanceCase("batch-update/subentities", adopting: [.batchUpdating]) { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let only = NSBatchUpdateRequest(entityName: "Item")
                only.predicate = NSPredicate(format: "rank >= 9")
                only.includesSubentities = false
                only.propertiesToUpdate = ["string": "base only"]
                only.resultType = .updatedObjectsCountResultType
                try env.expectEqual(((try context.execute(only) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue, 1, "without subentities")
                let all = NSBatchUpdateRequest(entityName: "Item")
                all.predicate = NSPredicate(format: "rank >= 9")
                all.propertiesToUpdate = ["int16": Int16(2)]
                all.resultType = .updatedObjectIDsResultType
                let ids = (try context.execute(all) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
                try env.expectEqual(Set(ids.compactMap(\.entity.name)), ["Item", "SpecialItem"], "with subentities")
                let entity = context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["SpecialItem"]!
                let level = NSBatchUpdateRequest(entity: entity)
                level.propertiesToUpdate = [entity.propertiesByName["level"]!: 9]
                _ = try context.execute(level)
            }
            let reopened = try env.reopenedContext(or: context.persistentStoreCoordinator!)
            try reopened.performAndWait {
                let items = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(items["item 9"]?.value(forKey: "string") as? String, "base only", "item 9 updated")
                try env.expect(items["special"]?.value(forKey: "string") == nil, "the special item was left out")
                try env.expectEqual((items["special"]?.value(forKey: "int16") as? NSNumber)?.intValue, 2, "the special item was included")
                try env.expectEqual((items["special"]?.value(forKey: "level") as? NSNumber)?.intValue, 9, "a subentity's own attribute")
                try env.expectEqual((items["item 8"]?.value(forKey: "int16") as? NSNumber), nil, "item 8 untouched")
            }
        },
        ConformanceCase("batch-update/merge-refreshes-objects", adopting: [.batchUpdating]) { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let items = try Fixtures.byName(context, "Item")
                guard let first = items["item 1"], let second = items["item 2"] else { return try env.expect(false, "items fetched") }
                try env.expectEqual((first.value(forKey: "rank") as? NSNumber)?.intValue, 1, "value before")
                let request = NSBatchUpdateRequest(entityName: "Item")
                request.predicate = NSPredicate(format: "rank IN %@", [1, 2])
                request.propertiesToUpdate = ["string": "merged"]
                request.resultType = .updatedObjectIDsResultType
                let ids = (try context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
                try env.expect(first.value(forKey: "string") == nil, "registered objects are not refreshed by the request itself")
                second.setValue(Int64(22), forKey: "rank")
                NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
                try env.expectEqual(first.value(forKey: "string") as? String, "merged", "merging the updated IDs refreshes the object")
                try env.expectEqual(second.value(forKey: "string") as? String, "merged", "merging refreshes a changed object")
                try env.expectEqual((second.value(forKey: "rank") as? NSNumber)?.intValue, 22, "and keeps its unsaved change")
            }

            // The update raised the rows' versions: an object changed in a context that did not merge is stale.
            let other = env.context(context.persistentStoreCoordinator!)
            let third = try other.performAndWait { try Fixtures.byName(other, "Item")["item 3"] }
            let bump = NSBatchUpdateRequest(entityName: "Item")
            bump.predicate = NSPredicate(format: "rank == 3")
            bump.propertiesToUpdate = ["string": "bumped"]
            _ = try context.performAndWait { try context.execute(bump) }
            try other.performAndWait {
                third?.setValue("stale", forKey: "name")
                try env.expectError([NSManagedObjectMergeError], "saving an object the batch update changed underneath") { try other.save() }
            }
        },
        // A status-only or count update does not say which rows it changed: no context may go on reading the
        // rows it held before the update when it fills its objects afterwards.
        ConformanceCase("batch-update/status-and-count-leave-no-stale-rows", adopting: [.batchUpdating]) { env in
            let context = try FetchCases.populated(env)
            let coordinator = try env.require(context.persistentStoreCoordinator, "the context's coordinator")
            // Another context fetches every item: the rows it read stay with the coordinator for its faults.
            let reader = env.context(coordinator)
            let byRank = NSFetchRequest<NSManagedObject>(entityName: "Item")
            byRank.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let read = try reader.performAndWait { try reader.fetch(byRank) }
            try env.expectEqual(read.count, 11, "items read before the updates")
            try context.performAndWait {
                let counted = NSBatchUpdateRequest(entityName: "Item")
                counted.predicate = NSPredicate(format: "rank >= 5")
                counted.propertiesToUpdate = ["int32": Int32(42)]
                counted.resultType = .updatedObjectsCountResultType
                try env.expectEqual(((try context.execute(counted) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue, 6, "rows counted")
                let status = NSBatchUpdateRequest(entityName: "Item")
                status.predicate = NSPredicate(format: "rank < 5")
                status.propertiesToUpdate = ["int32": Int32(7)]
                try env.expectEqual(((try context.execute(status) as? NSBatchUpdateResult)?.result as? NSNumber)?.boolValue, true, "status result")
            }
            let expected: [Int32?] = [7, 7, 7, 7, 7, 42, 42, 42, 42, 42, 42]
            let filled = reader.performAndWait { read.map { ($0.value(forKey: "int32") as? NSNumber)?.int32Value } }
            try env.expectEqual(filled, expected, "the reader's objects, filled after the updates, hold the new values")
            let reopened = try env.reopenedContext(or: coordinator)
            let stored = try reopened.performAndWait {
                try reopened.fetch(byRank).map { ($0.value(forKey: "int32") as? NSNumber)?.int32Value }
            }
            try env.expectEqual(stored, expected, "values after a reopen")
        },
        ConformanceCase("batch-update/bad-input", adopting: [.batchUpdating]) { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                func attempt(_ codes: Set<Int>, _ what: String, entity: String = "Item", _ values: [AnyHashable: Any]) throws {
                    let request = NSBatchUpdateRequest(entityName: entity)
                    request.propertiesToUpdate = values
                    try env.expectError(codes, what) { _ = try context.execute(request) }
                }
                try attempt([NSManagedObjectValidationError], "an unknown attribute", ["rank": 1, "nonexistent": 1])
                try attempt([NSManagedObjectValidationError], "a value of the wrong type", ["rank": 1, "date": "not a date"])
                try attempt([NSValidationMissingMandatoryPropertyError], "nil for a required attribute", entity: "Owner", ["name": NSNull()])
                try attempt([NSPersistentStoreUnsupportedRequestTypeError], "a relationship", ["owner": NSNull()])
                try attempt([NSPersistentStoreUnsupportedRequestTypeError], "a transient attribute", ["scratch": "x"])
                let missing = NSBatchUpdateRequest(entityName: "Nothing")
                missing.propertiesToUpdate = ["rank": 1]
                try env.expectError([NSCoreDataError], "an unknown entity") { _ = try context.execute(missing) }
            }
            let fresh = env.context(context.persistentStoreCoordinator!)
            try fresh.performAndWait {
                let ranks = try ranks(fresh)
                try env.expectEqual(ranks["item 4"], 4, "rows unchanged after the refused updates")
                try env.expectEqual(ranks.count, 11, "no rows lost")
            }
        },
    ]

    static let insert: [ConformanceCase] = [
        ConformanceCase("batch-insert/dictionaries", adopting: [.batchInserting]) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let objects: [[String: Any]] = (0..<5).map { ["name": "batch \($0)", "rank": $0] }
                let request = NSBatchInsertRequest(entityName: "Item", objects: objects)
                request.resultType = .objectIDs
                let result = try context.execute(request) as? NSBatchInsertResult
                let ids = result?.result as? [NSManagedObjectID] ?? []
                try env.expectEqual(result?.resultType, .objectIDs, "result type")
                try env.expectEqual(ids.count, 5, "inserted IDs")
                try env.expect(ids.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Item" }, "the IDs are permanent IDs of Item")
                try env.expectEqual(Set(ids).count, 5, "the IDs are distinct")
                let object = try context.existingObject(with: ids[3])
                try env.expectEqual(object.value(forKey: "name") as? String, "batch 3", "an inserted object by its ID")
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try env.expectEqual(try ranks(reopened), ["batch 0": 0, "batch 1": 1, "batch 2": 2, "batch 3": 3, "batch 4": 4], "rows after a reopen")
            }
        },
        ConformanceCase("batch-insert/handlers", adopting: [.batchInserting]) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                var next = 0
                let dictionaries = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                    guard next < 4 else { return true }
                    dictionary["name"] = "dictionary \(next)"
                    dictionary["rank"] = next
                    next += 1
                    return false
                })
                dictionaries.resultType = .count
                let counted = try context.execute(dictionaries) as? NSBatchInsertResult
                try env.expectEqual((counted?.result as? NSNumber)?.intValue, 4, "objects from the dictionary handler")
                let entity = coordinator.managedObjectModel.entitiesByName["Item"]!
                var made = 0
                let objects = NSBatchInsertRequest(entity: entity, managedObjectHandler: { object in
                    guard made < 3 else { return true }
                    object.setValue("object \(made)", forKey: "name")
                    object.setValue(Int64(10 + made), forKey: "rank")
                    made += 1
                    return false
                })
                let status = try context.execute(objects) as? NSBatchInsertResult
                try env.expectEqual((status?.result as? NSNumber)?.boolValue, true, "status result")
                try env.expectEqual(status?.resultType, .statusOnly, "status result type")
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try env.expectEqual(try ranks(reopened), ["dictionary 0": 0, "dictionary 1": 1, "dictionary 2": 2, "dictionary 3": 3,
                                                          "object 0": 10, "object 1": 11, "object 2": 12], "rows after a reopen")
            }
        },
        ConformanceCase("batch-insert/value-types", adopting: [.batchInserting]) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let samples = AttributeSamples(big: Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
            try context.performAndWait {
                let objects = samples.rows.map { name, values in values.merging(["name": name]) { a, _ in a } }
                _ = try context.execute(NSBatchInsertRequest(entityName: "Item", objects: objects))
                // Values in other forms are converted as a save converts them.
                _ = try context.execute(NSBatchInsertRequest(entityName: "SpecialItem", objects: [
                    ["name": "converted", "rank": NSNumber(value: 5), "int16": 12, "double": Int64(3), "level": "x".count,
                     "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "decimal": "1.25"],
                ]))
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let items = try Fixtures.byName(reopened, "Item")
                try samples.expectWritten(in: items, env)
                let converted = items["converted"]
                try env.expectEqual(converted?.entity.name, "SpecialItem", "a subentity's row")
                try env.expect(AttributeSamples.same(converted?.value(forKey: "rank"), Int64(5)), "NSNumber into Int64")
                try env.expect(AttributeSamples.same(converted?.value(forKey: "int16"), Int16(12)), "Int into Int16")
                try env.expect(AttributeSamples.same(converted?.value(forKey: "double"), Double(3)), "Int64 into Double")
                try env.expect(AttributeSamples.same(converted?.value(forKey: "level"), Int32(1)), "Int into Int32")
                try env.expect(AttributeSamples.same(converted?.value(forKey: "uuid"), UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), "a UUID string")
                try env.expect(AttributeSamples.same(converted?.value(forKey: "decimal"), Decimal(string: "1.25")!), "a decimal string")
            }
        },
        ConformanceCase("batch-insert/keys-stay-unique", adopting: [.batchInserting]) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            var ids = try context.performAndWait {
                let first = NSBatchInsertRequest(entityName: "Item", objects: [["name": "a"], ["name": "b"]])
                first.resultType = .objectIDs
                let inserted = (try context.execute(first) as? NSBatchInsertResult)?.result as? [NSManagedObjectID] ?? []
                let saved = Fixtures.item(context, "c", rank: 0)
                let special = Fixtures.item(context, "d", rank: 0, special: true)
                try context.save()
                return inserted + [saved.objectID, special.objectID]
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let second = NSBatchInsertRequest(entityName: "SpecialItem", objects: [["name": "e"], ["name": "f"]])
                second.resultType = .objectIDs
                ids += (try reopened.execute(second) as? NSBatchInsertResult)?.result as? [NSManagedObjectID] ?? []
                let keys = ids.map { $0.uriRepresentation().lastPathComponent }
                try env.expectEqual(Set(keys).count, 6, "primary keys of one hierarchy are never reused (\(keys))")
                try env.expectEqual(Set(try Fixtures.byName(reopened, "Item").keys), ["a", "b", "c", "d", "e", "f"], "every row is there")
            }
        },
        ConformanceCase("batch-insert/bad-input", adopting: [.batchInserting]) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.owner(context, "Existing")
                try context.save()
                func attempt(_ codes: Set<Int>, _ what: String, entity: String = "Item", _ objects: [[String: Any]]) throws {
                    try env.expectError(codes, what) { _ = try context.execute(NSBatchInsertRequest(entityName: entity, objects: objects)) }
                }
                try attempt([NSManagedObjectValidationError], "an unknown key", [["name": "good"], ["name": "bad", "nonexistent": 1]])
                try attempt([NSManagedObjectValidationError], "a value of the wrong type", [["name": "good"], ["rank": "seven"]])
                try attempt([NSManagedObjectValidationError], "an integer that does not fit", [["name": "good"], ["int16": 100_000]])
                try attempt([NSValidationMissingMandatoryPropertyError], "a required value missing", entity: "Owner", [["name": "Fine"], [:]])
                try attempt([NSValidationMissingMandatoryPropertyError], "a required value nil", entity: "Owner", [["name": NSNull()]])
                try attempt([NSPersistentStoreUnsupportedRequestTypeError], "a relationship", [["name": "x", "tags": NSNull()]])
                var calls = 0
                let handler = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                    calls += 1
                    guard calls <= 2 else { return true }
                    dictionary["rank"] = calls == 1 ? 1 : Date()
                    return false
                })
                try env.expectError([NSManagedObjectValidationError], "a bad value from a dictionary handler") { _ = try context.execute(handler) }
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try env.expectEqual(try count(reopened, "Item"), 0, "no item was inserted")
                try env.expectEqual(try count(reopened, "Owner"), 1, "no owner was inserted")
            }
        },
    ]

    static let readOnly = ConformanceCase("batch-update/read-only", requires: .persistent, adopting: [.batchUpdating, .batchInserting]) { env in
        let writer = try env.openCoordinator()
        let context = env.context(writer)
        try context.performAndWait {
            _ = Fixtures.item(context, "kept", rank: 1)
            try context.save()
        }
        for store in writer.persistentStores { try writer.remove(store) }
        let before = env.fileBytes()
        let reader = env.context(try env.openCoordinator(options: [NSReadOnlyPersistentStoreOption: true]))
        try reader.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Item")
            update.propertiesToUpdate = ["rank": 2]
            try env.expectError([NSPersistentStoreSaveError], "a batch update in a read-only store") { _ = try reader.execute(update) }
            try env.expectError([NSPersistentStoreSaveError], "a batch insert in a read-only store") {
                _ = try reader.execute(NSBatchInsertRequest(entityName: "Item", objects: [["name": "new"]]))
            }
            try env.expectEqual(try ranks(reader), ["kept": 1], "rows unchanged")
        }
        try env.expectEqual(env.fileBytes(), before, "the file's bytes")
    }

    static let all: [ConformanceCase] = update + insert + [readOnly]
}

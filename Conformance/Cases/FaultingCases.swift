import CoreData

/// Faults and batches: what `returnsObjectsAsFaults`, `includesPropertyValues` and `fetchBatchSize` return,
/// what `refresh(_:mergeChanges:)` turns back into a fault, and what a batched array holds when the store
/// changes after the fetch.
enum FaultingCases {
    /// A request for every item (special items included), by rank unless `configure` says otherwise.
    static func items(_ configure: (NSFetchRequest<NSManagedObject>) -> Void = { _ in }) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        configure(request)
        return request
    }

    /// A new context on `context`'s coordinator, with no object registered.
    static func fresh(_ env: ConformanceEnvironment, _ context: NSManagedObjectContext) throws -> NSManagedObjectContext {
        env.context(try env.require(context.persistentStoreCoordinator, "the context's coordinator"))
    }

    /// Each object as "name/rank" (reading its values, so faults fire).
    static func summary(_ objects: [NSManagedObject]) -> [String] {
        objects.map { "\($0.value(forKey: "name") as? String ?? "nil")/\(($0.value(forKey: "rank") as? Int64).map(String.init) ?? "nil")" }
    }

    /// The populated store's items by rank, as `summary` gives them.
    static let allByRank = (0..<10).map { $0 == 7 ? "nil/7" : "item \($0)/\($0)" } + ["special/100"]

    /// The requests the batched cases run: sorts, a predicate, an offset and a limit, and the store's order.
    static let batchedRequests: [(String, @Sendable (NSFetchRequest<NSManagedObject>) -> Void)] = [
        ("by rank", { _ in }),
        ("a predicate, by name descending", {
            $0.predicate = NSPredicate(format: "rank >= 2 AND rank < 100")
            $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        }),
        ("offset 2, limit 5", { $0.fetchOffset = 2; $0.fetchLimit = 5 }),
        ("limit 1", { $0.fetchLimit = 1 }),
        ("the store's order", { $0.sortDescriptors = nil; $0.predicate = NSPredicate(format: "rank != 3") }),
    ]

    static let batchSizes = [1, 2, 3, 4, 11, 50]

    static let all: [ConformanceCase] = [
        ConformanceCase("faults/fetched-objects-are-faults") { env in
            let context = try FetchCases.populated(env)
            let reader = try fresh(env, context)
            try reader.performAndWait {
                let faults = try reader.fetch(items())
                try env.expect(faults.count == 11 && faults.allSatisfy(\.isFault), "a default fetch returns faults (returnsObjectsAsFaults is true by default)")
                try env.expectEqual(summary([faults[0]]), ["item 0/0"], "a fault's values")
                try env.expect(!faults[0].isFault && faults.dropFirst().allSatisfy(\.isFault), "touching one fault fills that object only")
                try env.expectEqual(summary(faults), allByRank, "the faults' values")
            }

            let filler = try fresh(env, context)
            try filler.performAndWait {
                let filled = try filler.fetch(items { $0.returnsObjectsAsFaults = false })
                try env.expect(filled.allSatisfy { !$0.isFault }, "returnsObjectsAsFaults = false returns filled objects")
                try env.expectEqual(summary(filled), allByRank, "the filled objects' values")
                let again = try filler.fetch(items())
                try env.expect(again.allSatisfy { !$0.isFault }, "objects already filled in the context come back filled")
            }

            let keyReader = try fresh(env, context)
            try keyReader.performAndWait {
                let keysOnly = try keyReader.fetch(items { $0.includesPropertyValues = false })
                try env.expect(keysOnly.count == 11 && keysOnly.allSatisfy(\.isFault), "includesPropertyValues = false returns faults")
                try env.expectEqual(summary(keysOnly), allByRank, "faults of a fetch without property values read their values")
            }
        },
        ConformanceCase("faults/batched-fetch") { env in
            let context = try FetchCases.populated(env)
            for (name, configure) in batchedRequests {
                let filler = try fresh(env, context)
                let expected = try filler.performAndWait { summary(try filler.fetch(items { configure($0); $0.returnsObjectsAsFaults = false })) }
                for size in batchSizes {
                    let reader = try fresh(env, context)  // kept alive: objects do not keep their context
                    try reader.performAndWait {
                        let results = try reader.fetch(items { configure($0); $0.fetchBatchSize = size })
                        try env.expect(results.allSatisfy(\.isFault), "\(name), batches of \(size): every object is a fault before it is read")
                        try env.expectEqual(results.count, expected.count, "\(name), batches of \(size): the number of results")
                        guard let first = results.first else { return }
                        _ = first.value(forKey: "name")
                        try env.expect(results.prefix(size).allSatisfy { !$0.isFault } && results.dropFirst(size).allSatisfy(\.isFault),
                                       "\(name), batches of \(size): reading the first object fills its batch, and only its batch")
                        try env.expectEqual(summary(results), expected, "\(name), batches of \(size): the objects, in order, with their values")
                    }
                }
            }
        },
        ConformanceCase("faults/batched-fetch-with-pending-changes") { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let items = try Fixtures.byName(context, "Item")
                items["item 8"]?.setValue(Int64(-1), forKey: "rank")
                items["item 2"].map(context.delete)
                _ = Fixtures.item(context, "new", rank: 2)
                let request = FaultingCases.items { $0.predicate = NSPredicate(format: "rank < 5") }
                let unbatched = try context.fetch(request)
                try env.expectEqual(summary(unbatched), ["item 8/-1", "item 0/0", "item 1/1", "new/2", "item 3/3", "item 4/4"], "unbatched, with pending changes")
                for size in [1, 2, 4, 50] {
                    request.fetchBatchSize = size
                    request.includesPendingChanges = true
                    let batched = try context.fetch(request)
                    try env.expect(batched.count == unbatched.count && zip(batched, unbatched).allSatisfy { $0 === $1 },
                                   "batches of \(size): the same objects as without batches, with pending changes")
                    request.includesPendingChanges = false
                    request.fetchBatchSize = 0
                    let storeOnly = summary(try context.fetch(request))
                    request.fetchBatchSize = size
                    try env.expectEqual(summary(try context.fetch(request)), storeOnly, "batches of \(size): includesPendingChanges = false")
                }
            }
        },
        ConformanceCase("faults/batched-array-reflects-the-store-at-the-fetch") { env in
            let context = try FetchCases.populated(env)
            let reader = try fresh(env, context)
            let results = try reader.performAndWait { try reader.fetch(items { $0.fetchBatchSize = 3 }) }
            try env.expectEqual(results.count, 11, "results")
            // Another coordinator when the store is shared between coordinators, else another context.
            let writer = env.capabilities.contains(.sharedBetweenCoordinators) ? env.context(try env.openCoordinator()) : try fresh(env, context)
            try writer.performAndWait {
                let written = try Fixtures.byName(writer, "Item")
                writer.delete(try env.require(written["item 4"], "item 4"))
                written["item 5"]?.setValue("five", forKey: "name")
                _ = Fixtures.item(writer, "late", rank: 50)
                try writer.save()
            }

            try reader.performAndWait {
                try env.expectEqual(results.count, 11, "the array keeps the results of the fetch")
                try env.expectEqual(results[5].value(forKey: "name") as? String, "five", "a batch reads its rows as they are when it fills")
                let gone = results[4]
                try env.expect(gone.isFault, "the object deleted after the fetch is still a fault after its batch filled")
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) for the deleted object") {
                    _ = try reader.existingObject(with: gone.objectID)
                }
                try env.expect(gone.value(forKey: "name") == nil && gone.isDeleted,
                               "the fault of an object deleted after the fetch is inaccessible: no values, and isDeleted (shouldDeleteInaccessibleFaults)")
                let others = results.enumerated().filter { $0.offset != 4 && $0.offset != 5 }.map(\.element)
                try env.expectEqual(summary(others), allByRank.enumerated().filter { $0.offset != 4 && $0.offset != 5 }.map(\.element),
                                    "the other objects, in the order of the fetch, without the object inserted after it")
            }
        },
        ConformanceCase("faults/fault-fired-after-its-row-was-deleted") { env in
            let context = try FetchCases.populated(env)
            let reader = try fresh(env, context)
            let keysOnly = try reader.performAndWait { try reader.fetch(items { $0.includesPropertyValues = false }) }
            try env.expectEqual(keysOnly.count, 11, "results")
            let refresher = try fresh(env, context)
            let refreshed = try refresher.performAndWait {
                let refreshed = try refresher.fetch(items { $0.returnsObjectsAsFaults = false })
                try env.expectEqual(refreshed.count, 11, "results")
                refresher.refresh(refreshed[2], mergeChanges: false)
                try env.expect(refreshed[2].isFault, "refresh(_:mergeChanges: false) made a fault")
                return refreshed
            }
            let unsnapshotted = try fresh(env, context)
            let snapshots = try unsnapshotted.performAndWait {
                unsnapshotted.stalenessInterval = 0
                return try unsnapshotted.fetch(items())
            }
            let lenient = try fresh(env, context)
            let lenientFaults = try lenient.performAndWait {
                lenient.shouldDeleteInaccessibleFaults = false
                return try lenient.fetch(items { $0.includesPropertyValues = false })
            }
            try env.expect(snapshots.count == 11 && lenientFaults.count == 11, "results")

            let writer = try fresh(env, context)
            try writer.performAndWait {
                let written = try Fixtures.byName(writer, "Item")
                for name in ["item 1", "item 2", "item 3"] { writer.delete(try env.require(written[name], name)) }
                try writer.save()
            }

            try reader.performAndWait {
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) for a fault whose row was deleted") {
                    _ = try reader.existingObject(with: keysOnly[1].objectID)
                }
                try env.expect(keysOnly[1].value(forKey: "name") == nil && keysOnly[1].isDeleted,
                               "a fault (includesPropertyValues = false) fired after its row was deleted is inaccessible: no values, and isDeleted")
                try env.expectEqual(summary([keysOnly[0], keysOnly[4]]), ["item 0/0", "item 4/4"], "faults of rows still there fill")
            }
            try refresher.performAndWait {
                try env.expect(refreshed[2].value(forKey: "name") == nil && refreshed[2].isDeleted,
                               "a refreshed object fired after its row was deleted is inaccessible")
            }
            try unsnapshotted.performAndWait {
                try env.expect(snapshots[3].value(forKey: "name") == nil && snapshots[3].isDeleted,
                               "with stalenessInterval 0, a fetched fault fired after its row was deleted reads its store and is inaccessible")
                try env.expectEqual(summary([snapshots[4]]), ["item 4/4"], "a fetched fault of a row still there fills")
            }
            try lenient.performAndWait {
                try env.expect(lenientFaults[1].value(forKey: "name") == nil && !lenientFaults[1].isDeleted,
                               "with shouldDeleteInaccessibleFaults = false, the inaccessible fault is empty and not marked deleted")
            }
            let after = try fresh(env, context)
            try after.performAndWait {
                try env.expectEqual(summary(try after.fetch(items())), allByRank.enumerated().filter { ![1, 2, 3].contains($0.offset) }.map(\.element),
                                    "a new fetch leaves the deleted rows out")
            }
        },
        ConformanceCase("faults/fault-shows-what-another-context-saved") { env in
            let context = try FetchCases.populated(env)
            let reader = try fresh(env, context)
            let faults = try reader.performAndWait {
                let faults = try reader.fetch(items())
                try env.expect(faults.count == 11 && faults.allSatisfy(\.isFault), "the reader's fetch returns faults")
                return faults
            }
            let writer = try fresh(env, context)
            try writer.performAndWait {
                let written = try Fixtures.byName(writer, "Item")
                try env.require(written["item 1"], "item 1").setValue("one", forKey: "name")
                try env.require(written["item 2"], "item 2").setValue("two", forKey: "name")
                writer.delete(try env.require(written["item 3"], "item 3"))
                try writer.save()
            }

            try reader.performAndWait {
                try env.expect(faults.allSatisfy(\.isFault), "the reader's objects are still faults after the other context saved")
                try env.expectEqual(summary([faults[0], faults[1], faults[2]]), ["item 0/0", "one/1", "two/2"],
                                    "faults fetched before another context of the coordinator saved show the saved values when they fire")
                try env.expectEqual(faults[1].committedValues(forKeys: ["name"])["name"] as? String, "one", "the filled fault's committed values are the saved ones")
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) for the object the other context deleted") {
                    _ = try reader.existingObject(with: faults[3].objectID)
                }
                try env.expect(faults[3].value(forKey: "name") == nil && faults[3].isDeleted,
                               "the fault of the object the other context deleted is inaccessible: no values, and isDeleted")
                faults[1].setValue("one again", forKey: "name")
                try reader.save()  // the filled fault was at the saved version: no conflict
            }
            try writer.performAndWait {
                let names = Set(try Fixtures.byName(writer, "Item").keys)
                try env.expect(names.contains("two") && !names.contains("item 3"), "the writer fetches what it saved")
            }
            let third = try fresh(env, context)
            try third.performAndWait {
                let object = third.object(with: faults[1].objectID)
                try env.expect(object.isFault, "object(with:) gives a fault")
                try env.expectEqual(object.value(forKey: "name") as? String, "one again", "a fault of a third context shows the reader's save")
            }

            let reopened = try env.reopenedContext(or: try env.require(context.persistentStoreCoordinator, "the coordinator"))
            try reopened.performAndWait {
                try env.expectEqual(summary(try reopened.fetch(items())),
                                    ["item 0/0", "one again/1", "two/2"] + allByRank.dropFirst(4), "after a reopen: what was saved")
            }
        },
        ConformanceCase("faults/fault-of-row-deleted-elsewhere") { env in
            let context = try FetchCases.populated(env)
            let coordinator = try env.require(context.persistentStoreCoordinator, "the coordinator")
            let reader = try fresh(env, context)
            let snapshots = try reader.performAndWait { try reader.fetch(items()) }
            let lenient = try fresh(env, context)
            let lenientFaults = try lenient.performAndWait {
                lenient.shouldDeleteInaccessibleFaults = false
                return try lenient.fetch(items())
            }
            try env.expect(snapshots.count == 11 && lenientFaults.count == 11, "results")
            // A batch delete through the coordinator: the faults made by fetches read the store when they fire.
            try context.performAndWait {
                let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
                fetch.predicate = NSPredicate(format: "rank == 1 OR rank == 2")
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: fetch))
            }
            try reader.performAndWait {
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) for a fault whose row a batch delete removed") {
                    _ = try reader.existingObject(with: snapshots[1].objectID)
                }
                try env.expect(snapshots[1].value(forKey: "name") == nil && snapshots[1].isDeleted,
                               "a fetched fault fired after a batch delete removed its row is inaccessible, and isDeleted")
                try env.expectEqual(summary([snapshots[0], snapshots[3]]), ["item 0/0", "item 3/3"], "faults of rows still there fill")
            }
            try lenient.performAndWait {
                try env.expect(lenientFaults[2].value(forKey: "name") == nil && !lenientFaults[2].isDeleted,
                               "with shouldDeleteInaccessibleFaults = false, the inaccessible fault is empty and not marked deleted")
            }
            // Another coordinator deletes a row, which this coordinator's row cache does not see: a fault that
            // may not use a cached row (stalenessInterval 0) reads the store.
            guard env.capabilities.contains(.sharedBetweenCoordinators) else { return }
            let other = env.context(try env.openCoordinator())
            try other.performAndWait {
                other.delete(try env.require(try Fixtures.byName(other, "Item")["item 4"], "item 4"))
                try other.save()
            }
            let late = env.context(coordinator)
            try late.performAndWait {
                late.stalenessInterval = 0
                let fault = late.object(with: snapshots[4].objectID)
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) for a row another coordinator deleted") {
                    _ = try late.existingObject(with: fault.objectID)
                }
                try env.expect(fault.value(forKey: "name") == nil && fault.isDeleted,
                               "a fault fired after another coordinator deleted its row (stalenessInterval 0) is inaccessible, and isDeleted")
            }
            try reader.performAndWait {
                reader.stalenessInterval = 0
                try env.expect(snapshots[4].value(forKey: "name") == nil && snapshots[4].isDeleted,
                               "a fetched fault fired after another coordinator deleted its row, with stalenessInterval 0, is inaccessible")
            }
        },
        ConformanceCase("faults/staleness-interval", requires: [.sharedBetweenCoordinators]) { env in
            let context = try FetchCases.populated(env)
            // Four contexts of one coordinator fetch the same faults; the rows are then changed through another
            // coordinator, which this coordinator's row cache does not see. The faults fire in this order: a
            // context that reads the store puts the row it read in the row cache, for the contexts after it.
            let intervals: [TimeInterval] = [-1, 3_600, 0.001, 0]
            var readers: [(context: NSManagedObjectContext, faults: [NSManagedObject])] = []
            for interval in intervals {
                let reader = try fresh(env, context)
                let faults = try reader.performAndWait {
                    reader.stalenessInterval = interval
                    return try reader.fetch(items())
                }
                try env.expectEqual(faults.count, 11, "results")
                readers.append((reader, faults))
            }
            let other = env.context(try env.openCoordinator())
            try other.performAndWait {
                try env.require(try Fixtures.byName(other, "Item")["item 1"], "item 1").setValue("one", forKey: "name")
                try other.save()
            }
            Thread.sleep(forTimeInterval: 0.05)  // longer than the shortest interval
            var seen: [String] = []
            for (reader, faults) in readers {
                try reader.performAndWait { seen += summary([faults[1]]) }
            }
            try env.expectEqual(seen, ["item 1/1", "item 1/1", "one/1", "one/1"],
                                "stalenessInterval -1 (the default) and 3600 fill from the row this coordinator read; an interval the row is older than, and 0, read the store")
        },
        ConformanceCase("faults/pinned-query-generation-keeps-own-changes") { env in
            // Every store accepts a pin (stores without generations read their latest state) and a pinned
            // context always sees its own unsaved and saved changes.
            let context = try FetchCases.populated(env)
            let ownChanges = items { $0.predicate = NSPredicate(format: "rank < 2 OR rank == 50") }
            try context.performAndWait {
                try context.setQueryGenerationFrom(.current)
                try env.expectEqual(summary(try context.fetch(items())), allByRank, "a pinned context reads the saved items")
                _ = Fixtures.item(context, "unsaved", rank: 50)
                try env.require(try context.fetch(items { $0.predicate = NSPredicate(format: "rank == 0") }).first, "item 0").setValue("renamed", forKey: "name")
                context.delete(try env.require(try context.fetch(items { $0.predicate = NSPredicate(format: "rank == 1") }).first, "item 1"))
                try env.expectEqual(summary(try context.fetch(ownChanges)), ["renamed/0", "unsaved/50"], "its unsaved insert, update and deletion")
                try env.expectEqual(try context.count(for: items()), 11, "its count: 11 saved, one deleted, one inserted")
                try context.save()
                try env.expect(context.queryGenerationToken != nil, "a save leaves the context pinned")
                try env.expectEqual(summary(try context.fetch(ownChanges)), ["renamed/0", "unsaved/50"], "its saved changes")
            }
            let other = try fresh(env, context)
            try other.performAndWait {
                try env.expectEqual(summary(try other.fetch(ownChanges)), ["renamed/0", "unsaved/50"], "another context reads what the pinned context saved")
            }
        },
        ConformanceCase("faults/refresh-turns-objects-into-faults") { env in
            let context = try FetchCases.populated(env)
            let objects = try context.performAndWait {
                let objects = try context.fetch(items { $0.returnsObjectsAsFaults = false })
                try env.expect(objects.count == 11 && objects.allSatisfy { !$0.isFault }, "filled objects")
                context.refresh(objects[0], mergeChanges: false)
                try env.expect(objects[0].isFault, "refresh(_:mergeChanges: false) turns an object into a fault")
                return objects
            }
            let writer = try fresh(env, context)
            try writer.performAndWait {
                try env.require(try Fixtures.byName(writer, "Item")["item 0"], "item 0").setValue("zero", forKey: "name")
                try writer.save()
            }
            try context.performAndWait {
                try env.expectEqual(objects[0].value(forKey: "name") as? String, "zero", "a refreshed fault reads the store again")
                objects[1].setValue("changed", forKey: "name")
                context.refreshAllObjects()
                try env.expect(objects.enumerated().allSatisfy { $0.offset == 1 ? !$0.element.isFault : $0.element.isFault },
                               "refreshAllObjects() turns every object without changes into a fault")
                try env.expectEqual(summary(objects), ["zero/0", "changed/1"] + allByRank.dropFirst(2), "values after refreshAllObjects()")
            }
        },
    ]
}

import CoreData

/// Prefetching (`relationshipKeyPathsForPrefetching`): the named relationships of fetched objects, and their
/// destinations, are in the context once the fetch returns.
///
/// That the fetch read them, and reading them calls no store, is seen through the public API: the relationships
/// are no faults (`hasFault(forRelationshipNamed:)`), and after another context (another coordinator for a shared
/// store) saves changes, the prefetched objects still read what the fetch read, while a context that fetched the
/// same objects without prefetching reads the changes when its faults fire, which shows that the check can fail.
/// That context has `stalenessInterval` 0 (`storeReader`): its faults read the store, not the coordinator's row
/// cache, which holds the rows the prefetching context read (on Apple's platforms too, a fault of another context
/// of the same coordinator would be filled from them).
enum PrefetchCases {
    /// A saved library, read by a new context: owners Ann, Bob and Cy; items 0–5 (even ranks Ann's, odd Bob's) and
    /// a special item (Ann's); tags red (item 0), green (items 0, 1) and blue (item 2); Ann's ordered chapters
    /// three, one, two and Bob's solo; Ann's profile.
    static func library(_ env: ConformanceEnvironment) throws -> NSManagedObjectContext {
        let coordinator = try env.openCoordinator()
        let context = env.context(coordinator)
        try context.performAndWait {
            let ann = Fixtures.owner(context, "Ann"), bob = Fixtures.owner(context, "Bob")
            _ = Fixtures.owner(context, "Cy")
            var items: [NSManagedObject] = []
            for rank in 0..<6 {
                let item = Fixtures.item(context, "item \(rank)", rank: Int64(rank))
                item.setValue(rank % 2 == 0 ? ann : bob, forKey: "owner")
                items.append(item)
            }
            Fixtures.item(context, "special", rank: 100, special: true).setValue(ann, forKey: "owner")
            let red = Fixtures.tag(context, "red"), green = Fixtures.tag(context, "green"), blue = Fixtures.tag(context, "blue")
            items[0].setValue(Set([red, green]), forKey: "tags")
            items[1].setValue(Set([green]), forKey: "tags")
            items[2].setValue(Set([blue]), forKey: "tags")
            ann.setValue(NSOrderedSet(array: ["three", "one", "two"].map { Fixtures.chapter(context, $0) }), forKey: "chapters")
            bob.setValue(NSOrderedSet(array: [Fixtures.chapter(context, "solo")]), forKey: "chapters")
            let profile = NSEntityDescription.insertNewObject(forEntityName: "Profile", into: context)
            profile.setValue("Ann's bio", forKey: "bio")
            ann.setValue(profile, forKey: "profile")
            try context.save()
        }
        return try env.reopenedContext(or: coordinator)
    }

    /// A new context on `context`'s coordinator, with no object registered.
    static func fresh(_ env: ConformanceEnvironment, _ context: NSManagedObjectContext) throws -> NSManagedObjectContext {
        env.context(try env.require(context.persistentStoreCoordinator, "the context's coordinator"))
    }

    /// A new context of `context`'s coordinator whose faults read the store when they fire (`stalenessInterval`
    /// 0), never a row the coordinator's row cache holds.
    static func storeReader(_ env: ConformanceEnvironment, _ context: NSManagedObjectContext) throws -> NSManagedObjectContext {
        let reader = try fresh(env, context)
        reader.performAndWait { reader.stalenessInterval = 0 }
        return reader
    }

    /// Saves `change` in a context that shares nothing with `context` but the store: one on another coordinator
    /// when the store is shared between coordinators, else a new context on the same coordinator.
    static func changeBehindTheBack(_ env: ConformanceEnvironment, of context: NSManagedObjectContext,
                                    _ change: (NSManagedObjectContext) throws -> Void) throws {
        let writer = env.capabilities.contains(.sharedBetweenCoordinators) ? env.context(try env.openCoordinator()) : try fresh(env, context)
        try writer.performAndWait {
            try change(writer)
            try writer.save()
        }
    }

    /// A request for `entity` sorted by `key`, prefetching `keyPaths`, returning filled objects unless `faults`.
    static func request(_ entity: String, by key: String = "name", prefetching keyPaths: [String],
                        faults: Bool = false) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        request.relationshipKeyPathsForPrefetching = keyPaths
        request.returnsObjectsAsFaults = faults
        return request
    }

    /// The name of each item's owner, by item name ("item 0" → "Ann").
    static func ownerNames(_ items: [NSManagedObject]) -> [String: String] {
        var names: [String: String] = [:]
        for item in items {
            names[item.value(forKey: "name") as? String ?? "?"] = (item.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String ?? "none"
        }
        return names
    }

    /// The names of each owner's items, by owner name.
    static func itemNames(_ owners: [NSManagedObject]) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: owners.map { ($0.value(forKey: "name") as? String ?? "?", Fixtures.names($0.value(forKey: "items"))) })
    }

    static let savedOwners = ["item 0": "Ann", "item 1": "Bob", "item 2": "Ann", "item 3": "Bob", "item 4": "Ann", "item 5": "Bob", "special": "Ann"]
    static let savedItems = ["Ann": ["item 0", "item 2", "item 4", "special"], "Bob": ["item 1", "item 3", "item 5"], "Cy": []]

    static let all: [ConformanceCase] = [
        ConformanceCase("prefetch/to-one") { env in
            let context = try library(env)
            let reader = try fresh(env, context), unprefetched = try storeReader(env, context)
            let items = try reader.performAndWait {
                let items = try reader.fetch(request("Item", by: "rank", prefetching: ["owner"]))
                try env.expectEqual(items.count, 7, "items, the special one included")
                try env.expect(items.allSatisfy { !$0.hasFault(forRelationshipNamed: "owner") }, "every item's owner is in the context, not a fault")
                let owners = reader.registeredObjects.filter { $0.entity.name == "Owner" }
                try env.expectEqual(Set(owners.compactMap { $0.value(forKey: "name") as? String }), ["Ann", "Bob"],
                                    "the owners of the items are registered (Cy owns nothing)")
                return items
            }
            let plain = try unprefetched.performAndWait { try unprefetched.fetch(request("Item", by: "rank", prefetching: [])) }
            try changeBehindTheBack(env, of: context) { writer in
                try env.require(try Fixtures.byName(writer, "Owner")["Ann"], "Ann").setValue("Anna", forKey: "name")
            }
            try reader.performAndWait {
                try env.expectEqual(ownerNames(items), savedOwners, "the prefetched owners read as the fetch read them, without a store call")
            }
            try unprefetched.performAndWait {
                try env.expectEqual(ownerNames(plain)["item 0"], "Anna", "without prefetching, an owner read after the change reads the store")
            }
            let faulting = try fresh(env, context)
            try faulting.performAndWait {
                let faults = try faulting.fetch(request("Item", by: "rank", prefetching: ["owner"], faults: true))
                try env.expectEqual(ownerNames(faults), savedOwners.mapValues { $0 == "Ann" ? "Anna" : $0 },
                                    "with returnsObjectsAsFaults the same owners are prefetched")
            }
        },
        ConformanceCase("prefetch/to-many") { env in
            let context = try library(env)
            let reader = try fresh(env, context), unprefetched = try storeReader(env, context)
            let owners = try reader.performAndWait {
                let owners = try reader.fetch(request("Owner", prefetching: ["items", "chapters"]))
                try env.expect(owners.allSatisfy { !$0.hasFault(forRelationshipNamed: "items") && !$0.hasFault(forRelationshipNamed: "chapters") },
                               "every owner's items and chapters are in the context, not faults")
                let items = reader.registeredObjects.filter { $0.entity.name == "Item" || $0.entity.name == "SpecialItem" }
                try env.expect(items.count == 7 && items.allSatisfy { !$0.isFault }, "the items are registered and filled")
                return owners
            }
            let plain = try unprefetched.performAndWait { try unprefetched.fetch(request("Owner", prefetching: [])) }
            try changeBehindTheBack(env, of: context) { writer in
                let items = try Fixtures.byName(writer, "Item"), owners = try Fixtures.byName(writer, "Owner")
                items["item 0"]?.setValue(owners["Bob"], forKey: "owner")
                items["item 2"]?.setValue("renamed", forKey: "name")
                writer.delete(try env.require(items["item 4"], "item 4"))
                let chapters = try Fixtures.byName(writer, "Chapter", key: "title")
                owners["Ann"]?.setValue(NSOrderedSet(array: ["one", "two", "three"].compactMap { chapters[$0] }), forKey: "chapters")
            }
            try reader.performAndWait {
                try env.expectEqual(itemNames(owners), savedItems, "the prefetched items read as the fetch read them, without a store call")
                try env.expectEqual(owners.map { Fixtures.orderedNames($0.value(forKey: "chapters"), key: "title") }, [["three", "one", "two"], ["solo"], []],
                                    "ordered relationships are prefetched in their saved order")
            }
            try unprefetched.performAndWait {
                try env.expectEqual(itemNames(plain)["Ann"], ["renamed", "special"], "without prefetching, items read after the change read the store")
            }

            let batched = try fresh(env, context)
            try batched.performAndWait {
                let request = request("Owner", prefetching: ["items"], faults: true)
                request.fetchBatchSize = 2
                let owners = try batched.fetch(request)
                try env.expect(owners.count >= 3 && owners.allSatisfy(\.isFault), "a batched fetch returns faults")
                _ = owners[0].value(forKey: "name")
                try env.expect(!owners[0].hasFault(forRelationshipNamed: "items") && !owners[1].hasFault(forRelationshipNamed: "items"),
                               "filling a batch prefetches its objects' relationships")
                try env.expect(owners[2].isFault, "objects of a batch not filled stay faults")
                try env.expectEqual(itemNames(owners), ["Ann": ["renamed", "special"], "Bob": ["item 0", "item 1", "item 3", "item 5"], "Cy": []],
                                    "the batched owners' items")
            }

            let parent = try fresh(env, context)
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = parent
            try child.performAndWait {
                try env.expectEqual(itemNames(try child.fetch(request("Owner", prefetching: ["items"]))),
                                    ["Ann": ["renamed", "special"], "Bob": ["item 0", "item 1", "item 3", "item 5"], "Cy": []],
                                    "a child context's fetch with prefetching returns the same objects")
            }
        },
        ConformanceCase("prefetch/many-to-many") { env in
            let context = try library(env)
            let reader = try fresh(env, context), unprefetched = try storeReader(env, context)
            let (items, tags) = try reader.performAndWait {
                let items = try reader.fetch(request("Item", by: "rank", prefetching: ["tags"]))
                let tags = try reader.fetch(request("Tag", by: "label", prefetching: ["items"]))
                try env.expect(items.allSatisfy { !$0.hasFault(forRelationshipNamed: "tags") } && tags.allSatisfy { !$0.hasFault(forRelationshipNamed: "items") },
                               "both sides of the many-to-many are in the context")
                return (items, tags)
            }
            let plain = try unprefetched.performAndWait { try unprefetched.fetch(request("Item", by: "rank", prefetching: [])) }
            try changeBehindTheBack(env, of: context) { writer in
                let items = try Fixtures.byName(writer, "Item"), tags = try Fixtures.byName(writer, "Tag", key: "label")
                items["item 0"]?.setValue(Set<NSManagedObject>(), forKey: "tags")
                tags["blue"]?.setValue("navy", forKey: "label")
            }
            try reader.performAndWait {
                try env.expectEqual(items.map { Fixtures.names($0.value(forKey: "tags"), key: "label") },
                                    [["green", "red"], ["green"], ["blue"], [], [], [], []], "each item's prefetched tags, as the fetch read them")
                try env.expectEqual(tags.map { Fixtures.names($0.value(forKey: "items")) }, [["item 2"], ["item 0", "item 1"], ["item 0"]],
                                    "each tag's prefetched items (blue, green, red), as the fetch read them")
            }
            try unprefetched.performAndWait {
                try env.expectEqual(plain.prefix(3).map { Fixtures.names($0.value(forKey: "tags"), key: "label") }, [[], ["green"], ["navy"]],
                                    "without prefetching, tags read after the change read the store")
            }
        },
        ConformanceCase("prefetch/key-path-chain") { env in
            let context = try library(env)
            for faults in [false, true] {
                let reader = try fresh(env, context)
                try reader.performAndWait {
                    let items = try reader.fetch(request("Item", by: "rank", prefetching: ["owner.chapters", "owner.profile", "tags.items"], faults: faults))
                    let first = try env.require(items.first, "item 0")
                    let owner = try env.require(first.value(forKey: "owner") as? NSManagedObject, "item 0's owner")
                    try env.expect(!owner.hasFault(forRelationshipNamed: "chapters"), "owner.chapters is prefetched (returnsObjectsAsFaults \(faults))")
                    try env.expectEqual(Fixtures.orderedNames(owner.value(forKey: "chapters"), key: "title"), ["three", "one", "two"],
                                        "the chapters of item 0's owner")
                    let tag = try env.require((first.value(forKey: "tags") as? Set<NSManagedObject>)?.first { $0.value(forKey: "label") as? String == "green" }, "green")
                    try env.expect(!tag.hasFault(forRelationshipNamed: "items"), "tags.items is prefetched (returnsObjectsAsFaults \(faults))")
                }
            }
            let reader = try fresh(env, context), plain = try storeReader(env, context)
            let items = try reader.performAndWait {
                try reader.fetch(request("Item", by: "rank", prefetching: ["owner.chapters", "owner.profile", "owner", "tags.items"]))
            }
            let unprefetched = try plain.performAndWait { try plain.fetch(request("Item", by: "rank", prefetching: [])) }
            try env.expect(!items.isEmpty && unprefetched.count == items.count, "both fetches return the items")
            try changeBehindTheBack(env, of: context) { writer in
                for chapter in try writer.fetch(NSFetchRequest<NSManagedObject>(entityName: "Chapter")) {
                    chapter.setValue("changed \(chapter.value(forKey: "title") as? String ?? "")", forKey: "title")
                }
                try Fixtures.byName(writer, "Profile", key: "bio")["Ann's bio"]?.setValue("new bio", forKey: "bio")
                try Fixtures.byName(writer, "Item")["item 1"]?.setValue(Set<NSManagedObject>(), forKey: "tags")
            }
            try reader.performAndWait {
                let owners = items.map { $0.value(forKey: "owner") as? NSManagedObject }
                try env.expectEqual(owners.map { Fixtures.orderedNames($0?.value(forKey: "chapters"), key: "title") },
                                    [["three", "one", "two"], ["solo"], ["three", "one", "two"], ["solo"], ["three", "one", "two"], ["solo"], ["three", "one", "two"]],
                                    "each step goes on from the objects the step before reached, read at the fetch")
                try env.expectEqual(((owners[0]?.value(forKey: "profile") as? NSManagedObject)?.value(forKey: "bio") as? String), "Ann's bio",
                                    "owner.profile, read at the fetch")
                let green = (items[0].value(forKey: "tags") as? Set<NSManagedObject>)?.first { $0.value(forKey: "label") as? String == "green" }
                try env.expectEqual(Fixtures.names(green?.value(forKey: "items")), ["item 0", "item 1"], "tags.items, read at the fetch")
            }
            try plain.performAndWait {
                let owner = unprefetched[0].value(forKey: "owner") as? NSManagedObject
                try env.expectEqual(Fixtures.orderedNames(owner?.value(forKey: "chapters"), key: "title"), ["changed three", "changed one", "changed two"],
                                    "without prefetching, chapters read after the change read the store")
            }
        },
        ConformanceCase("prefetch/keeps-unsaved-changes") { env in
            let context = try library(env)
            let reader = try fresh(env, context)
            try reader.performAndWait {
                let owners = try Fixtures.byName(reader, "Owner"), items = try Fixtures.byName(reader, "Item")
                let ann = try env.require(owners["Ann"], "Ann"), bob = try env.require(owners["Bob"], "Bob")
                ann.setValue("Ann (edited)", forKey: "name")
                owners["Cy"]?.setValue("Cy (edited)", forKey: "name")  // changed, its items not read yet
                items["item 2"]?.setValue("item 2 (edited)", forKey: "name")
                let late = Fixtures.item(reader, "late", rank: 50)
                late.setValue(bob, forKey: "owner")
                items["item 1"]?.setValue(ann, forKey: "owner")

                let fetched = try reader.fetch(request("Owner", prefetching: ["items"]))
                try env.expectEqual(itemNames(fetched), ["Ann (edited)": ["item 0", "item 1", "item 2 (edited)", "item 4", "special"],
                                                         "Bob": ["item 3", "item 5", "late"], "Cy (edited)": []],
                                    "prefetching keeps unsaved values, inserts and moves")
                let prefetchedItems = try reader.fetch(request("Item", by: "rank", prefetching: ["owner"]))
                try env.expectEqual(ownerNames(prefetchedItems)["item 2 (edited)"], "Ann (edited)", "a changed owner keeps its change")
                try env.expectEqual(ownerNames(prefetchedItems)["item 1"], "Ann (edited)", "an unsaved move is kept")
                try env.expect(reader.hasChanges && ann.hasChanges, "the changes are still unsaved")
                try reader.save()
            }
            let reopened = try env.reopenedContext(or: try env.require(reader.persistentStoreCoordinator, "the coordinator"))
            try reopened.performAndWait {
                let owners = try reopened.fetch(request("Owner", prefetching: ["items"]))
                try env.expectEqual(itemNames(owners), ["Ann (edited)": ["item 0", "item 1", "item 2 (edited)", "item 4", "special"],
                                                        "Bob": ["item 3", "item 5", "late"], "Cy (edited)": []],
                                    "after a save and a reopen")
            }
        },
        ConformanceCase("prefetch/unknown-key-path-throws") { env in
            // Apple raises NSInvalidArgumentException; here the fetch throws 2048, as for an unknown key path in a
            // predicate, naming the key path (under PredicateFormatError.keyKey) and the entity.
            let context = try library(env)
            try context.performAndWait {
                let cases: [(entity: String, keyPath: String, named: String)] = [
                    ("Item", "onwer", "Item"), ("Item", "owner.chaptres", "Owner"), ("Item", "name", "Item"),
                    ("Owner", "items.owner.nmae", "Owner"), ("Item", "owner.", "Owner"),
                ]
                for (entity, keyPath, named) in cases {
                    let error = try env.expectError([2048], "prefetching \(keyPath) of \(entity)") {
                        _ = try context.fetch(request(entity, prefetching: [keyPath]))
                    }
                    try env.expectEqual(error.userInfo[PredicateFormatError.keyKey] as? String, keyPath, "the key path the error names")
                    try env.expect(error.localizedDescription.contains("\"\(keyPath)\"") && error.localizedDescription.contains(named),
                                   "the message names \(keyPath) and \(named): \(error.localizedDescription)")
                }
                try env.expectEqual(try context.fetch(request("Item", prefetching: [])).count, 7, "no key paths: a plain fetch")
                let owners = try context.fetch(request("Owner", prefetching: ["items"]))
                try env.expectEqual(owners.count, 3, "a valid key path")
            }
        },
    ]
}

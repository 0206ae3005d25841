import CoreData

/// Saving: inserts, updates and deletes, every attribute type, relationships of every kind, inheritance,
/// delete rules, validation and conflicts, each checked again after a reopen when the store has a file.
///
/// Every use of a context and its objects is inside the context's `performAndWait`, as Apple requires, so the
/// cases also pass with the concurrency check on (`COREDATA_CONCURRENCY_DEBUG=1`).
enum SaveCases {
    static let all: [ConformanceCase] = [
        ConformanceCase("save/insert-update-delete") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let keep = Fixtures.item(context, "keep", rank: 1)
                let change = Fixtures.item(context, "change", rank: 2)
                let remove = Fixtures.item(context, "remove", rank: 3)
                _ = Fixtures.owner(context, "Owner A")
                try context.save()
                try env.expect(!context.hasChanges, "no changes after save")
                change.setValue("changed", forKey: "name")
                change.setValue(20, forKey: "rank")
                context.delete(remove)
                try env.expect(change.isUpdated && remove.isDeleted, "isUpdated and isDeleted before save")
                try context.save()
                try env.expect(keep.managedObjectContext === context && remove.managedObjectContext == nil, "a saved deletion leaves the context")
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let items = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(Set(items.keys), ["keep", "changed"], "item names after save")
                try env.expectEqual(items["changed"]?.value(forKey: "rank") as? Int64, 20, "updated rank")
                try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")), 1, "owners")
            }
        },
        ConformanceCase("save/attribute-round-trip") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            var generator = SplitMix(seed: 42)
            let big = Data((0..<(1 << 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            let samples = AttributeSamples(big: big)
            try context.performAndWait {
                for (name, values) in samples.rows {
                    let item = Fixtures.item(context, name, rank: 0)
                    for (key, value) in values { item.setValue(value, forKey: key) }
                }
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try samples.expectWritten(in: try Fixtures.byName(reopened, "Item"), env)
            }
        },
        ConformanceCase("save/unregistered-transformer-falls-back") { env in
            // A model naming a transformer this process does not have (an app's own, read by a tool): values are
            // not refused. Data is stored as it is and comes back the same, so a copy keeps the app's bytes; other
            // values go through the default transformer, as Apple's Core Data falls back to it.
            let swatch = NSEntityDescription()
            swatch.name = "Swatch"
            let label = NSAttributeDescription()
            (label.name, label.attributeType) = ("label", .stringAttributeType)
            let color = NSAttributeDescription()
            (color.name, color.attributeType, color.valueTransformerName) = ("color", .transformableAttributeType, "AppColorTransformerNotInThisProcess")
            swatch.properties = [label, color]
            let model = NSManagedObjectModel()
            model.entities = [swatch]
            let appBytes = Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x00, 0xFF, 0x10])
            let coordinator = try env.openCoordinator(model: model)
            try env.withNewContext(coordinator) { context in
                for (name, value) in [("bytes", appBytes as Any), ("name", "teal" as Any)] {
                    let object = NSEntityDescription.insertNewObject(forEntityName: "Swatch", into: context)
                    object.setValue(name, forKey: "label")
                    object.setValue(value, forKey: "color")
                }
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator, model: model)
            try reopened.performAndWait {
                var values: [String: Any] = [:]
                for object in try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Swatch")) {
                    values[object.value(forKey: "label") as? String ?? ""] = object.value(forKey: "color")
                }
                try env.expect(values["bytes"] as? Data == appBytes, "Data under an unregistered transformer comes back as it was")
                try env.expect(values["name"] as? String == "teal", "a string under an unregistered transformer comes back")
            }
        },
        ConformanceCase("save/permanent-ids") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let uri: URL = try context.performAndWait {
                let item = Fixtures.item(context, "identified", rank: 7)
                try env.expect(item.objectID.isTemporaryID, "an inserted object has a temporary ID")
                try context.save()
                let id = item.objectID
                try env.expect(!id.isTemporaryID, "the ID is permanent after save")
                let uri = id.uriRepresentation()
                let storeUUID = coordinator.persistentStores.first?.identifier ?? ""
                try env.expect(uri.absoluteString.hasPrefix("x-coredata://\(storeUUID)/Item/p"), "URI form: \(uri.absoluteString)")
                try env.expect(id.persistentStore === coordinator.persistentStores.first, "the ID's store")
                try env.expect(coordinator.managedObjectID(forURIRepresentation: uri) == id, "managedObjectID(forURIRepresentation:)")
                let other = Fixtures.item(context, "second", rank: 8)
                try context.obtainPermanentIDs(for: [other])
                try env.expect(!other.objectID.isTemporaryID, "obtainPermanentIDs gives a permanent ID")
                let obtained = other.objectID
                try context.save()
                try env.expect(other.objectID == obtained, "the obtained ID stays after save")
                return uri
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                guard let again = reopened.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri) else {
                    return try env.expect(false, "the URI resolves after reopen")
                }
                let object = try reopened.existingObject(with: again)
                try env.expectEqual(object.value(forKey: "name") as? String, "identified", "object found by URI after reopen")
                try env.expectEqual(again.uriRepresentation(), uri, "the URI is stable")
            }
        },
        ConformanceCase("save/to-one-and-to-many") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let ann = Fixtures.owner(context, "Ann")
                let bob = Fixtures.owner(context, "Bob")
                let items = (0..<3).map { Fixtures.item(context, "item \($0)", rank: Int64($0)) }
                for item in items { item.setValue(ann, forKey: "owner") }
                try env.expectEqual(Fixtures.names(ann.value(forKey: "items")), ["item 0", "item 1", "item 2"], "inverse to-many kept in step")
                try context.save()
                items[2].setValue(bob, forKey: "owner")
                try env.expectEqual(Fixtures.names(ann.value(forKey: "items")), ["item 0", "item 1"], "moved item leaves the old owner")
                bob.setValue(Set([items[1], items[2]]), forKey: "items")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let owners = try Fixtures.byName(reopened, "Owner")
                try env.expectEqual(Fixtures.names(owners["Ann"]?.value(forKey: "items")), ["item 0"], "Ann's items after reopen")
                try env.expectEqual(Fixtures.names(owners["Bob"]?.value(forKey: "items")), ["item 1", "item 2"], "Bob's items after reopen")
                let fetched = try Fixtures.byName(reopened, "Item")
                try env.expectEqual((fetched["item 1"]?.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String, "Bob", "item 1's owner")
            }
        },
        ConformanceCase("save/many-to-many") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let red = Fixtures.tag(context, "red"), blue = Fixtures.tag(context, "blue")
                let a = Fixtures.item(context, "a", rank: 1), b = Fixtures.item(context, "b", rank: 2)
                a.setValue(Set([red, blue]), forKey: "tags")
                b.setValue(Set([red]), forKey: "tags")
                try env.expectEqual(Fixtures.names(red.value(forKey: "items")), ["a", "b"], "inverse many-to-many kept in step")
                try context.save()
                blue.setValue(Set([b]), forKey: "items")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let tags = try Fixtures.byName(reopened, "Tag", key: "label")
                try env.expectEqual(Fixtures.names(tags["red"]?.value(forKey: "items")), ["a", "b"], "red's items")
                try env.expectEqual(Fixtures.names(tags["blue"]?.value(forKey: "items")), ["b"], "blue's items")
                let items = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(Fixtures.names(items["a"]?.value(forKey: "tags"), key: "label"), ["red"], "a's tags")
                try env.expectEqual(Fixtures.names(items["b"]?.value(forKey: "tags"), key: "label"), ["blue", "red"], "b's tags")
            }
        },
        ConformanceCase("save/ordered") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let owner = Fixtures.owner(context, "Writer")
                let chapters = ["one", "two", "three", "four"].map { Fixtures.chapter(context, $0) }
                owner.setValue(NSOrderedSet(array: chapters), forKey: "chapters")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                guard let writer = try Fixtures.byName(reopened, "Owner")["Writer"] else { return try env.expect(false, "the owner was saved") }
                try env.expectEqual(Fixtures.orderedNames(writer.value(forKey: "chapters"), key: "title"), ["one", "two", "three", "four"], "order after save")
                let saved = try Fixtures.byName(reopened, "Chapter", key: "title")
                let reordered = ["four", "one", "three"].compactMap { saved[$0] }
                writer.setValue(NSOrderedSet(array: reordered), forKey: "chapters")
                try env.expect(saved["two"]?.value(forKey: "owner") == nil, "a chapter removed from the ordered set loses its owner")
                try reopened.save()
            }
            let again = try env.reopenedContext(or: reopened.persistentStoreCoordinator!)
            try again.performAndWait {
                let writer = try Fixtures.byName(again, "Owner")["Writer"]
                try env.expectEqual(Fixtures.orderedNames(writer?.value(forKey: "chapters"), key: "title"), ["four", "one", "three"], "order after reordering")
            }
        },
        ConformanceCase("save/one-to-one") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let ann = Fixtures.owner(context, "Ann"), bob = Fixtures.owner(context, "Bob")
                let profile = NSEntityDescription.insertNewObject(forEntityName: "Profile", into: context)
                profile.setValue("bio", forKey: "bio")
                profile.setValue(ann, forKey: "owner")
                try env.expect(ann.value(forKey: "profile") as? NSManagedObject === profile, "inverse one-to-one set")
                bob.setValue(profile, forKey: "profile")
                try env.expect(ann.value(forKey: "profile") == nil, "the previous owner loses the profile")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let owners = try Fixtures.byName(reopened, "Owner")
                try env.expect(owners["Ann"]?.value(forKey: "profile") == nil, "Ann has no profile after reopen")
                try env.expectEqual((owners["Bob"]?.value(forKey: "profile") as? NSManagedObject)?.value(forKey: "bio") as? String, "bio", "Bob's profile")
            }
        },
        ConformanceCase("save/inheritance") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.item(context, "plain", rank: 1)
                let special = Fixtures.item(context, "special", rank: 2, special: true)
                special.setValue(Int32(9), forKey: "level")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let all = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(Set(all.keys), ["plain", "special"], "Item fetch includes subentities")
                try env.expectEqual(all["special"]?.entity.name, "SpecialItem", "the subentity object keeps its entity")
                try env.expectEqual(all["special"]?.value(forKey: "level") as? Int32, 9, "subentity attribute")
                let onlyItems = NSFetchRequest<NSManagedObject>(entityName: "Item")
                onlyItems.includesSubentities = false
                try env.expectEqual(try reopened.fetch(onlyItems).compactMap { $0.value(forKey: "name") as? String }, ["plain"], "includesSubentities = false")
                try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "SpecialItem")), 1, "SpecialItem count")
            }
        },
        ConformanceCase("save/delete-rules") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let owner = Fixtures.owner(context, "Doomed")
                let item = Fixtures.item(context, "survivor", rank: 1)
                item.setValue(owner, forKey: "owner")
                owner.setValue(NSOrderedSet(array: [Fixtures.chapter(context, "c1"), Fixtures.chapter(context, "c2")]), forKey: "chapters")
                let profile = NSEntityDescription.insertNewObject(forEntityName: "Profile", into: context)
                profile.setValue(owner, forKey: "owner")
                try context.save()
                context.delete(owner)
                try env.expect(item.value(forKey: "owner") == nil, "nullify clears the inverse at once")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Chapter")), 0, "cascade deleted the chapters")
                try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Profile")), 0, "cascade deleted the profile")
                let survivor = try Fixtures.byName(reopened, "Item")["survivor"]
                try env.expect(survivor != nil && survivor?.value(forKey: "owner") == nil, "nullify kept the item without an owner")
            }
        },
        ConformanceCase("save/validation") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator), other = env.context(coordinator)
            let itemCount = { try other.performAndWait { try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } }
            let nameless = try context.performAndWait {
                let nameless = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
                _ = Fixtures.item(context, "waiting", rank: 1)
                let error = try env.expectError([NSValidationMissingMandatoryPropertyError], "saving an Owner without its required name") { try context.save() }
                try env.expectEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "name", "the error names the key")
                try env.expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === nameless, "the error names the object")
                return nameless
            }
            try env.expectEqual(try itemCount(), 0, "nothing was written")
            try context.performAndWait {
                nameless.setValue("named", forKey: "name")
                try context.save()
            }
            try env.expectEqual(try itemCount(), 1, "saved after the fix")
        },
        ConformanceCase("save/conflict") { env in
            let coordinator = try env.openCoordinator()
            let setup = env.context(coordinator)
            try setup.performAndWait {
                _ = Fixtures.item(setup, "shared", rank: 1)
                try setup.save()
            }
            let first = env.context(coordinator), second = env.context(coordinator)
            let mine = try first.performAndWait { try Fixtures.byName(first, "Item")["shared"] }
            let theirs = try second.performAndWait { try Fixtures.byName(second, "Item")["shared"] }
            guard let mine, let theirs else { return try env.expect(false, "both contexts fetch the item") }
            try first.performAndWait {
                mine.setValue(10, forKey: "rank")
                try first.save()
            }
            try second.performAndWait {
                theirs.setValue("renamed", forKey: "name")
                let error = try env.expectError([NSManagedObjectMergeError], "saving a stale object with the error merge policy") { try second.save() }
                try env.expect((error.userInfo["conflictList"] as? [Any])?.count == 1, "the error lists one conflict")
                second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
                try second.save()
            }
            let check = env.context(coordinator)
            try check.performAndWait {
                let renamed = try Fixtures.byName(check, "Item")["renamed"]
                try env.expectEqual(renamed?.value(forKey: "rank") as? Int64, 10, "the other context's change survives the merge")
            }
        },
        ConformanceCase("save/conflict-merges-to-many") { env in
            // Under each resolving policy, a context that removes b while another adds c to the same owner and
            // tag ends with both changes, on both sides of each relationship.
            let coordinator = try env.openCoordinator()
            for (index, policy) in [NSMergeByPropertyObjectTrumpMergePolicy, NSMergeByPropertyStoreTrumpMergePolicy,
                                    NSOverwriteMergePolicy, NSRollbackMergePolicy].enumerated() {
                let ownerName = "Owner \(index)", label = "tag \(index)"
                let names = ["a", "b", "c"].map { "\($0)\(index)" }
                let setup = env.context(coordinator)
                try setup.performAndWait {
                    let owner = Fixtures.owner(setup, ownerName), tag = Fixtures.tag(setup, label)
                    for name in names.prefix(2) {
                        let item = Fixtures.item(setup, name, rank: 1)
                        item.setValue(owner, forKey: "owner")
                        item.setValue(Set([tag]), forKey: "tags")
                    }
                    try setup.save()
                }
                let first = env.context(coordinator), second = env.context(coordinator)
                let firstItems = try first.performAndWait {
                    first.mergePolicy = policy
                    let firstItems = try Fixtures.byName(first, "Item")
                    let firstOwner = try env.require(try Fixtures.byName(first, "Owner")[ownerName], "the owner")
                    let firstTag = try env.require(try Fixtures.byName(first, "Tag", key: "label")[label], "the tag")
                    try env.expectEqual(Fixtures.names(firstOwner.value(forKey: "items")), Array(names.prefix(2)), "the owner's items as read")
                    try env.expectEqual(Fixtures.names(firstTag.value(forKey: "items")), Array(names.prefix(2)), "the tag's items as read")
                    return firstItems
                }
                try second.performAndWait {
                    let added = Fixtures.item(second, names[2], rank: 1)
                    added.setValue(try Fixtures.byName(second, "Owner")[ownerName], forKey: "owner")
                    added.setValue(Set([try env.require(try Fixtures.byName(second, "Tag", key: "label")[label], "the tag")]), forKey: "tags")
                    try second.save()
                }
                try first.performAndWait {
                    let removed = try env.require(firstItems[names[1]], "b")
                    removed.setValue(nil, forKey: "owner")
                    removed.setValue(Set<NSManagedObject>(), forKey: "tags")
                    try first.save()
                }
                let check = env.context(coordinator)
                try check.performAndWait {
                    let owners = try Fixtures.byName(check, "Owner"), tags = try Fixtures.byName(check, "Tag", key: "label")
                    try env.expectEqual(Fixtures.names(owners[ownerName]?.value(forKey: "items")), [names[0], names[2]], "policy \(index): the owner's items")
                    try env.expectEqual(Fixtures.names(tags[label]?.value(forKey: "items")), [names[0], names[2]], "policy \(index): the tag's items")
                    let items = try Fixtures.byName(check, "Item")
                    try env.expect(items[names[1]]?.value(forKey: "owner") == nil, "policy \(index): b has no owner")
                    try env.expectEqual(Fixtures.names(items[names[1]]?.value(forKey: "tags"), key: "label"), [], "policy \(index): b has no tags")
                    try env.expectEqual(Fixtures.names(items[names[2]]?.value(forKey: "tags"), key: "label"), [label], "policy \(index): c keeps its tag")
                }
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let owners = try Fixtures.byName(reopened, "Owner"), tags = try Fixtures.byName(reopened, "Tag", key: "label")
                for index in 0..<4 {
                    try env.expectEqual(Fixtures.names(owners["Owner \(index)"]?.value(forKey: "items")), ["a\(index)", "c\(index)"], "after a reopen: owner \(index)'s items")
                    try env.expectEqual(Fixtures.names(tags["tag \(index)"]?.value(forKey: "items")), ["a\(index)", "c\(index)"], "after a reopen: tag \(index)'s items")
                }
            }
        },
        ConformanceCase("save/conflict-writes-nothing") { env in
            let coordinator = try env.openCoordinator()
            let setup = env.context(coordinator)
            try setup.performAndWait {
                for name in ["a", "b", "c"] { _ = Fixtures.item(setup, name, rank: 1) }
                try setup.save()
            }
            let first = env.context(coordinator), second = env.context(coordinator)
            let mine = try first.performAndWait { try Fixtures.byName(first, "Item") }
            let theirs = try second.performAndWait { try Fixtures.byName(second, "Item") }
            try first.performAndWait {
                for name in ["a", "b"] { mine[name]?.setValue(10, forKey: "rank") }
                try first.save()
            }
            try second.performAndWait {
                for name in ["a", "b"] { theirs[name]?.setValue("\(name) renamed", forKey: "name") }
                _ = Fixtures.item(second, "inserted with the conflict", rank: 2)
                let error = try env.expectError([NSManagedObjectMergeError], "saving two stale objects with an insert") { try second.save() }
                try env.expectEqual((error.userInfo["conflictList"] as? [Any])?.count, 2, "the error lists both stale objects")
            }
            let check = env.context(coordinator)
            try check.performAndWait {
                let items = try Fixtures.byName(check, "Item")
                try env.expectEqual(Set(items.keys), ["a", "b", "c"], "the conflicting save wrote neither its insert nor its updates")
                try env.expectEqual(items["a"]?.value(forKey: "rank") as? Int64, 10, "the other context's change stays")
            }
            second.performAndWait { second.rollback() }
            let third = env.context(coordinator)
            guard let staleC = try third.performAndWait({ try Fixtures.byName(third, "Item")["c"] }) else {
                return try env.expect(false, "c is fetched")
            }
            try first.performAndWait {
                mine["c"]?.setValue(30, forKey: "rank")
                try first.save()
            }
            try third.performAndWait {
                third.delete(staleC)
                let deletion = try env.expectError([NSManagedObjectMergeError], "deleting a stale object") { try third.save() }
                try env.expectEqual((deletion.userInfo["conflictList"] as? [Any])?.count, 1, "the error lists the stale deleted object")
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let after = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(Set(after.keys), ["a", "b", "c"], "the stale deletion was not written")
                try env.expectEqual(after["c"]?.value(forKey: "rank") as? Int64, 30, "c keeps the other context's change")
            }
        },
        ConformanceCase("save/update-deleted-row") { env in
            let coordinator = try env.openCoordinator()
            let setup = env.context(coordinator)
            try setup.performAndWait {
                _ = Fixtures.item(setup, "doomed", rank: 1)
                try setup.save()
            }
            let first = env.context(coordinator), second = env.context(coordinator)
            let mine = try first.performAndWait { try Fixtures.byName(first, "Item")["doomed"] }
            let theirs = try second.performAndWait { try Fixtures.byName(second, "Item")["doomed"] }
            guard let mine, let theirs else { return try env.expect(false, "both contexts fetch the item") }
            try first.performAndWait {
                first.delete(mine)
                try first.save()
            }
            try second.performAndWait {
                second.mergePolicy = NSOverwriteMergePolicy
                theirs.setValue("changed after deletion", forKey: "name")
                try env.expectError([NSManagedObjectMergeError], "overwriting an object another context deleted") { try second.save() }
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")), 0, "the deleted row stays deleted")
            }
        },
        ConformanceCase("save/repeated-updates") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let item = try context.performAndWait {
                let item = Fixtures.item(context, "v0", rank: 0)
                try context.save()
                for step in 1...3 {
                    item.setValue("v\(step)", forKey: "name")
                    item.setValue(Int64(step), forKey: "rank")
                    try context.save()
                }
                return item
            }
            let second = env.context(coordinator)
            try second.performAndWait {
                guard let other = try Fixtures.byName(second, "Item")["v3"] else {
                    return try env.expect(false, "another context reads the last values")
                }
                other.setValue(Int64(4), forKey: "rank")
                try second.save()
            }
            try context.performAndWait {
                context.refresh(item, mergeChanges: false)
                item.setValue("v5", forKey: "name")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let items = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(Array(items.keys), ["v5"], "one item with the last name")
                try env.expectEqual(items["v5"]?.value(forKey: "rank") as? Int64, 4, "the last rank")
                items["v5"]?.setValue(Int64(6), forKey: "rank")
                try reopened.save()
            }
            let later = env.context(reopened.persistentStoreCoordinator!)
            try later.performAndWait {
                try env.expectEqual(try Fixtures.byName(later, "Item")["v5"]?.value(forKey: "rank") as? Int64, 6, "an update after the reopen")
            }
        },
        ConformanceCase("save/keys-not-reused") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let keys = try context.performAndWait {
                let items = (0..<3).map { Fixtures.item(context, "item \($0)", rank: Int64($0)) }
                try context.save()
                let keys = items.compactMap(Fixtures.primaryKey)
                try env.expectEqual(keys.count, 3, "saved objects have keys")
                if let highest = items.max(by: { (Fixtures.primaryKey($0) ?? 0) < (Fixtures.primaryKey($1) ?? 0) }) {
                    context.delete(highest)
                    try context.save()
                }
                return keys
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let next = Fixtures.item(reopened, "next", rank: 3)
                try reopened.save()
                let nextKey = Fixtures.primaryKey(next) ?? 0
                try env.expect(nextKey > keys.max() ?? 0, "the new key \(nextKey) is above every key given before (\(keys.sorted()))")
                let special = Fixtures.item(reopened, "special", rank: 4, special: true)
                let plain = Fixtures.item(reopened, "plain", rank: 5)
                try reopened.save()
                let hierarchy = [special, plain].compactMap(Fixtures.primaryKey)
                try env.expect(hierarchy.allSatisfy { $0 > nextKey }, "SpecialItem and Item keys come from one sequence: \(hierarchy) after \(nextKey)")
                let all = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap(Fixtures.primaryKey)
                try env.expectEqual(Set(all).count, all.count, "no two Item or SpecialItem objects share a key")
            }
        },
        ConformanceCase("save/rollback") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let item = Fixtures.item(context, "original", rank: 1)
                try context.save()
                item.setValue("edited", forKey: "name")
                _ = Fixtures.item(context, "unsaved", rank: 2)
                context.rollback()
                try env.expect(!context.hasChanges, "no changes after rollback")
                try env.expectEqual(item.value(forKey: "name") as? String, "original", "the value is restored")
                try env.expectEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")), 1, "the insert is discarded")
            }
        },
        ConformanceCase("save/shared-file", requires: .sharedBetweenCoordinators) { env in
            let one = try env.openCoordinator()
            let setup = env.context(one)
            try setup.performAndWait {
                _ = Fixtures.item(setup, "shared", rank: 1)
                try setup.save()
            }
            let two = try env.openCoordinator(at: nil)
            let first = env.context(one), second = env.context(two)
            let mine = try first.performAndWait { try Fixtures.byName(first, "Item")["shared"] }
            let theirs = try second.performAndWait { try Fixtures.byName(second, "Item")["shared"] }
            guard let mine, let theirs else { return try env.expect(false, "both coordinators see the saved item") }
            try first.performAndWait {
                mine.setValue(5, forKey: "rank")
                try first.save()
            }
            let observer = env.context(two)
            try observer.performAndWait {
                try env.expectEqual(try observer.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")), 1, "the second coordinator sees the row")
            }
            try second.performAndWait {
                theirs.setValue(6, forKey: "rank")
                try env.expectError([NSManagedObjectMergeError], "a stale write through another coordinator") { try second.save() }
            }
        },
    ]
}

/// Values of every attribute type, at their extremes, and the checks that they came back exactly.
struct AttributeSamples {
    static let keys = ["int16", "int32", "int64", "decimal", "double", "float", "string", "flag", "date", "data", "uuid", "uri", "transformable"]
    let rows: [(String, [String: Any])]

    init(big: Data) {
        rows = [
            ("minimums", [
                "int16": Int16.min, "int32": Int32.min, "int64": Int64.min, "decimal": Decimal(string: "-12345.6789")!,
                "double": -Double.greatestFiniteMagnitude, "float": -Float.greatestFiniteMagnitude, "string": "",
                "flag": false, "date": Date(timeIntervalSinceReferenceDate: -978307200.5), "data": Data(),
                "uuid": UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), "uri": URL(string: "file:///")!,
                "transformable": ["alpha", "beta"],
            ]),
            ("maximums", [
                "int16": Int16.max, "int32": Int32.max, "int64": Int64.max, "decimal": Decimal(string: "98765.4321")!,
                "double": Double.greatestFiniteMagnitude, "float": Float.greatestFiniteMagnitude,
                "string": "héllo 🌍 'single' \"double\" <tag> & ampersand\nnew line\ttab",
                "flag": true, "date": Date(timeIntervalSinceReferenceDate: 700_000_000.123456), "data": big,
                "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "uri": URL(string: "https://example.com/a?b=c#d")!,
                "transformable": ["key": 1] as [String: Int],
            ]),
            ("ordinary", [
                "int16": Int16(0), "int32": Int32(-1), "int64": Int64(1 << 40), "decimal": Decimal(0),
                "double": 0.1, "float": Float(1.5), "string": "plain", "flag": true,
                "date": Date(timeIntervalSinceReferenceDate: 0.001), "data": Data([0, 1, 2, 255]),
                "uuid": UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, "uri": URL(string: "x-coredata://store/Entity/p1")!,
            ]),
            ("empty", [:]),
        ]
    }

    /// Fails the case unless every sample row is among `items` (by name) with exactly its values, and nil for
    /// the keys it leaves out. Run on the items' context's queue.
    func expectWritten(in items: [String: NSManagedObject], _ env: ConformanceEnvironment) throws {
        for (name, values) in rows {
            guard let item = items[name] else { try env.expect(false, "item \(name) was written"); continue }
            for (key, expected) in values {
                try env.expect(Self.same(item.value(forKey: key), expected),
                               "\(name).\(key): expected \(String(describing: expected)), got \(String(describing: item.value(forKey: key)))")
            }
            for key in Self.keys where values[key] == nil {
                try env.expect(item.value(forKey: key) == nil, "\(name).\(key) is nil")
            }
        }
    }

    /// Whether a value read back equals the value saved, exactly.
    static func same(_ actual: Any?, _ expected: Any) -> Bool {
        guard let actual else { return false }
        switch expected {
        case let value as Int16: return (actual as? NSNumber)?.int16Value == value && (actual as? Int16) == value
        case let value as Int32: return (actual as? NSNumber)?.int32Value == value
        case let value as Int64: return (actual as? NSNumber)?.int64Value == value
        case let value as Decimal: return (actual as? Decimal) == value
        case let value as Double: return (actual as? NSNumber)?.doubleValue.bitPattern == value.bitPattern
        case let value as Float: return (actual as? NSNumber)?.floatValue.bitPattern == value.bitPattern
        case let value as Bool: return (actual as? NSNumber)?.boolValue == value && (actual as? Bool) == value
        case let value as String: return (actual as? String) == value
        case let value as Date: return (actual as? Date)?.timeIntervalSinceReferenceDate.bitPattern == value.timeIntervalSinceReferenceDate.bitPattern
        case let value as Data: return (actual as? Data) == value
        case let value as UUID: return (actual as? UUID) == value
        case let value as URL: return (actual as? URL) == value
        case let value as [String]: return (actual as? [String]) == value || (actual as? NSArray)?.compactMap({ $0 as? String }) == value
        case let value as [String: Int]: return (actual as? [String: Int]) == value || ((actual as? NSDictionary).map { $0 == value as NSDictionary } ?? false)
        default: return false
        }
    }
}

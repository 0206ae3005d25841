import CoreData

/// Batch deletes: by predicate, all rows, by IDs; every result type; consistency of relationships; deny rules.
enum BatchDeleteCases {
    static let all: [ConformanceCase] = [
        ConformanceCase("batch-delete/predicate") { env in
            let context = try FetchCases.populated(env)
            let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
            fetch.predicate = NSPredicate(format: "rank < 4")
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeCount
            let result = try context.performAndWait { try context.execute(request) as? NSBatchDeleteResult }
            try env.expectEqual((result?.result as? NSNumber)?.intValue, 4, "deleted count")
            let remaining = NSFetchRequest<NSManagedObject>(entityName: "Item")
            remaining.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let names = try env.withNewContext(context.persistentStoreCoordinator!) { FetchCases.names(try $0.fetch(remaining)) }
            try env.expectEqual(names, ["item 4", "item 5", "item 6", "nil", "item 8", "item 9", "special"], "untouched rows stay")
        },
        ConformanceCase("batch-delete/all-and-status") { env in
            let context = try FetchCases.populated(env)
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Item"))
            let result = try context.performAndWait { try context.execute(request) as? NSBatchDeleteResult }
            try env.expectEqual((result?.result as? NSNumber)?.boolValue, true, "status result")
            try env.withNewContext(context.persistentStoreCoordinator!) { fresh in
                try env.expectEqual(try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")), 0, "no items left")
                try env.expectEqual(try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")), 2, "owners untouched")
            }
        },
        ConformanceCase("batch-delete/object-ids") { env in
            let context = try FetchCases.populated(env)
            try context.performAndWait {
                let items = try Fixtures.byName(context, "Item")
                let targets = ["item 0", "special"].compactMap { items[$0]?.objectID }
                let request = NSBatchDeleteRequest(objectIDs: targets)
                request.resultType = .resultTypeObjectIDs
                let result = try context.execute(request) as? NSBatchDeleteResult
                let deleted = result?.result as? [NSManagedObjectID] ?? []
                try env.expectEqual(Set(deleted), Set(targets), "deleted IDs")
                NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [context])
                try env.expect(context.registeredObject(for: targets[0]) == nil, "merging forgets the deleted objects")
                try env.expectEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")), 9, "items left")
                // Apple: "mixing entity types results in an error when you execute the request".
                let owner = try env.require(try Fixtures.byName(context, "Owner")["Ann"], "an owner")
                let item = try env.require(items["item 1"], "item 1")
                try env.expectError([NSCoreDataError], "deleting an owner and an item by their IDs") {
                    _ = try context.execute(NSBatchDeleteRequest(objectIDs: [item.objectID, owner.objectID]))
                }
                try env.expectEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")), 9, "the refused request deleted no item")
                try env.expectEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")), 2, "nor an owner")
            }
        },
        ConformanceCase("batch-delete/relationships-stay-consistent") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                let owner = Fixtures.owner(context, "Owner")
                let red = Fixtures.tag(context, "red")
                for rank in 0..<4 {
                    let item = Fixtures.item(context, "item \(rank)", rank: Int64(rank))
                    item.setValue(owner, forKey: "owner")
                    item.setValue(Set([red]), forKey: "tags")
                }
                owner.setValue(NSOrderedSet(array: [Fixtures.chapter(context, "c1")]), forKey: "chapters")
                try context.save()
                let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
                fetch.predicate = NSPredicate(format: "rank >= 2")
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: fetch))
                let owners = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Owner"))
                owners.resultType = .resultTypeObjectIDs
                let deletedOwners = (try context.execute(owners) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] ?? []
                try env.expectEqual(deletedOwners.filter { $0.entity.name == "Owner" }.count, 1, "the owner was deleted")
                try env.expectEqual(deletedOwners.filter { $0.entity.name == "Chapter" }.count, 1, "the IDs include the cascaded chapter")
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let items = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(Set(items.keys), ["item 0", "item 1"], "items left")
                for item in items.values {
                    try env.expect(item.value(forKey: "owner") == nil, "\(item.value(forKey: "name") ?? "") no longer points at the deleted owner")
                }
                let tag = try Fixtures.byName(reopened, "Tag", key: "label")["red"]
                try env.expectEqual(Fixtures.names(tag?.value(forKey: "items")), ["item 0", "item 1"], "the many-to-many lost the deleted items")
                try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Chapter")), 0, "cascade deleted the owner's chapters")
            }
        },
        ConformanceCase("batch-delete/deny-rule") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let nodes = NSFetchRequest<NSManagedObject>(entityName: "Node")
            let nodeCount = { try env.withNewContext(coordinator) { try $0.count(for: nodes) } }
            try context.performAndWait {
                let leaves = (0..<2).map { Fixtures.node(context, "leaf \($0)") }
                let loner = Fixtures.node(context, "loner")
                try context.save()
                // Saved last, the root has the highest key: a store that checks deny while still following the
                // request's keys meets it before its children.
                let root = Fixtures.node(context, "root")
                root.setValue(Set(leaves), forKey: "children")
                try context.save()
                let onlyRoot = NSFetchRequest<NSFetchRequestResult>(entityName: "Node")
                onlyRoot.predicate = NSPredicate(format: "name == %@", "root")
                let denied = try env.expectError([NSValidationRelationshipDeniedDeleteError], "deleting a node that still has children") {
                    _ = try context.execute(NSBatchDeleteRequest(fetchRequest: onlyRoot))
                }
                try env.expectEqual(denied.userInfo[NSValidationKeyErrorKey] as? String, "children", "the error names the relationship")
                try env.expectEqual(try nodeCount(), 4, "a refused delete by predicate deletes nothing")
                try env.expectError([NSValidationRelationshipDeniedDeleteError], "deleting a node that still has children, by ID") {
                    _ = try context.execute(NSBatchDeleteRequest(objectIDs: [loner.objectID, root.objectID]))
                }
                try env.expectEqual(try nodeCount(), 4, "a refused delete by IDs deletes nothing, not even the loner")
                let rootAndChildren = NSFetchRequest<NSFetchRequestResult>(entityName: "Node")
                rootAndChildren.predicate = NSPredicate(format: "name != %@", "loner")
                let request = NSBatchDeleteRequest(fetchRequest: rootAndChildren)
                request.resultType = .resultTypeCount
                let result = try context.execute(request) as? NSBatchDeleteResult
                try env.expectEqual((result?.result as? NSNumber)?.intValue, 3, "children deleted by the same request do not deny")
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try env.expectEqual(Fixtures.names(try reopened.fetch(nodes)), ["loner"], "nodes left")
            }
        },
        // A row whose reference a batch delete clears is changed, so it gets a new version: a context still
        // holding the old reference meets a conflict when it saves the row, and never writes the deleted
        // object's key back.
        ConformanceCase("batch-delete/nullified-rows-get-new-versions") { env in
            let coordinator = try env.openCoordinator()
            let writer = env.context(coordinator)
            try writer.performAndWait {
                let owner = Fixtures.owner(writer, "Ann")
                for rank in 0..<2 { Fixtures.item(writer, "item \(rank)", rank: Int64(rank)).setValue(owner, forKey: "owner") }
                try writer.save()
            }
            let strict = env.context(coordinator), trumping = env.context(coordinator)
            let strictItem = try strict.performAndWait { try env.require(try Fixtures.byName(strict, "Item")["item 0"], "item 0") }
            let trumpingItem = try trumping.performAndWait { try env.require(try Fixtures.byName(trumping, "Item")["item 1"], "item 1") }
            try strict.performAndWait { try env.expect(strictItem.value(forKey: "owner") != nil, "item 0 read with its owner") }
            try trumping.performAndWait { try env.expect(trumpingItem.value(forKey: "owner") != nil, "item 1 read with its owner") }
            try writer.performAndWait {
                _ = try writer.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Owner")))
            }
            try strict.performAndWait {
                strictItem.setValue("renamed 0", forKey: "name")
                try env.expectError([NSManagedObjectMergeError], "saving an object whose owner a batch delete cleared, with NSErrorMergePolicy") {
                    try strict.save()
                }
            }
            try trumping.performAndWait {
                trumping.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
                trumpingItem.setValue("renamed 1", forKey: "name")
                try trumping.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let items = try Fixtures.byName(reopened, "Item")
                try env.expectEqual(Set(items.keys), ["item 0", "renamed 1"], "the conflicting save wrote nothing; the trumping one its name")
                for item in items.values {
                    try env.expect(item.value(forKey: "owner") == nil, "\(item.value(forKey: "name") ?? "") does not point at the deleted owner")
                }
            }
        },
        // An entity no relationship leads into or out of, whose deletes a store may run as one statement of the
        // request's own condition: subentities, their entity test and each result type must come out the same.
        ConformanceCase("batch-delete/entity-without-relationships") { env in
            let coordinator = try env.openCoordinator(model: BatchUpsertCases.model())
            let context = env.context(coordinator)
            try context.performAndWait {
                for number in 0..<10 {
                    let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
                    quake.setValue("q-\(number)", forKey: "code")
                    quake.setValue(Double(number), forKey: "magnitude")
                }
                for number in 0..<5 {
                    let aftershock = NSEntityDescription.insertNewObject(forEntityName: "Aftershock", into: context)
                    aftershock.setValue("a-\(number)", forKey: "code")
                    aftershock.setValue(Double(number) + 0.5, forKey: "magnitude")
                }
                try context.save()
            }
            func delete(_ entity: String, _ predicate: String, subentities: Bool = true,
                        _ resultType: NSBatchDeleteRequestResultType) throws -> Any? {
                let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
                fetch.predicate = NSPredicate(format: predicate)
                fetch.includesSubentities = subentities
                let request = NSBatchDeleteRequest(fetchRequest: fetch)
                request.resultType = resultType
                return try context.performAndWait { (try context.execute(request) as? NSBatchDeleteResult)?.result }
            }
            func codes(_ ids: [NSManagedObjectID]) throws -> Set<String> {
                try context.performAndWait { Set(ids.map { context.object(with: $0).objectID.entity.name ?? "" }) }
            }
            try env.expectEqual((try delete("Quake", "magnitude >= 7", .resultTypeCount) as? NSNumber)?.intValue, 3, "count of quakes of 7 and over")
            let ids = try env.require(try delete("Quake", "magnitude < 2", subentities: false, .resultTypeObjectIDs) as? [NSManagedObjectID], "object IDs")
            try env.expectEqual(ids.count, 2, "only the two quakes under 2 (the aftershocks under 2 are a subentity)")
            try env.expectEqual(try codes(ids), ["Quake"], "the deleted IDs are the quakes'")
            try env.expectEqual((try delete("Aftershock", "code ENDSWITH '3' OR magnitude < 1", .resultTypeStatusOnly) as? NSNumber)?.boolValue, true, "status")
            try env.expectEqual((try delete("Quake", "code == 'none'", .resultTypeCount) as? NSNumber)?.intValue, 0, "nothing matches")
            let reopened = try env.reopenedContext(or: coordinator, model: BatchUpsertCases.model())
            try reopened.performAndWait {
                let left = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")).compactMap { $0.value(forKey: "code") as? String }
                try env.expectEqual(Set(left), ["q-2", "q-3", "q-4", "q-5", "q-6", "a-1", "a-2", "a-4"], "what is left, reopened")
            }
        },
    ]
}

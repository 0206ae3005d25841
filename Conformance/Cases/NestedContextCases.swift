import CoreData

/// Nested contexts: a child context reads through its parent's unsaved changes, and its save reaches the store
/// only when the parent saves.
enum NestedContextCases {
    /// A private-queue child of `parent`.
    static func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        return child
    }

    static func ownerNames(_ context: NSManagedObjectContext, predicate: NSPredicate? = nil) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Owner")
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "nil" }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("nested/child-save-reaches-the-store-with-the-parent") { env in
            let coordinator = try env.openCoordinator()
            let root = env.context(coordinator)
            let child = child(of: root)
            try env.expect(child.persistentStoreCoordinator === coordinator, "a child context has its parent's coordinator")
            try child.performAndWait {
                let ann = Fixtures.owner(child, "Ann")
                for rank in 1...2 { Fixtures.item(child, "item \(rank)", rank: Int64(rank)).setValue(ann, forKey: "owner") }
                try child.save()
                try env.expect(!child.hasChanges && ann.managedObjectContext === child, "the child has no changes after its save")
            }
            try env.expectEqual(try env.withNewContext(coordinator) { try $0.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) }, 0,
                                "a child's save does not reach the store")
            try root.performAndWait {
                try env.expectEqual(root.insertedObjects.count, 3, "the parent has the child's inserts as its own")
                let ann = try env.require(try Fixtures.byName(root, "Owner")["Ann"], "Ann in the parent")
                try env.expectEqual(Fixtures.names(ann.value(forKey: "items")), ["item 1", "item 2"], "Ann's items in the parent")
                try root.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let ann = try env.require(try Fixtures.byName(reopened, "Owner")["Ann"], "Ann after a reopen")
                try env.expectEqual(Fixtures.names(ann.value(forKey: "items")), ["item 1", "item 2"], "Ann's items after a reopen")
            }
        },
        ConformanceCase("nested/child-sees-the-parents-unsaved-changes") { env in
            let coordinator = try env.openCoordinator()
            let root = env.context(coordinator)
            let (ann, bob) = try root.performAndWait {
                let ann = Fixtures.owner(root, "Ann"), bob = Fixtures.owner(root, "Bob")
                Fixtures.item(root, "book", rank: 1).setValue(bob, forKey: "owner")
                try root.save()
                bob.setValue("Robert", forKey: "name")
                root.delete(ann)
                _ = Fixtures.owner(root, "Cy")
                return (ann.objectID, bob.objectID)
            }
            let cy = try root.performAndWait { try env.require(root.insertedObjects.first, "Cy").objectID }
            let child = child(of: root)
            try child.performAndWait {
                try env.expectEqual(try ownerNames(child), ["Cy", "Robert"], "fetch: parent's insert, update and delete")
                try env.expectEqual(try ownerNames(child, predicate: NSPredicate(format: "name BEGINSWITH 'R'")), ["Robert"], "predicate on a parent's change")
                try env.expectEqual(try ownerNames(child, predicate: NSPredicate(format: "name == 'Bob'")), [], "the saved value no longer matches")
                try env.expectEqual(try child.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")), 2, "count")
                let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Owner")
                ids.resultType = .managedObjectIDResultType
                try env.expectEqual(Set(try child.fetch(ids)), [bob, cy], "object IDs")
                let inserted = try child.existingObject(with: cy)
                try env.expectEqual(inserted.value(forKey: "name") as? String, "Cy", "existingObject(with:) finds the parent's insert")
                try env.expect(!inserted.isInserted && inserted.objectID.isTemporaryID, "the parent's insert is saved, with its temporary ID, to the child")
                try env.expectEqual(child.object(with: bob).value(forKey: "name") as? String, "Robert", "a fault takes the parent's value")
                let book = try env.require(try Fixtures.byName(child, "Item")["book"], "book")
                try env.expectEqual((book.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String, "Robert",
                                    "a relationship reaches the parent's value")
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) of an object the parent deleted") {
                    _ = try child.existingObject(with: ann)
                }
            }
        },
        ConformanceCase("nested/child-updates-deletes-and-relates") { env in
            let coordinator = try env.openCoordinator()
            let root = env.context(coordinator)
            try root.performAndWait {
                let ann = Fixtures.owner(root, "Ann")
                _ = Fixtures.owner(root, "Bob")
                for rank in 1...3 { Fixtures.item(root, "item \(rank)", rank: Int64(rank)).setValue(ann, forKey: "owner") }
                try root.save()
            }
            let child = child(of: root)
            try child.performAndWait {
                let items = try Fixtures.byName(child, "Item"), owners = try Fixtures.byName(child, "Owner")
                items["item 1"]?.setValue("first", forKey: "name")
                items["item 2"]?.setValue(owners["Bob"], forKey: "owner")
                if let third = items["item 3"] { child.delete(third) }
                let fresh = Fixtures.item(child, "item 4", rank: 4)
                fresh.setValue(owners["Bob"], forKey: "owner")
                try child.save()
            }
            try root.performAndWait {
                try env.expect(root.hasChanges, "the parent has the child's changes")
                let owners = try Fixtures.byName(root, "Owner")
                try env.expectEqual(Fixtures.names(owners["Ann"]?.value(forKey: "items")), ["first"], "Ann's items in the parent")
                try env.expectEqual(Fixtures.names(owners["Bob"]?.value(forKey: "items")), ["item 2", "item 4"], "Bob's items in the parent")
                try root.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let owners = try Fixtures.byName(reopened, "Owner")
                try env.expectEqual(Fixtures.names(owners["Ann"]?.value(forKey: "items")), ["first"], "Ann's items after a reopen")
                try env.expectEqual(Fixtures.names(owners["Bob"]?.value(forKey: "items")), ["item 2", "item 4"], "Bob's items after a reopen")
                try env.expectEqual(Set(try Fixtures.byName(reopened, "Item").keys), ["first", "item 2", "item 4"], "items after a reopen")
            }
        },
        ConformanceCase("nested/grandchild-and-permanent-ids") { env in
            let coordinator = try env.openCoordinator()
            let root = env.context(coordinator)
            let middle = child(of: root)
            let leaf = child(of: middle)
            let id = try leaf.performAndWait {
                let owner = Fixtures.owner(leaf, "Dee")
                try leaf.obtainPermanentIDs(for: [owner])
                try leaf.save()
                return owner.objectID
            }
            try env.expect(!id.isTemporaryID, "obtainPermanentIDs(for:) in a child gives a permanent ID")
            try middle.performAndWait {
                try env.expectEqual(try ownerNames(middle), ["Dee"], "the middle context has the leaf's insert")
                try middle.save()
            }
            try root.performAndWait {
                try env.expectEqual(try ownerNames(root), ["Dee"], "the root has it")
                try root.save()
                try env.expectEqual(root.registeredObject(for: id)?.value(forKey: "name") as? String, "Dee", "the ID survives the root's save")
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                try env.expectEqual(try ownerNames(reopened), ["Dee"], "after a reopen")
                let url = id.uriRepresentation()
                let found = try env.require(reopened.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url), "the ID's URI resolves")
                try env.expectEqual(try reopened.existingObject(with: found).value(forKey: "name") as? String, "Dee", "the object by its ID")
            }
        },
        ConformanceCase("nested/child-rollback-and-validation-leave-the-parent-alone") { env in
            let coordinator = try env.openCoordinator()
            let root = env.context(coordinator)
            let child = child(of: root)
            try child.performAndWait {
                _ = Fixtures.owner(child, "Eve")
                child.rollback()
                try env.expect(!child.hasChanges, "rollback discards the child's changes")
                _ = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: child)  // no name: required
                try env.expectError([NSValidationMissingMandatoryPropertyError, NSValidationMultipleErrorsError], "a child's save validates") {
                    try child.save()
                }
            }
            try root.performAndWait { try env.expect(!root.hasChanges, "nothing reached the parent") }
        },
        ConformanceCase("nested/child-merges-its-parents-save") { env in
            let coordinator = try env.openCoordinator()
            let root = env.context(coordinator)
            let id = try root.performAndWait {
                let owner = Fixtures.owner(root, "Fay")
                try root.save()
                return owner.objectID
            }
            let child = child(of: root)
            child.performAndWait { child.automaticallyMergesChangesFromParent = true }
            let seen = child.performAndWait { child.object(with: id).value(forKey: "name") as? String }
            try env.expectEqual(seen, "Fay", "the child reads the saved object")
            try root.performAndWait {
                root.object(with: id).setValue("Faye", forKey: "name")
                try root.save()
            }
            // The merge is queued on the child's queue, so it has run when this block runs.
            let merged = child.performAndWait { child.object(with: id).value(forKey: "name") as? String }
            try env.expectEqual(merged, "Faye", "the child took in its parent's save")
        },
    ]
}

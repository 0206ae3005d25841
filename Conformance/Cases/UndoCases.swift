import CoreData

/// Undo in a context (Apple's `undoManager`): what an undo or redo puts back after a save is saved again,
/// whatever the store: an undone deletion inserts the object again under its ID, an undone insertion deletes
/// it, values and relationships (both sides) come back.
enum UndoCases {
    /// The items of the store as "name: owner" lines, sorted.
    static func items(_ context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { item in
                let owner = (item.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String
                return "\(item.value(forKey: "name") as? String ?? "nil"): \(owner ?? "nil")"
            }.sorted()
        }
    }

    /// The items as the store has them now, read without disturbing `coordinator` (another coordinator on a
    /// store kept in a file, a new context of `coordinator` otherwise).
    static func savedItems(_ env: ConformanceEnvironment, _ coordinator: NSPersistentStoreCoordinator) throws -> [String] {
        let reader = env.capabilities.contains(.persistent) ? env.context(try env.openCoordinator()) : env.context(coordinator)
        return try items(reader)
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("undo/undo-and-redo-after-saving") { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let (ann, bob, one, two) = try context.performAndWait {
                context.undoManager = UndoManager()
                let ann = Fixtures.owner(context, "Ann"), bob = Fixtures.owner(context, "Bob")
                let one = Fixtures.item(context, "one", rank: 1), two = Fixtures.item(context, "two", rank: 2)
                one.setValue(ann, forKey: "owner")
                two.setValue(ann, forKey: "owner")
                try context.save()
                return (ann, bob, one, two)
            }
            context.performAndWait { context.undoManager?.removeAllActions() }
            try context.performAndWait {  // one block, one undo group
                one.setValue("uno", forKey: "name")
                one.setValue(bob, forKey: "owner")
                context.delete(two)
                Fixtures.item(context, "three", rank: 3).setValue(ann, forKey: "owner")
                try context.save()
            }
            try env.expectEqual(try savedItems(env, coordinator), ["three: Ann", "uno: Bob"], "the changes are saved")

            try context.performAndWait {
                context.undo()
                try env.expect(context.hasChanges, "undoing saved changes leaves changes to save")
                try env.expectEqual(one.value(forKey: "name") as? String, "one", "the value is back")
                try env.expectEqual(Fixtures.names(ann.value(forKey: "items")), ["one", "two"], "the owner's items are back (inverse side)")
                try env.expectEqual(Fixtures.names(bob.value(forKey: "items")), [], "the other owner lost the item again")
                try env.expect(!two.isDeleted && two.managedObjectContext === context, "the deleted item is back")
                try context.save()
            }
            try env.expectEqual(try savedItems(env, coordinator), ["one: Ann", "two: Ann"],
                                "the undone state is saved: the deleted item is back with its owner, the inserted one is gone")

            try context.performAndWait {
                context.redo()
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try env.expectEqual(try items(reopened), ["three: Ann", "uno: Bob"], "the redone state is saved")
        },
    ]
}

import CoreData

/// Registered objects: which ones a context keeps alive (Apple's `retainsRegisteredObjects`, false by
/// default), and what an object that was let go comes back as.
enum RegistrationCases {
    /// Weak references a case sets and reads inside its context's blocks, which are `@Sendable` as Apple's.
    /// `@unchecked Sendable`: the blocks run one at a time, while the case waits for each (`performAndWait`).
    final class WeakObjects: @unchecked Sendable {
        weak var updated: NSManagedObject?, inserted: NSManagedObject?, deleted: NSManagedObject?, owner: NSManagedObject?
        weak var kept: NSManagedObject?
    }

    /// The item of rank `rank`, fetched in `context`.
    static func item(_ env: ConformanceEnvironment, _ context: NSManagedObjectContext, rank: Int) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = NSPredicate(format: "rank == %@", NSNumber(value: rank))
        return try env.require(try context.fetch(request).first, "the item of rank \(rank)")
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("registration/unreferenced-objects-are-released") { env in
            let context = try FetchCases.populated(env)
            weak var released: NSManagedObject?
            let id = try context.performAndWait {
                let object = try item(env, context, rank: 1)
                _ = object.value(forKey: "name")
                released = object
                return object.objectID
            }
            try env.expect(released == nil, "an object without changes that nothing holds is let go by its context (retainsRegisteredObjects is false)")
            try context.performAndWait {
                try env.expect(context.registeredObject(for: id) == nil, "an object let go is no longer registered")
                try env.expect(!context.registeredObjects.contains { $0.objectID == id }, "registeredObjects does not list it")

                let again = context.object(with: id)
                try env.expect(again.isFault, "object(with:) gives a fault for an object let go")
                try env.expectEqual(again.value(forKey: "name") as? String, "item 1", "the fault reads the saved values")
                try env.expect(try item(env, context, rank: 1) === again, "a fetch finds the object made since")
            }

            // An object let go whose row another context deletes comes back as an inaccessible fault.
            let gone = try context.performAndWait { try item(env, context, rank: 2).objectID }
            let writer = env.context(try env.require(context.persistentStoreCoordinator, "the coordinator"))
            try writer.performAndWait {
                writer.delete(try writer.existingObject(with: gone))
                try writer.save()
            }
            try context.performAndWait {
                let fault = context.object(with: gone)
                try env.expect(fault.isFault, "object(with:) for a deleted row gives a fault")
                try env.expectError([NSManagedObjectReferentialIntegrityError], "existingObject(with:) for the deleted row") {
                    _ = try context.existingObject(with: gone)
                }
                try env.expect(fault.value(forKey: "name") == nil && fault.isDeleted,
                               "the fault of the deleted row is inaccessible: no values, and isDeleted (shouldDeleteInaccessibleFaults)")
            }
        },
        ConformanceCase("registration/objects-with-changes-stay") { env in
            let context = try FetchCases.populated(env)
            let weak = WeakObjects()
            var holder: NSManagedObject?
            let (updatedID, deletedID) = try context.performAndWait {
                let changed = try item(env, context, rank: 3)
                changed.setValue("three", forKey: "name")
                weak.updated = changed
                weak.inserted = Fixtures.item(context, "new", rank: 200)
                let removed = try item(env, context, rank: 4)
                context.delete(removed)
                weak.deleted = removed
                let kept = try item(env, context, rank: 6)
                weak.owner = kept.value(forKey: "owner") as? NSManagedObject
                holder = kept
                return (changed.objectID, removed.objectID)
            }
            try env.expect(weak.updated != nil && weak.inserted != nil && weak.deleted != nil,
                           "updated, inserted and deleted objects stay alive while nothing else holds them")
            try env.expect(weak.owner != nil, "an object that a relationship of a held object names stays alive")
            try context.performAndWait {
                try env.expect(context.registeredObject(for: updatedID) === weak.updated && context.registeredObject(for: deletedID) === weak.deleted,
                               "objects with changes stay registered")
                try env.expectEqual(weak.updated?.value(forKey: "name") as? String, "three", "the unsaved change is kept")
                try env.expect(context.updatedObjects.contains { $0 === weak.updated } && context.insertedObjects.contains { $0 === weak.inserted }
                               && context.deletedObjects.contains { $0 === weak.deleted }, "the context still lists its changes")
                try context.save()
            }
            try env.expect(weak.updated == nil, "once saved, an updated object that nothing holds is let go")
            try env.expect(weak.inserted == nil, "once saved, an inserted object that nothing holds is let go")
            try context.performAndWait {
                try env.expectEqual(try item(env, context, rank: 3).value(forKey: "name") as? String, "three", "the saved change")
                try env.expectEqual(try item(env, context, rank: 200).value(forKey: "name") as? String, "new", "the saved insert")
            }
            withExtendedLifetime(holder) {}
        },
        ConformanceCase("registration/retains-registered-objects") { env in
            let context = try FetchCases.populated(env)
            let weak = WeakObjects()
            let id = try context.performAndWait {
                try env.expect(!context.retainsRegisteredObjects, "retainsRegisteredObjects is false by default")
                context.retainsRegisteredObjects = true
                let object = try item(env, context, rank: 5)
                weak.kept = object
                return object.objectID
            }
            try env.expect(weak.kept != nil, "with retainsRegisteredObjects, the context keeps objects that nothing else holds")
            try context.performAndWait {
                try env.expect(context.registeredObject(for: id) === weak.kept && context.registeredObjects.contains { $0 === weak.kept },
                               "and they stay registered")
            }
        },
    ]
}

import CoreData

/// Derived attributes (`NSDerivedAttributeDescription`) on every store that computes them: after `save()` the
/// saving context's objects hold the values the store computed (a book's page count after one of its pages is
/// inserted, moved or deleted, even when the book itself was not saved); a context that merges the save
/// notification sees them too; the values survive a reopen and answer predicates; a derivation Core Data does
/// not support fails the add with 134091.
///
/// The cases use models of their own (`Writer`, `Volume`, `Leaf`; a self-referencing `Category`), so the shared
/// model's cases are unaffected.
enum DerivedAttributeCases {
    /// `Writer` {name}; `Volume` {title, writer (to-one), leaves (to-many, inverse `volume`), and derived
    /// `leafCount` = `leaves.@count`, `wordTotal` = `leaves.@sum.words`, `writerName` = `writer.name`,
    /// `lowerTitle` = `lowercase:(title)`, `savedAt` = `now()`}; `Leaf` {words, volume}. `extra` adds one
    /// more derived attribute with that expression to `Volume`.
    static func model(extra: String? = nil) -> NSManagedObjectModel {
        let writer = NSEntityDescription(name: "Writer")
        let volume = NSEntityDescription(name: "Volume")
        let leaf = NSEntityDescription(name: "Leaf")
        let leaves = NSRelationshipDescription(name: "leaves", destination: leaf, toMany: true)
        let owner = NSRelationshipDescription(name: "volume", destination: volume, toMany: false)
        leaves.inverseRelationship = owner
        owner.inverseRelationship = leaves
        let volumeWriter = NSRelationshipDescription(name: "writer", destination: writer, toMany: false)
        let writerVolumes = NSRelationshipDescription(name: "volumes", destination: volume, toMany: true)
        volumeWriter.inverseRelationship = writerVolumes
        writerVolumes.inverseRelationship = volumeWriter
        func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
            let attribute = NSDerivedAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.derivationExpressionFormat = format
            return attribute
        }
        writer.properties = [NSAttributeDescription(name: "name", type: .string), writerVolumes]
        var volumeProperties: [NSPropertyDescription] = [
            NSAttributeDescription(name: "title", type: .string), volumeWriter, leaves,
            derived("leafCount", .integer64AttributeType, "leaves.@count"),
            derived("wordTotal", .integer64AttributeType, "leaves.@sum.words"),
            derived("writerName", .stringAttributeType, "writer.name"),
            derived("lowerTitle", .stringAttributeType, "lowercase:(title)"),
            derived("savedAt", .dateAttributeType, "now()"),
        ]
        if let extra { volumeProperties.append(derived("extra", .integer64AttributeType, extra)) }
        volume.properties = volumeProperties
        leaf.properties = [NSAttributeDescription(name: "words", type: .integer64), owner]
        return NSManagedObjectModel(entities: [writer, volume, leaf])
    }

    /// `Category` {name, rank, parent (to-one Category), children (to-many, inverse `parent`), following and
    /// followers (a many-to-many of Category with itself), and derived `parentName` = `parent.name`,
    /// `upperParentName` = `uppercase:(parent.name)`, `childCount` = `children.@count`, `rankTotal` =
    /// `children.@sum.rank`, `followingCount` = `following.@count`}: every relationship a derivation reads leads
    /// back to the entity's own table.
    static func selfReferencingModel() -> NSManagedObjectModel {
        let category = NSEntityDescription(name: "Category")
        let parent = NSRelationshipDescription(name: "parent", destination: category, toMany: false)
        let children = NSRelationshipDescription(name: "children", destination: category, toMany: true)
        parent.inverseRelationship = children
        children.inverseRelationship = parent
        let following = NSRelationshipDescription(name: "following", destination: category, toMany: true)
        let followers = NSRelationshipDescription(name: "followers", destination: category, toMany: true)
        following.inverseRelationship = followers
        followers.inverseRelationship = following
        func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
            let attribute = NSDerivedAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.derivationExpressionFormat = format
            return attribute
        }
        category.properties = [
            NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "rank", type: .integer64),
            parent, children, following, followers,
            derived("parentName", .stringAttributeType, "parent.name"),
            derived("upperParentName", .stringAttributeType, "uppercase:(parent.name)"),
            derived("childCount", .integer64AttributeType, "children.@count"),
            derived("rankTotal", .integer64AttributeType, "children.@sum.rank"),
            derived("followingCount", .integer64AttributeType, "following.@count"),
        ]
        return NSManagedObjectModel(entities: [category])
    }

    static func insert(_ entity: String, into context: NSManagedObjectContext, _ values: [String: Any]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    static func integer(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value ?? value as? Int64 }

    /// The volumes by title, fetched.
    static func volumes(_ context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
        try Fixtures.byName(context, "Volume", key: "title")
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("derived/count-and-sum-follow-inserts-moves-and-deletes", adopting: [.derivedAttributeComputing]) { env in
            let model = model()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            try context.performAndWait {
                let first = insert("Volume", into: context, ["title": "First"])
                let second = insert("Volume", into: context, ["title": "Second"])
                for words in [100, 20, 3] { insert("Leaf", into: context, ["words": words, "volume": first]) }
                try context.save()
                try env.expectEqual(integer(first.value(forKey: "leafCount")), 3, "@count of a volume saved with its three leaves")
                try env.expectEqual(integer(first.value(forKey: "wordTotal")), 123, "@sum of the leaves' words")
                try env.expectEqual(integer(second.value(forKey: "leafCount")), 0, "@count of a volume without leaves is 0")
                try env.expectEqual(integer(second.value(forKey: "wordTotal")), 0, "@sum of no leaves is 0")

                let moved = try env.require((first.value(forKey: "leaves") as? Set<NSManagedObject>)?.first { integer($0.value(forKey: "words")) == 20 }, "the 20-word leaf")
                moved.setValue(second, forKey: "volume")
                try context.save()
                try env.expectEqual(integer(first.value(forKey: "leafCount")), 2, "@count after a leaf moved away")
                try env.expectEqual(integer(second.value(forKey: "leafCount")), 1, "@count after a leaf moved in")
                try env.expectEqual(integer(second.value(forKey: "wordTotal")), 20, "@sum after a leaf moved in")

                let gone = try env.require((first.value(forKey: "leaves") as? Set<NSManagedObject>)?.first { integer($0.value(forKey: "words")) == 3 }, "the 3-word leaf")
                context.delete(gone)
                insert("Leaf", into: context, ["words": 7, "volume": second])
                try context.save()
                try env.expectEqual(integer(first.value(forKey: "leafCount")), 1, "@count after a leaf was deleted")
                try env.expectEqual(integer(first.value(forKey: "wordTotal")), 100, "@sum after a leaf was deleted")
                try env.expectEqual(integer(second.value(forKey: "leafCount")), 2, "@count after a leaf was inserted (the volume not saved)")
                try env.expectEqual(integer(second.value(forKey: "wordTotal")), 27, "@sum after a leaf was inserted")
            }
            let reader = try CompositeAttributeCases.reopened(env, coordinator, model: model)
            try reader.performAndWait {
                let volumes = try volumes(reader)
                try env.expectEqual(integer(volumes["First"]?.value(forKey: "leafCount")), 1, "@count after a reopen")
                try env.expectEqual(integer(volumes["Second"]?.value(forKey: "leafCount")), 2, "@count after a reopen")
                try env.expectEqual(integer(volumes["Second"]?.value(forKey: "wordTotal")), 27, "@sum after a reopen")
                let request = NSFetchRequest<NSManagedObject>(entityName: "Volume")
                request.predicate = NSPredicate(format: "leafCount == 2")
                try env.expectEqual(try reader.fetch(request).compactMap { $0.value(forKey: "title") as? String }, ["Second"],
                                    "a predicate on a derived attribute")
            }
        },

        ConformanceCase("derived/to-one-key-path-and-lowercase-are-copied", adopting: [.derivedAttributeComputing]) { env in
            let model = model()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            try context.performAndWait {
                let writer = insert("Writer", into: context, ["name": "Ada"])
                let volume = insert("Volume", into: context, ["title": "Notes On The Engine", "writer": writer])
                insert("Volume", into: context, ["title": "Anonymous"])
                try context.save()
                try env.expectEqual(volume.value(forKey: "writerName") as? String, "Ada", "writer.name copied at insert")
                try env.expectEqual(volume.value(forKey: "lowerTitle") as? String, "notes on the engine", "lowercase:(title)")

                writer.setValue("Augusta Ada", forKey: "name")  // only the writer is saved
                try context.save()
                try env.expectEqual(volume.value(forKey: "writerName") as? String, "Augusta Ada", "writer.name follows the writer's rename")
                volume.setValue("Sketch", forKey: "title")
                try context.save()
                try env.expectEqual(volume.value(forKey: "lowerTitle") as? String, "sketch", "lowercase:(title) follows the title")
            }
            let reader = try CompositeAttributeCases.reopened(env, coordinator, model: model)
            try reader.performAndWait {
                let volumes = try volumes(reader)
                try env.expectEqual(volumes["Sketch"]?.value(forKey: "writerName") as? String, "Augusta Ada", "writer.name after a reopen")
                try env.expectEqual(volumes["Sketch"]?.value(forKey: "lowerTitle") as? String, "sketch", "lowercase after a reopen")
                try env.expect(volumes["Anonymous"] != nil && volumes["Anonymous"]?.value(forKey: "writerName") == nil,
                               "a key path through an empty to-one is nil")
            }
        },

        ConformanceCase("derived/now-is-the-time-of-each-save", adopting: [.derivedAttributeComputing]) { env in
            let model = model()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            try context.performAndWait {
                let before = Date()
                let volume = insert("Volume", into: context, ["title": "Dated"])
                try context.save()
                let first = try env.require(volume.value(forKey: "savedAt") as? Date, "now() after the insert")
                try env.expect(first.timeIntervalSince(before) > -1 && first.timeIntervalSinceNow < 1, "now() is the time of the save (\(first))")
                Thread.sleep(forTimeInterval: 0.05)
                volume.setValue("Dated again", forKey: "title")
                try context.save()
                let second = try env.require(volume.value(forKey: "savedAt") as? Date, "now() after an update")
                try env.expect(second > first, "now() moves with each save of the object (\(first) then \(second))")
            }
        },

        ConformanceCase("derived/merging-context-sees-the-store's-values", adopting: [.derivedAttributeComputing]) { env in
            let model = model()
            let coordinator = try env.openCoordinator(model: model)
            let writer = env.context(coordinator)
            let viewer = env.context(coordinator)
            let volumeID: NSManagedObjectID = try writer.performAndWait {
                let volume = insert("Volume", into: writer, ["title": "Shared"])
                try writer.save()
                return volume.objectID
            }
            try viewer.performAndWait {
                let volume = try viewer.existingObject(with: volumeID)
                try env.expectEqual(integer(volume.value(forKey: "leafCount")), 0, "the viewer's volume before")
            }
            let caught = CaughtNotification()
            let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) {
                caught.set($0)
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            try writer.performAndWait {
                let volume = try writer.existingObject(with: volumeID)
                insert("Leaf", into: writer, ["words": 5, "volume": volume])
                try writer.save()
            }
            let notification = try env.require(caught.notification, "the writer's save notification")
            let updated = (notification.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? []
            try env.expect(updated.contains { $0.objectID == volumeID }, "the volume whose count changed is among the updated objects")
            try viewer.performAndWait {
                viewer.mergeChanges(fromContextDidSave: notification)
                let volume = try viewer.existingObject(with: volumeID)
                try env.expectEqual(integer(volume.value(forKey: "leafCount")), 1, "the merged count")
            }
        },

        ConformanceCase("derived/to-one-of-own-entity", adopting: [.derivedAttributeComputing]) { env in
            let model = selfReferencingModel()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            func parentName(_ object: NSManagedObject) -> String? { object.value(forKey: "parentName") as? String }
            try context.performAndWait {
                let tools = insert("Category", into: context, ["name": "Tools"])
                let garden = insert("Category", into: context, ["name": "Garden"])
                let saws = insert("Category", into: context, ["name": "Saws", "parent": tools])
                let hoes = insert("Category", into: context, ["name": "Hoes", "parent": tools])
                try context.save()
                try env.expectEqual(parentName(saws), "Tools", "parent.name of a child saved with its parent")
                try env.expectEqual(saws.value(forKey: "upperParentName") as? String, "TOOLS", "uppercase:(parent.name)")
                try env.expect(parentName(tools) == nil, "parent.name of a category without a parent is nil")

                tools.setValue("Hand Tools", forKey: "name")  // only the parent is saved
                try context.save()
                try env.expectEqual(parentName(saws), "Hand Tools", "parent.name follows the parent's rename")
                try env.expectEqual(parentName(hoes), "Hand Tools", "every child follows the parent's rename")
                try env.expect(parentName(tools) == nil, "the renamed parent's own parent.name stays nil")

                hoes.setValue(garden, forKey: "parent")
                try context.save()
                try env.expectEqual(parentName(hoes), "Garden", "parent.name follows a move to another parent")
                try env.expectEqual(parentName(saws), "Hand Tools", "the sibling left behind keeps its parent's name")

                context.delete(garden)
                try context.save()
                try env.expect(parentName(hoes) == nil, "parent.name is nil once the parent is deleted")
                try env.expect(hoes.value(forKey: "upperParentName") == nil, "uppercase:(parent.name) is nil once the parent is deleted")
            }
            let reader = try CompositeAttributeCases.reopened(env, coordinator, model: model)
            try reader.performAndWait {
                let categories = try Fixtures.byName(reader, "Category")
                try env.expectEqual(categories["Saws"].flatMap(parentName), "Hand Tools", "parent.name after a reopen")
                try env.expectEqual(categories["Saws"]?.value(forKey: "upperParentName") as? String, "HAND TOOLS", "uppercase after a reopen")
                try env.expect(categories["Hoes"] != nil && categories["Hoes"].flatMap(parentName) == nil,
                               "parent.name of the orphan after a reopen")
                try env.expect(categories["Hand Tools"] != nil && categories["Hand Tools"].flatMap(parentName) == nil,
                               "the parent's own parent.name after a reopen")
            }
        },

        ConformanceCase("derived/aggregates-over-own-entity", adopting: [.derivedAttributeComputing]) { env in
            let model = selfReferencingModel()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            func count(_ object: NSManagedObject?, _ key: String) -> Int64? { integer(object?.value(forKey: key)) }
            try context.performAndWait {
                let tools = insert("Category", into: context, ["name": "Tools", "rank": 1])
                let garden = insert("Category", into: context, ["name": "Garden", "rank": 2])
                let saws = insert("Category", into: context, ["name": "Saws", "rank": 10, "parent": tools])
                let hoes = insert("Category", into: context, ["name": "Hoes", "rank": 20, "parent": tools])
                insert("Category", into: context, ["name": "Rakes", "rank": 300, "parent": garden])
                tools.setValue(Set([garden, saws]), forKey: "following")
                saws.setValue(Set([tools]), forKey: "following")
                try context.save()
                try env.expectEqual(count(tools, "childCount"), 2, "children.@count")
                try env.expectEqual(count(tools, "rankTotal"), 30, "children.@sum.rank")
                try env.expectEqual(count(saws, "childCount"), 0, "children.@count of a leaf category")
                try env.expectEqual(count(tools, "followingCount"), 2, "following.@count of a many-to-many with its own entity")
                try env.expectEqual(count(garden, "followingCount"), 0, "following.@count of a category following none")

                hoes.setValue(garden, forKey: "parent")
                saws.setValue(Int64(15), forKey: "rank")
                tools.setValue(Set([garden]), forKey: "following")
                try context.save()
                try env.expectEqual(count(tools, "childCount"), 1, "children.@count after a child moved away")
                try env.expectEqual(count(tools, "rankTotal"), 15, "children.@sum.rank after a move and a child's new rank")
                try env.expectEqual(count(garden, "childCount"), 2, "children.@count after a child moved in")
                try env.expectEqual(count(garden, "rankTotal"), 320, "children.@sum.rank after a child moved in")
                try env.expectEqual(count(tools, "followingCount"), 1, "following.@count after one was dropped")

                context.delete(saws)
                try context.save()
                try env.expectEqual(count(tools, "childCount"), 0, "children.@count after the child was deleted")
                try env.expectEqual(count(tools, "rankTotal"), 0, "children.@sum.rank of no children is 0")
            }
            let reader = try CompositeAttributeCases.reopened(env, coordinator, model: model)
            try reader.performAndWait {
                let categories = try Fixtures.byName(reader, "Category")
                try env.expectEqual(count(categories["Garden"], "childCount"), 2, "children.@count after a reopen")
                try env.expectEqual(count(categories["Garden"], "rankTotal"), 320, "children.@sum.rank after a reopen")
                try env.expectEqual(count(categories["Tools"], "childCount"), 0, "children.@count after a reopen")
                try env.expectEqual(count(categories["Tools"], "followingCount"), 1, "following.@count after a reopen")
                try env.expectEqual(count(categories["Rakes"], "childCount"), 0, "children.@count of a leaf after a reopen")
            }
        },

        ConformanceCase("derived/unsupported-derivation-fails-the-add") { env in
            let model = model(extra: "leaves.@count.words")
            let error = try env.expectError([NSPersistentStoreUnsupportedRequestTypeError], "a derivation Core Data does not support") {
                _ = try env.openCoordinator(model: model)
            }
            try env.expect(error.localizedDescription.contains("extra"), "the error names the attribute: \(error.localizedDescription)")
        },
    ]
}

/// The last notification an observer received.
///
/// `@unchecked Sendable`: `lock` guards `stored`; the observer writes it on the posting queue, the case reads it after.
private final class CaughtNotification: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Notification?

    var notification: Notification? { lock.withLock { stored } }
    func set(_ notification: Notification) { lock.withLock { stored = notification } }
}

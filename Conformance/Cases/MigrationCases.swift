import CoreData

/// Lightweight migration with one set of rules on every store (issue 15, item 6): renaming identifiers for
/// entities and properties, default values for new required attributes, a chain of versions, a skipped
/// version, and the refusals (134110 for a required value nothing provides, 134190 for a type the inferred
/// mapping cannot convert), which leave the file as it was.
enum MigrationCases {
    /// Version 2: Item.rank is now `score` and Profile is now `Biography` (with `bio` now `text`), each with the
    /// old name as renaming identifier.
    static func version2() -> NSManagedObjectModel {
        let model = ConformanceModel.make()
        if let rank = model.entitiesByName["Item"]?.propertiesByName["rank"] {
            rank.name = "score"
            rank.renamingIdentifier = "rank"
        }
        if let profile = model.entitiesByName["Profile"] {
            profile.name = "Biography"
            profile.renamingIdentifier = "Profile"
            if let bio = profile.propertiesByName["bio"] {
                bio.name = "text"
                bio.renamingIdentifier = "bio"
            }
        }
        model.entities = Array(model.entities)
        return model
    }

    /// Version 3: version 2 with a required `grade` on Owner whose default is 7.
    static func version3() -> NSManagedObjectModel {
        let model = version2()
        model.entitiesByName["Owner"]?.properties.append(NSAttributeDescription(name: "grade", type: .integer64, isOptional: false, defaultValue: 7))
        model.entities = Array(model.entities)
        return model
    }

    static var migrating: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    /// Writes version 1 data: owner Ann with item "thing" (rank 3) and a profile "hello".
    static func writeVersion1(_ env: ConformanceEnvironment) throws {
        let coordinator = try env.openCoordinator()
        let context = env.context(coordinator)
        try context.performAndWait {
            let owner = Fixtures.owner(context, "Ann")
            Fixtures.item(context, "thing", rank: 3).setValue(owner, forKey: "owner")
            let profile = NSEntityDescription.insertNewObject(forEntityName: "Profile", into: context)
            profile.setValue("hello", forKey: "bio")
            profile.setValue(owner, forKey: "owner")
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    /// Checks what version 1 wrote, read with version 2 or 3.
    static func checkRenamed(_ env: ConformanceEnvironment, _ coordinator: NSPersistentStoreCoordinator, _ step: String) throws {
        let context = env.context(coordinator)
        try context.performAndWait {
            let items = try Fixtures.byName(context, "Item")
            try env.expectEqual(items["thing"]?.value(forKey: "score") as? Int64, 3, "\(step): the renamed attribute keeps its value")
            try env.expectEqual((items["thing"]?.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String, "Ann", "\(step): relationship kept")
            let biographies = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Biography"))
            try env.expectEqual(biographies.map { $0.value(forKey: "text") as? String }, ["hello"], "\(step): the renamed entity keeps its objects and renamed attribute")
            try env.expectEqual((biographies.first?.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String, "Ann", "\(step): the renamed entity's relationship")
        }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("migration/renaming-chain", requires: .persistent, adopting: [.lightweightMigrating]) { env in
            try writeVersion1(env)
            let second = try env.openCoordinator(options: migrating, model: version2())
            try checkRenamed(env, second, "v1 → v2")
            for store in second.persistentStores { try second.remove(store) }
            let third = try env.openCoordinator(options: migrating, model: version3())
            try checkRenamed(env, third, "v2 → v3")
            try env.withNewContext(third) { context in
                let owners = try Fixtures.byName(context, "Owner")
                try env.expectEqual(owners["Ann"]?.value(forKey: "grade") as? Int64, 7, "v2 → v3: a new required attribute takes its default")
            }
        },
        ConformanceCase("migration/skipping-a-version", requires: .persistent, adopting: [.lightweightMigrating]) { env in
            try writeVersion1(env)
            let third = try env.openCoordinator(options: migrating, model: version3())
            try checkRenamed(env, third, "v1 → v3")
            try env.withNewContext(third) { context in
                try env.expectEqual(try Fixtures.byName(context, "Owner")["Ann"]?.value(forKey: "grade") as? Int64, 7, "v1 → v3: default value")
            }
        },
        // Apple's lightweight migration turns a to-one into a to-many: Item.owner (one-to-many) and Profile.owner
        // (one-to-one) become many-to-many, so the store moves their values from foreign keys into join tables.
        ConformanceCase("migration/to-one-becomes-many-to-many", requires: .persistent, adopting: [.lightweightMigrating]) { env in
            let coordinator = try env.openCoordinator()
            let writer = env.context(coordinator)
            try writer.performAndWait {
                let ann = Fixtures.owner(writer, "Ann"), bob = Fixtures.owner(writer, "Bob")
                for (name, owner) in [("one", ann), ("two", ann), ("three", bob)] { Fixtures.item(writer, name, rank: 1).setValue(owner, forKey: "owner") }
                Fixtures.item(writer, "special", rank: 2, special: true).setValue(bob, forKey: "owner")
                Fixtures.item(writer, "loose", rank: 3)
                let profile = NSEntityDescription.insertNewObject(forEntityName: "Profile", into: writer)
                profile.setValue("Ann's", forKey: "bio")
                profile.setValue(ann, forKey: "owner")
                NSEntityDescription.insertNewObject(forEntityName: "Profile", into: writer).setValue("nobody's", forKey: "bio")
                try writer.save()
            }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            let manyToMany = ConformanceModel.make()
            for (entity, name) in [("Item", "owner"), ("Profile", "owner"), ("Owner", "profile")] {
                (manyToMany.entitiesByName[entity]?.propertiesByName[name] as? NSRelationshipDescription)?.maxCount = 0
            }
            manyToMany.entities = Array(manyToMany.entities)
            func names(_ value: Any?, key: String = "name") -> [String] {
                ((value as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: key) as? String }.sorted()
            }
            for step in ["migrated", "reopened"] {
                let migrated = try env.openCoordinator(options: migrating, model: manyToMany)
                defer { for store in migrated.persistentStores { try? migrated.remove(store) } }
                try env.withNewContext(migrated) { context in
                    let items = try Fixtures.byName(context, "Item"), owners = try Fixtures.byName(context, "Owner")
                    try env.expectEqual(items.keys.sorted().map { "\($0): \(names(items[$0]?.value(forKey: "owner")))" },
                                        ["loose: []", "one: [\"Ann\"]", "special: [\"Bob\"]", "three: [\"Bob\"]", "two: [\"Ann\"]"],
                                        "\(step): each item's owners are its old owner")
                    try env.expectEqual(names(owners["Ann"]?.value(forKey: "items")), ["one", "two"], "\(step): Ann's items")
                    try env.expectEqual(names(owners["Bob"]?.value(forKey: "items")), ["special", "three"], "\(step): Bob's items")
                    try env.expectEqual(names(owners["Ann"]?.value(forKey: "profile"), key: "bio"), ["Ann's"], "\(step): Ann's profiles, from a one-to-one")
                    let profiles = try Fixtures.byName(context, "Profile", key: "bio")
                    try env.expectEqual(names(profiles["Ann's"]?.value(forKey: "owner")), ["Ann"], "\(step): the profile's owners")
                    try env.expectEqual(names(profiles["nobody's"]?.value(forKey: "owner")), [], "\(step): a profile without an owner")
                }
            }
        },
        ConformanceCase("migration/refusals-leave-the-store", requires: .persistent, adopting: [.lightweightMigrating]) { env in
            try writeVersion1(env)
            let before = env.fileBytes()
            let required = ConformanceModel.make()
            required.entitiesByName["Owner"]?.properties.append(NSAttributeDescription(name: "grade", type: .integer64, isOptional: false))
            required.entities = Array(required.entities)
            let missing = try env.expectError([NSMigrationError], "a new required attribute without a default") {
                _ = try env.openCoordinator(options: migrating, model: required)
            }
            try env.expect(missing.localizedDescription.contains("grade"), "the error names the attribute: \(missing.localizedDescription)")
            try env.expectEqual(env.fileBytes(), before, "the file's bytes after the refused migration")
            let retyped = ConformanceModel.make()
            if let name = retyped.entitiesByName["Item"]?.propertiesByName["name"] as? NSAttributeDescription { name.attributeType = .integer64AttributeType }
            retyped.entities = Array(retyped.entities)
            let changed = try env.expectError([NSInferredMappingModelError], "an attribute whose type changed") {
                _ = try env.openCoordinator(options: migrating, model: retyped)
            }
            try env.expect(changed.localizedDescription.contains("name"), "the error names the attribute: \(changed.localizedDescription)")
            try env.expectEqual(env.fileBytes(), before, "the file's bytes after the refused type change")
            _ = try env.openCoordinator()
        },
    ]
}

import CoreData

/// Whole stores: destroying, replacing and migrating them through the coordinator, which uses the store
/// type's `storeFiles(at:)` and its ordinary reads and writes.
enum StoreFileCases {
    /// Another store URL of the case: a file in the case's directory, or for a store whose URL is not a file
    /// (a database server's), a fresh URL from the configuration; removed with the case either way.
    static func sibling(_ env: ConformanceEnvironment, _ name: String) -> URL {
        guard env.url.isFileURL else { return env.newStoreURL() }
        return env.directory.appendingPathComponent(name + "." + (env.url.pathExtension.isEmpty ? "store" : env.url.pathExtension))
    }

    /// Two owners, items with owners and tags (many-to-many), and Ann's ordered chapters, saved on the
    /// context's queue.
    static func populate(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let ann = Fixtures.owner(context, "Ann"), bob = Fixtures.owner(context, "Bob")
            let red = Fixtures.tag(context, "red"), blue = Fixtures.tag(context, "blue")
            for rank in 0..<4 {
                let item = Fixtures.item(context, "item \(rank)", rank: Int64(rank))
                item.setValue(rank % 2 == 0 ? ann : bob, forKey: "owner")
                item.mutableSetValue(forKey: "tags").addObjects(from: rank == 0 ? [red, blue] : [red])
            }
            ann.setValue(NSOrderedSet(array: ["one", "two", "three"].map { Fixtures.chapter(context, $0) }), forKey: "chapters")
            try context.save()
        }
    }

    /// Fails the case unless the context sees what `populate` saved (read on the context's queue).
    static func expectPopulated(_ env: ConformanceEnvironment, _ context: NSManagedObjectContext, _ what: String) throws {
        try context.performAndWait {
            let owners = try Fixtures.byName(context, "Owner"), items = try Fixtures.byName(context, "Item")
            try env.expectEqual(Set(owners.keys), ["Ann", "Bob"], "\(what): owners")
            try env.expectEqual(Fixtures.names(owners["Ann"]?.value(forKey: "items")), ["item 0", "item 2"], "\(what): Ann's items")
            try env.expectEqual(Fixtures.orderedNames(owners["Ann"]?.value(forKey: "chapters"), key: "title"), ["one", "two", "three"],
                                "\(what): Ann's ordered chapters")
            try env.expectEqual(Fixtures.names(items["item 0"]?.value(forKey: "tags"), key: "label"), ["blue", "red"], "\(what): item 0's tags")
            let red = try env.require(try Fixtures.byName(context, "Tag", key: "label")["red"], "\(what): the red tag")
            try env.expectEqual(Fixtures.names(red.value(forKey: "items")).count, 4, "\(what): the red tag's items")
        }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("add-store/destroy", requires: .persistent) { env in
            let coordinator = try env.openCoordinator()
            try populate(env.context(coordinator))
            try coordinator.destroyPersistentStore(at: env.url, ofType: env.configuration.storeType)
            try env.expect(coordinator.persistentStores.isEmpty, "the destroyed store left the coordinator")
            // Apple's SQLite store leaves its database file truncated to zero bytes; other stores delete theirs.
            let size = (try? FileManager.default.attributesOfItem(atPath: env.url.path)[.size] as? NSNumber)?.intValue
            try env.expect(size == nil || size == 0, "the store file is gone or empty")
            try coordinator.destroyPersistentStore(at: env.url, ofType: env.configuration.storeType)
            let fresh = try env.openCoordinator()
            try env.expectEqual(try env.withNewContext(fresh) { try $0.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) }, 0,
                                "a store added where one was destroyed is empty")
        },
        ConformanceCase("add-store/replace", requires: .persistent) { env in
            let source = try env.openCoordinator()
            try populate(env.context(source))
            for store in source.persistentStores { try source.remove(store) }
            let destination = sibling(env, "destination")
            let other = try env.openCoordinator(at: destination)
            let context = env.context(other)
            try context.performAndWait {
                _ = Fixtures.item(context, "replaced", rank: 99)
                try context.save()
            }
            for store in other.persistentStores { try other.remove(store) }
            try other.replacePersistentStore(at: destination, withPersistentStoreFrom: env.url, ofType: env.configuration.storeType)
            try expectPopulated(env, env.context(try env.openCoordinator(at: destination)), "the replaced store")
            try env.expectEqual(try expectNoItem(named: "replaced", env.context(try env.openCoordinator())), true, "the source is unchanged")
        },
        ConformanceCase("add-store/migrate") { env in
            let coordinator = try env.openCoordinator()
            let old = try env.require(coordinator.persistentStores.first, "the store")
            var metadata = coordinator.metadata(for: old)
            metadata["custom"] = "kept"
            coordinator.setMetadata(metadata, for: old)
            try populate(env.context(coordinator))
            let target = sibling(env, "migrated")
            let migrated = try coordinator.migratePersistentStore(old, to: target, options: env.configuration.options,
                                                                  withType: env.configuration.storeType)
            try env.expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores[0] === migrated,
                           "the new store replaces the old one in the coordinator")
            try expectPopulated(env, env.context(coordinator), "the migrated store")
            try env.expectEqual(coordinator.metadata(for: migrated)["custom"] as? String, "kept", "user metadata")
            if env.capabilities.contains(.persistent) {
                try env.expectError([NSPersistentStoreOperationError], "migrating over an existing file") {
                    _ = try coordinator.migratePersistentStore(migrated, to: env.url, withType: env.configuration.storeType)
                }
                try env.expect(coordinator.persistentStores.first === migrated, "a failed migration leaves the store added")
                for store in coordinator.persistentStores { try coordinator.remove(store) }
                try expectPopulated(env, env.context(try env.openCoordinator(at: target)), "the migrated store after a reopen")
            }
        },
        ConformanceCase("add-store/migrate-to-a-read-only-copy", requires: .persistent) { env in
            let coordinator = try env.openCoordinator()
            let old = try env.require(coordinator.persistentStores.first, "the store")
            try populate(env.context(coordinator))
            var options = env.configuration.options
            options[NSReadOnlyPersistentStoreOption] = true
            let target = sibling(env, "backup")
            let copy = try coordinator.migratePersistentStore(old, to: target, options: options, withType: env.configuration.storeType)
            try env.expect(copy.isReadOnly, "the copy is added read-only, as its options ask")
            try env.expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores[0] === copy,
                           "the copy replaces the old store in the coordinator")
            try expectPopulated(env, env.context(coordinator), "the read-only copy")
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.item(context, "not saved", rank: 9)
                try env.expectError([NSPersistentStoreSaveError], "saving into the read-only copy") { try context.save() }
            }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            try expectPopulated(env, env.context(try env.openCoordinator(at: target)), "the copy after a reopen")
            try expectPopulated(env, env.context(try env.openCoordinator()), "the old store")
        },
        // Apple's setURL(_:for:): an atomic store writes its next save at the new URL; a store that writes in
        // place opens the store that must already be there. A copy of the store's files is at the new URL, as
        // an app that moved or copied the store would leave it, so both kinds must go on from there.
        ConformanceCase("add-store/set-url", requires: .persistent, adopting: [.relocating]) { env in
            let coordinator = try env.openCoordinator()
            let store = try env.require(coordinator.persistentStores.first, "the store")
            let context = env.context(coordinator)
            try populate(context)
            let target = sibling(env, "moved")
            let backend = try env.require(NSPersistentStoreCoordinator.registeredStoreTypes[env.configuration.storeType] as? PersistentStoreBackend.Type,
                                          "the store class")
            for (file, copy) in zip(backend.storeFiles(at: env.url), backend.storeFiles(at: target))
            where FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.copyItem(at: file, to: copy)
            }
            try env.expect(coordinator.setURL(target, for: store), "setURL(_:for:) moves the store to its copy")
            try env.expectEqual(store.url?.standardizedFileURL, target.standardizedFileURL, "the store's URL")
            try env.expect(coordinator.persistentStore(for: target) === store, "persistentStore(for:) finds it at the new URL")
            try context.performAndWait {
                _ = Fixtures.item(context, "after the move", rank: 9)
                try context.save()
            }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            let moved = env.context(try env.openCoordinator(at: target))
            try expectPopulated(env, moved, "the store at the new URL")
            try env.expect(try !expectNoItem(named: "after the move", moved), "the save after the move is at the new URL")
            let old = env.context(try env.openCoordinator())
            try expectPopulated(env, old, "the store at the old URL")
            try env.expect(try expectNoItem(named: "after the move", old), "the old URL does not get the save after the move")
        },
    ]

    /// Whether the context finds no item of that name (read on the context's queue).
    private static func expectNoItem(named name: String, _ context: NSManagedObjectContext) throws -> Bool {
        try context.performAndWait { try Fixtures.byName(context, "Item")[name] == nil }
    }
}

import CoreData

/// Adding stores: creating, reopening, metadata, bad files, options.
enum AddStoreCases {
    static let all: [ConformanceCase] = [
        ConformanceCase("add-store/new-store") { env in
            let coordinator = try env.openCoordinator()
            try env.expectEqual(coordinator.persistentStores.count, 1, "number of stores")
            let store = coordinator.persistentStores[0]
            try env.expectEqual(store.type, env.configuration.storeType, "store type")
            try env.expect(store.persistentStoreCoordinator === coordinator, "the store knows its coordinator")
            try env.expect(coordinator.persistentStore(for: env.url) === store, "persistentStore(for:) finds the store by URL")
            try coordinator.remove(store)
            try env.expectEqual(coordinator.persistentStores.count, 0, "stores after remove")
        },
        ConformanceCase("add-store/metadata") { env in
            let coordinator = try env.openCoordinator()
            let store = coordinator.persistentStores[0]
            let metadata = coordinator.metadata(for: store)
            try env.expectEqual(metadata[NSStoreTypeKey] as? String, env.configuration.storeType, "NSStoreType")
            let uuid = metadata[NSStoreUUIDKey] as? String
            try env.expect(uuid.map { !$0.isEmpty } ?? false, "NSStoreUUID is set")
            try env.expectEqual(store.identifier, uuid, "store identifier is its UUID")
            var updated = metadata
            updated["ConformanceKey"] = "value"
            coordinator.setMetadata(updated, for: store)
            try env.expectEqual(coordinator.metadata(for: store)["ConformanceKey"] as? String, "value", "metadata after setMetadata")
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.owner(context, "Metadata")
                try context.save()
            }
            guard env.capabilities.contains(.persistent) else { return }
            let reopened = try env.reopenedContext(or: coordinator)
            guard let reopenedStore = reopened.persistentStoreCoordinator?.persistentStores.first else {
                return try env.expect(false, "the reopened coordinator has a store")
            }
            let again = reopened.persistentStoreCoordinator!.metadata(for: reopenedStore)
            try env.expectEqual(again[NSStoreUUIDKey] as? String, uuid, "NSStoreUUID after reopen")
            try env.expectEqual(again["ConformanceKey"] as? String, "value", "custom metadata after reopen")
            let offline = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: env.configuration.storeType, at: env.url)
            try env.expectEqual(offline[NSStoreUUIDKey] as? String, uuid, "metadataForPersistentStore NSStoreUUID")
            try env.expectEqual(offline[NSStoreTypeKey] as? String, env.configuration.storeType, "metadataForPersistentStore NSStoreType")
        },
        ConformanceCase("add-store/metadata-hashes") { env in
            let coordinator = try env.openCoordinator()
            func check(_ metadata: [String: Any], _ when: String) throws {
                let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]
                for entity in env.model.entities {
                    let name = entity.name ?? ""
                    try env.expect(hashes[name] as? Data == entity.versionHash, "\(when): NSStoreModelVersionHashes has \(name)'s version hash")
                }
            }
            try check(coordinator.metadata(for: coordinator.persistentStores[0]), "a new store")
            guard env.capabilities.contains(.persistent) else { return }
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.owner(context, "Hashes")
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            guard let again = reopened.persistentStoreCoordinator, let store = again.persistentStores.first else {
                return try env.expect(false, "the reopened coordinator has a store")
            }
            try check(again.metadata(for: store), "after a reopen")
            try check(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: env.configuration.storeType, at: env.url), "metadataForPersistentStore")
        },
        ConformanceCase("add-store/reopen", requires: .persistent) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                for index in 0..<5 { _ = Fixtures.item(context, "item \(index)", rank: Int64(index)) }
                try context.save()
            }
            let reopened = try env.reopenedContext(or: coordinator)
            try reopened.performAndWait {
                let names = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }
                try env.expectEqual(Set(names), Set((0..<5).map { "item \($0)" }), "items after reopen")
            }
        },
        ConformanceCase("add-store/garbage-file", requires: .persistsToFile) { env in
            var generator = SplitMix(seed: 7)
            let garbage = Data((0..<8192).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            try garbage.write(to: env.url)
            try env.expectError([NSPersistentStoreInvalidTypeError, NSFileReadCorruptFileError, NSPersistentStoreIncompatibleVersionHashError],
                                "adding a store over a file of random bytes") { _ = try env.openCoordinator() }
            try env.expectEqual(env.fileBytes(), garbage, "the file's bytes after the failed add")
            let text = Data("this is not a store\n".utf8)
            try text.write(to: env.url)
            try env.expectError([NSPersistentStoreInvalidTypeError, NSFileReadCorruptFileError], "adding a store over a text file") {
                _ = try env.openCoordinator()
            }
            try env.expectEqual(env.fileBytes(), text, "the text file's bytes after the failed add")
        },
        ConformanceCase("add-store/other-type-file", requires: .persistsToFile) { env in
            let others = [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType].filter {
                $0 != env.configuration.storeType && NSPersistentStoreCoordinator.registeredStoreTypes[$0] != nil
            }
            guard let other = others.first else {
                throw ConformanceSkip(caseName: env.caseName, reason: "no other file-backed store type is registered")
            }
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: env.model)
            let store = try coordinator.addPersistentStore(ofType: other, configurationName: nil, at: env.url, options: nil)
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.owner(context, "Other")
                try context.save()
            }
            try coordinator.remove(store)
            let before = env.fileBytes()
            try env.expectError([NSPersistentStoreInvalidTypeError, NSPersistentStoreTypeMismatchError, NSFileReadCorruptFileError],
                                "adding a \(env.configuration.storeType) store over a \(other) store") { _ = try env.openCoordinator() }
            try env.expectEqual(env.fileBytes(), before, "the \(other) file's bytes after the failed add")
        },
        ConformanceCase("add-store/missing-directory", requires: .persistsToFile) { env in
            let nested = env.directory.appendingPathComponent("a/b/c").appendingPathComponent(env.url.lastPathComponent)
            let coordinator = try env.openCoordinator(at: nested)
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.owner(context, "Nested")
                try context.save()
            }
            try env.expect(FileManager.default.fileExists(atPath: nested.path), "the store file exists in the created directory")
        },
        ConformanceCase("add-store/same-url-twice", requires: .persistent) { env in
            let coordinator = try env.openCoordinator()
            try env.expectError([NSPersistentStoreOperationError], "adding the same URL twice to one coordinator") {
                try coordinator.addPersistentStore(ofType: env.configuration.storeType, configurationName: nil, at: env.url, options: env.configuration.options)
            }
            try env.expectEqual(coordinator.persistentStores.count, 1, "stores after the refused add")
        },
        ConformanceCase("add-store/read-only", requires: .persistent) { env in
            let writer = try env.openCoordinator()
            let context = env.context(writer)
            try context.performAndWait {
                _ = Fixtures.owner(context, "Before")
                try context.save()
            }
            for store in writer.persistentStores { try writer.remove(store) }
            let before = env.fileBytes()
            let reader = try env.openCoordinator(options: [NSReadOnlyPersistentStoreOption: true])
            try env.expect(reader.persistentStores.first?.isReadOnly == true, "the store reports isReadOnly")
            let readContext = env.context(reader)
            try readContext.performAndWait {
                try env.expectEqual(try readContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")), 1, "owners readable")
                _ = Fixtures.owner(readContext, "After")
                try env.expectError([NSPersistentStoreSaveError], "saving to a read-only store") { try readContext.save() }
                try env.expectError([NSPersistentStoreSaveError], "batch deleting in a read-only store") {
                    _ = try readContext.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Owner")))
                }
            }
            try env.expectEqual(env.fileBytes(), before, "the file's bytes after the refused save")
        },
        ConformanceCase("add-store/unknown-type") { env in
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: env.model)
            try env.expectError([NSPersistentStoreInvalidTypeError], "adding a store of an unregistered type") {
                try coordinator.addPersistentStore(ofType: "NoSuchStoreType", configurationName: nil, at: env.url, options: nil)
            }
        },
        ConformanceCase("add-store/lightweight-migration", requires: .persistent, adopting: [.lightweightMigrating]) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            let uri = try context.performAndWait {
                let owner = Fixtures.owner(context, "Kept")
                let item = Fixtures.item(context, "thing", rank: 3)
                item.setValue(owner, forKey: "owner")
                item.setValue("gone soon", forKey: "string")
                try context.save()
                return item.objectID.uriRepresentation().absoluteString
            }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            // Version 2: Owner gains an optional attribute, Item loses one, and a new entity appears.
            let changed = ConformanceModel.make()
            changed.entitiesByName["Owner"]?.properties.append(NSAttributeDescription(name: "nickname", type: .string))
            if let itemEntity = changed.entitiesByName["Item"] {
                itemEntity.properties.removeAll { $0.name == "string" }
            }
            let shelf = NSEntityDescription(name: "Shelf")
            shelf.properties = [NSAttributeDescription(name: "label", type: .string)]
            changed.entities.append(shelf)
            let migrated = try env.openCoordinator(options: [NSMigratePersistentStoresAutomaticallyOption: true,
                                                             NSInferMappingModelAutomaticallyOption: true], model: changed)
            let after = env.context(migrated)
            try after.performAndWait {
                let items = try Fixtures.byName(after, "Item")
                try env.expectEqual(items["thing"]?.value(forKey: "rank") as? Int64, 3, "kept attribute after migration")
                try env.expectEqual((items["thing"]?.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String, "Kept", "kept relationship")
                try env.expectEqual(items["thing"]?.objectID.uriRepresentation().absoluteString, uri, "object URI after migration")
                let owners = try Fixtures.byName(after, "Owner")
                try env.expect(owners["Kept"]?.value(forKey: "nickname") == nil, "a new optional attribute starts nil")
                owners["Kept"]?.setValue("K", forKey: "nickname")
                let newShelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: after)
                newShelf.setValue("top", forKey: "label")
                try after.save()
            }
            for store in migrated.persistentStores { try migrated.remove(store) }
            let reopened = env.context(try env.openCoordinator(model: changed))
            try reopened.performAndWait {
                try env.expectEqual(try Fixtures.byName(reopened, "Owner")["Kept"]?.value(forKey: "nickname") as? String, "K", "new attribute saved after migration")
                try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Shelf")), 1, "new entity saved after migration")
            }
        },
        ConformanceCase("add-store/incompatible-model", requires: .persistent) { env in
            let coordinator = try env.openCoordinator()
            let context = env.context(coordinator)
            try context.performAndWait {
                _ = Fixtures.owner(context, "Old")
                try context.save()
            }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            let before = env.fileBytes()
            let changed = ConformanceModel.make()
            changed.entitiesByName["Owner"]?.properties.append(NSAttributeDescription(name: "nickname", type: .integer32, isOptional: false))
            try env.expectError([NSPersistentStoreIncompatibleVersionHashError, NSPersistentStoreIncompatibleSchemaError],
                                "opening the store with a changed model and no migration options") {
                _ = try env.openCoordinator(model: changed)
            }
            try env.expectEqual(env.fileBytes(), before, "the file's bytes after the refused open")
        },
    ]
}

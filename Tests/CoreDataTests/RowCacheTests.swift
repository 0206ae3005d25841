@testable import CoreData
import Foundation
import Testing

/// The coordinator's row cache (`RowCache`): shared by the coordinator's contexts, updated by saves, and holding
/// only the rows objects use. The conformance cases `faults/*` check what users see on every store; these check
/// the cache itself.
@Suite struct RowCacheTests {
    /// A coordinator's context that saved `count` authors named "a0", "a1", …, reset so it holds no objects.
    private func savedAuthors(_ count: Int) throws -> NSManagedObjectContext {
        let context = try inMemoryContext()
        try context.performAndWait {
            for index in 0..<count {
                let author = Author(context: context)
                author.name = "a\(index)"
                author.age = Int64(index)
            }
            try context.save()
            context.reset()
        }
        return context
    }

    private func newContext(on other: NSManagedObjectContext) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = other.persistentStoreCoordinator
        return context
    }

    private func byAge() -> NSFetchRequest<Author> {
        let request = NSFetchRequest<Author>(entityName: "Author")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        return request
    }

    @Test func anObjectsFaultStateIsOneWord() {
        #expect(MemoryLayout<FaultState>.size == 8, "holding a snapshot costs an object no more than a fault state did")
    }

    @Test func theCacheLetsGoOfRowsWhenTheirObjectsAreReleased() throws {
        let writer = try savedAuthors(3_000)
        let cache = try #require(writer.persistentStoreCoordinator).rowCache
        cache.sweep()
        #expect(cache.count == 0, "the writer's objects are gone, and with them the rows it saved")
        let reader = newContext(on: writer)
        try reader.performAndWait {
            var authors: [Author]? = try reader.fetch(byAge())
            #expect(authors?.count == 3_000)
            cache.sweep()
            #expect(cache.count == 3_000, "each fault holds its row")
            #expect(authors?[0].name == "a0")
            cache.sweep()
            #expect(cache.count == 3_000, "a filled object holds its row too")
            for author in authors?.prefix(1_000) ?? [] { reader.refresh(author, mergeChanges: false) }
            cache.sweep()
            #expect(cache.count == 2_000, "refresh(_:mergeChanges: false) lets go of the row")
            authors = nil
            reader.reset()
        }
        cache.sweep()
        #expect(cache.count == 0, "released objects let go of their rows")
    }

    @Test func aSweepRunsWhenTheCacheHasDoubled() throws {
        let writer = try savedAuthors(5_000)
        let cache = try #require(writer.persistentStoreCoordinator).rowCache
        let reader = newContext(on: writer)
        cache.sweep()  // the rows the writer saved: its objects are gone
        try reader.performAndWait {
            let request = byAge()
            request.fetchBatchSize = 100
            var peak = 0
            for author in try reader.fetch(request) {
                _ = author.name
                reader.refresh(author, mergeChanges: false)
                peak = max(peak, cache.count)
            }
            #expect(peak <= 2 * RowCache.sweepThreshold + 100, "walking a batched array keeps the cache small: \(peak) rows at most")
        }
    }

    @Test func aRowOneContextReadFillsAnotherContextsFault() throws {
        let writer = try savedAuthors(2)
        let first = newContext(on: writer)
        let second = newContext(on: writer)
        let (fault, id) = try first.performAndWait {
            let fault = try #require(try first.fetch(byAge()).first)
            return (fault, fault.objectID)
        }
        let held = first.performAndWait { fault.faultState.heldSnapshot }
        #expect(held != nil, "a fetched fault holds its row's snapshot")
        try second.performAndWait {
            let object = try #require(second.object(with: id) as? Author)
            #expect(object.isFault)
            #expect(object.name == "a0")
            #expect(object.faultState.heldSnapshot === held, "the other context's fault filled from the cached row, without reading the store")
        }
    }

    @Test func aSaveReplacesTheCachedRowAndTheSavedObjectHoldsIt() throws {
        let writer = try savedAuthors(1)
        let reader = newContext(on: writer)
        let fault = try reader.performAndWait { try #require(try reader.fetch(byAge()).first) }
        let saved = try writer.performAndWait {
            let author = try #require(try writer.fetch(byAge()).first)
            author.name = "renamed"
            try writer.save()
            return author
        }
        let savedSnapshot = writer.performAndWait { saved.faultState.heldSnapshot }
        #expect(savedSnapshot?.version == 2, "the saved object holds the row it wrote, at its new version")
        #expect(savedSnapshot?.isCacheNewest == true)
        let fetched = reader.performAndWait { fault.faultState.heldSnapshot }
        #expect(fetched?.isCacheNewest == false, "the save superseded the snapshot the reader's fault holds")
        reader.performAndWait {
            #expect(fault.name == "renamed", "the reader's fault shows what the other context saved")
            #expect(fault.faultState.heldSnapshot === savedSnapshot)
            #expect(fault.committedValues(forKeys: ["name"])["name"] as? String == "renamed")
        }
    }

    @Test func aBatchUpdateDropsTheRowsItChanged() throws {
        let writer = try savedAuthors(2)
        let reader = newContext(on: writer)
        let faults = try reader.performAndWait { try reader.fetch(byAge()) }
        let held = reader.performAndWait { faults.map { $0.faultState.heldSnapshot?.isCacheNewest } }
        #expect(held == [true, true])
        try writer.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Author")
            update.predicate = NSPredicate(format: "age == 0")
            update.propertiesToUpdate = ["name": "batch"]
            _ = try writer.execute(update)
        }
        #expect(reader.performAndWait { faults.map(\.name) } == ["batch", "a1"], "a fault whose row a batch update changed reads the store")
    }

    @Test func aFaultWhoseSnapshotIsStillTheNewestFillsFromIt() throws {
        let writer = try savedAuthors(2)
        let reader = newContext(on: writer)
        try reader.performAndWait {
            let faults = try reader.fetch(byAge())
            let held = try #require(faults[0].faultState.heldSnapshot)
            #expect(held.isCacheNewest, "a fetched row is the cache's newest")
            #expect(faults[0].name == "a0")
            #expect(!faults[0].isFault)
            #expect(faults[0].faultState.heldSnapshot === held, "the fault filled from its own snapshot, which it still holds")
            #expect(held.isCacheNewest)
        }
    }

    @Test func aFaultWhoseSnapshotAnotherReadSupersededFillsFromTheNewerOne() throws {
        let writer = try savedAuthors(1)
        let first = newContext(on: writer)
        let second = newContext(on: writer)
        let fault = try first.performAndWait { try #require(try first.fetch(byAge()).first) }
        let (later, newer) = try second.performAndWait { () throws -> (Author, RowSnapshot?) in
            let later = try #require(try second.fetch(byAge()).first)
            return (later, later.faultState.heldSnapshot)
        }
        first.performAndWait {
            #expect(fault.faultState.heldSnapshot?.isCacheNewest == false, "the second fetch replaced the row in the cache")
            #expect(fault.name == "a0")
            #expect(fault.faultState.heldSnapshot === newer, "the fault filled from the cache's newest snapshot")
        }
        second.performAndWait { #expect(later.name == "a0") }
    }

    @Test func aFaultWhoseRowWasForgottenReadsTheStore() throws {
        let writer = try savedAuthors(2)
        let coordinator = try #require(writer.persistentStoreCoordinator)
        let reader = newContext(on: writer)
        let (faults, ids) = try reader.performAndWait { () throws -> ([Author], [NSManagedObjectID]) in
            let faults = try reader.fetch(byAge())
            return (faults, faults.map(\.objectID))
        }
        coordinator.forgetCachedRows(of: [ids[0]])
        reader.performAndWait {
            #expect(faults[0].faultState.heldSnapshot?.isCacheNewest == false, "forgetting a row clears its snapshot's flag")
            #expect(faults[1].faultState.heldSnapshot?.isCacheNewest == true, "and only its own")
            #expect(faults[0].name == "a0")
            #expect(faults[0].faultState.heldSnapshot?.isCacheNewest == true, "the fault read the store and holds the row it read")
        }
        let store = try #require(coordinator.persistentStores.first)
        coordinator.rowCache.forgetAll(in: store)
        reader.performAndWait {
            #expect(faults[1].faultState.heldSnapshot?.isCacheNewest == false, "forgetting a store's rows clears their flags")
            #expect(faults[1].name == "a1")
        }
    }

    @Test func theStalenessIntervalDecidesEvenForTheNewestSnapshot() throws {
        let writer = try savedAuthors(1)
        func firedFault(staleness: TimeInterval, waiting: TimeInterval = 0) throws -> (held: RowSnapshot?, after: RowSnapshot?, name: String?) {
            let reader = newContext(on: writer)
            return try reader.performAndWait {
                reader.stalenessInterval = staleness
                let fault = try #require(try reader.fetch(byAge()).first)
                let held = fault.faultState.heldSnapshot
                #expect(held?.isCacheNewest == true)
                if waiting > 0 { Thread.sleep(forTimeInterval: waiting) }
                let name = fault.name
                return (held, fault.faultState.heldSnapshot, name)
            }
        }
        let any = try firedFault(staleness: -1)
        #expect(any.name == "a0" && any.after === any.held, "a negative interval fills from the fault's own snapshot")
        let recent = try firedFault(staleness: 3_600)
        #expect(recent.name == "a0" && recent.after === recent.held, "a snapshot younger than the interval fills the fault")
        let none = try firedFault(staleness: 0)
        #expect(none.name == "a0" && none.after !== none.held && none.after != nil, "0 reads the store, though the snapshot is the newest")
        let old = try firedFault(staleness: 0.01, waiting: 0.05)
        #expect(old.name == "a0" && old.after !== old.held && old.after != nil, "a snapshot older than the interval is not used: the store is read")
    }

    /// Two stores of one coordinator whose rows have the same keys (each store's first `Note` has primary key 1):
    /// the cache keeps each store's rows apart, so a fault fills with its own store's values, in a second context
    /// (from the cache) as in the first, after the other store is removed, and after both are opened again.
    @Test func storesWithTheSameKeysKeepTheirOwnRows() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("RowCacheTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "text", type: .string)]
        let model = NSManagedObjectModel(entities: [note])
        let urls = [folder.appendingPathComponent("first.sqlite"), folder.appendingPathComponent("second.sqlite")]
        func texts(in coordinator: NSPersistentStoreCoordinator) throws -> [String: String] {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return try context.performAndWait {
                var found: [String: String] = [:]
                for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) {
                    #expect(object.isFault, "fetched as a fault holding its row")
                    found[object.objectID.persistentStore?.url?.lastPathComponent ?? "?"] = object.value(forKey: "text") as? String
                }
                return found
            }
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let stores = try urls.map { try coordinator.addPersistentStore(type: .sqlite, at: $0) }
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        let keys = try writer.performAndWait {
            let objects = stores.map { store in
                let object = NSEntityDescription.insertNewObject(forEntityName: "Note", into: writer)
                object.setValue("in \(store.url?.lastPathComponent ?? "?")", forKey: "text")
                writer.assign(object, to: store)
                return object
            }
            try writer.save()
            let keys = objects.map(\.storedObjectKey)
            writer.reset()
            return keys
        }
        #expect(keys[0] != nil && keys[0] == keys[1], "both stores' rows have the same key")
        let expected = ["first.sqlite": "in first.sqlite", "second.sqlite": "in second.sqlite"]
        #expect(try texts(in: coordinator) == expected)
        // The second context's fetch replaces the first's rows in the cache, store by store.
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let kept = try reader.performAndWait { try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) }
        #expect(coordinator.rowCache.count >= 2)
        let held = reader.performAndWait { kept.map { ($0.objectID, $0.faultState.heldSnapshot) } }
        let third = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        third.persistentStoreCoordinator = coordinator
        try third.performAndWait {
            // Faults made by ID, of the same key in each store, fill from the cache with their own store's row.
            for (id, snapshot) in held {
                let object = third.object(with: id)
                #expect(object.value(forKey: "text") as? String == "in \(id.persistentStore?.url?.lastPathComponent ?? "?")")
                #expect(snapshot != nil && object.faultState.heldSnapshot === snapshot, "filled from the row the reader's fetch cached")
            }
        }
        try coordinator.remove(stores[0])
        #expect(try texts(in: coordinator) == ["second.sqlite": "in second.sqlite"], "removing one store leaves the other's rows")
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: model)
        for url in urls { try reopened.addPersistentStore(type: .sqlite, at: url) }
        #expect(try texts(in: reopened) == expected, "each store kept its own row")
    }
}

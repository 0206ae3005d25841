import CoreData
import Foundation
import Testing

/// `NSManagedObjectID`'s `hash` and `isEqual(_:)`, as sets and dictionaries of IDs use them: IDs of one object made
/// separately (from a URI, by a fetch in another context, after a save, after a reopen) are equal, hash equally and
/// find each other; a temporary ID and the permanent ID it became stay unequal (as on Apple's platforms); IDs of
/// one primary key in other entities or other stores are different IDs. SQLite stores in a temporary folder.
@Suite struct ObjectIDHashingTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("object-id-hashing-\(UUID().uuidString)")

    /// A private-queue context on a new coordinator with the SQLite stores `names` in the test's folder.
    private func context(stores names: [String] = ["library.sqlite"]) throws -> NSManagedObjectContext {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: libraryModel())
        for name in names { try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent(name)) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Whether `a` and `b` are equal, hash equally, and each finds the other in a `Set` and as a `Dictionary` key.
    private func sameID(_ a: NSManagedObjectID, _ b: NSManagedObjectID) -> Bool {
        a == b && a.isEqual(b) && b.isEqual(a) && a.hash == b.hash && a.hashValue == b.hashValue
            && Set([a]).contains(b) && Set([b]).contains(a) && [a: "found"][b] == "found"
    }

    /// Whether `a` and `b` are unequal and both stay in a `Set` and a `Dictionary` together.
    private func differentIDs(_ a: NSManagedObjectID, _ b: NSManagedObjectID) -> Bool {
        let dictionary = [a: "a", b: "b"]
        return a != b && !a.isEqual(b) && Set([a, b]).count == 2 && dictionary.count == 2 && dictionary[a] == "a" && dictionary[b] == "b"
    }

    @Test func equalIDsMadeSeparatelyHashEquallyAndFindEachOther() throws {
        let writer = try context()
        let saved: [NSManagedObjectID] = try writer.performAndWait {
            let authors = (0..<50).map { insert("Author", ["name": "author \($0)"], into: writer) }
            try writer.save()
            return authors.map(\.objectID)
        }
        #expect(saved.allSatisfy { !$0.isTemporaryID })
        let coordinator = try #require(writer.persistentStoreCoordinator)

        // From the URI, through the coordinator.
        let fromURIs = saved.map { coordinator.managedObjectID(forURIRepresentation: $0.uriRepresentation()) }
        for (id, fromURI) in zip(saved, fromURIs) { #expect(fromURI.map { sameID(id, $0) } == true) }

        // From a fetch in another context on the same coordinator.
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let fetched = try reader.performAndWait {
            try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).map(\.objectID)
        }
        #expect(Set(fetched) == Set(saved))
        #expect(Set(fetched + saved).count == saved.count)
        let byFetchedID = Dictionary(uniqueKeysWithValues: fetched.map { ($0, $0.uriRepresentation()) })
        for id in saved { #expect(byFetchedID[id] == id.uriRepresentation()) }
        for id in saved { #expect(fetched.contains { sameID(id, $0) }) }

        // After a reopen: the URIs written before resolve to the IDs a fetch makes now.
        let uris = saved.map { $0.uriRepresentation() }
        let reopened = try context()
        let refetched = try reopened.performAndWait {
            try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).map(\.objectID)
        }
        let reopenedCoordinator = try #require(reopened.persistentStoreCoordinator)
        let resolved = uris.compactMap { reopenedCoordinator.managedObjectID(forURIRepresentation: $0) }
        #expect(resolved.count == uris.count)
        #expect(Set(resolved) == Set(refetched))
        for id in resolved { #expect(refetched.contains { sameID(id, $0) }) }
    }

    @Test func aTemporaryIDAndThePermanentIDItBecameStayUnequal() throws {
        let context = try context()
        try context.performAndWait {
            let saved = insert("Author", ["name": "saved"], into: context)
            let obtained = insert("Author", ["name": "obtained"], into: context)
            let temporary = saved.objectID, temporaryObtained = obtained.objectID
            #expect(temporary.isTemporaryID && temporaryObtained.isTemporaryID)
            #expect(sameID(temporary, saved.objectID))
            #expect(sameID(temporary, try #require(temporary.copy() as? NSManagedObjectID)))
            #expect(differentIDs(temporary, temporaryObtained))
            #expect(context.registeredObject(for: temporary) === saved)

            try context.obtainPermanentIDs(for: [obtained])
            #expect(!obtained.objectID.isTemporaryID)
            #expect(differentIDs(temporaryObtained, obtained.objectID))
            try context.save()
            #expect(!saved.objectID.isTemporaryID)
            #expect(differentIDs(temporary, saved.objectID))
            #expect(sameID(saved.objectID, try #require(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: saved.objectID.uriRepresentation()))))
            #expect(context.registeredObject(for: saved.objectID) === saved)
        }
    }

    @Test func oneKeyInOtherEntitiesOrStoresIsAnotherID() throws {
        let context = try context(stores: ["first.sqlite", "second.sqlite"])
        let stores = try #require(context.persistentStoreCoordinator?.persistentStores)
        #expect(stores.count == 2)
        let (ids, keys) = try context.performAndWait { () throws -> ([NSManagedObjectID], [String]) in
            var objects: [NSManagedObject] = []
            for store in stores {
                let author = insert("Author", ["name": "author"], into: context)
                let book = insert("Book", ["title": "book"], into: context)
                context.assign(author, to: store)
                context.assign(book, to: store)
                objects += [author, book]
            }
            try context.save()
            return (objects.map(\.objectID), objects.map { $0.objectID.uriRepresentation().lastPathComponent })
        }
        #expect(Set(keys) == ["p1"])  // the first row of each entity in each store
        #expect(Set(ids).count == 4)
        for (index, id) in ids.enumerated() {
            for other in ids[(index + 1)...] { #expect(differentIDs(id, other)) }
        }
    }
}

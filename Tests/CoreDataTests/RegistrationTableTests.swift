@testable import CoreData
import Testing

/// The context's registration table (`RegistrationTable`): objects found by their IDs through many inserts,
/// removals, growth and sweeps, and objects whose IDs change while registered. The conformance cases
/// `registration/*` check what a user sees on every store; these check the table itself and the ID changes.
@Suite struct RegistrationTableTests {
    /// `count` objects of the library's `Author` entity, each given the key `index + 1` in one store.
    private func keyedObjects(_ count: Int, store: StoreIdentity) throws -> [NSManagedObject] {
        let entity = try #require(libraryModel().entitiesByName["Author"])
        return (0..<count).map { index in
            let object = NSManagedObject(entity: entity, insertInto: nil)
            object.assignKey(ObjectKey(entityNumber: entity.entityNumber, primaryKey: Int64(index + 1)), in: store)
            return object
        }
    }

    private func identity(of object: NSManagedObject) throws -> NSManagedObjectID.Identity {
        try #require(object.assignedIdentity)
    }

    @Test func objectsAreFoundThroughGrowthAndRemovals() throws {
        let store = StoreIdentity(identifier: "A")
        let otherStore = StoreIdentity(identifier: "B")
        let objects = try keyedObjects(5_000, store: store)
        let sameKeysElsewhere = try keyedObjects(100, store: otherStore)
        let table = RegistrationTable()
        for object in objects + sameKeysElsewhere { table.insert(object) }
        #expect(table.count == 5_100)
        for object in objects + sameKeysElsewhere { #expect(try table[identity(of: object)] === object) }

        // Remove every third object, in an order unlike the insertion order, then check every look-up.
        var generator = SplitMix(seed: 12)
        let removed = objects.enumerated().filter { $0.offset % 3 == 0 }.map(\.element).shuffled(using: &generator)
        for object in removed { #expect(try table.remove(identity(of: object)) === object) }
        #expect(table.count == 5_100 - removed.count)
        let removedSet = Set(removed.map(ObjectIdentifier.init))
        for object in objects + sameKeysElsewhere {
            let found = try table[identity(of: object)]
            #expect(removedSet.contains(ObjectIdentifier(object)) ? found == nil : found === object)
        }
        #expect(try table.remove(identity(of: removed[0])) == nil, "removing an object twice finds nothing")
        #expect(Set(table.allObjects.map(ObjectIdentifier.init)) == Set((objects + sameKeysElsewhere).map(ObjectIdentifier.init)).subtracting(removedSet))

        // Inserting an object with the identity of a registered one replaces it.
        let replacement = try keyedObjects(2, store: store)[1]
        table.insert(replacement)
        #expect(try table[identity(of: replacement)] === replacement)
        #expect(table.count == 5_100 - removed.count)

        let kept = try identity(of: objects[1])
        table.removeAll()
        #expect(table.isEmpty && table[kept] == nil)
    }

    @Test func reservedRoomKeepsEveryObjectFindable() throws {
        let table = RegistrationTable()
        let objects = try keyedObjects(3_000, store: StoreIdentity(identifier: "A"))
        for object in objects.prefix(10) { table.insert(object) }
        table.reserveCapacity(3_000)
        for object in objects.dropFirst(10) { table.insert(object) }
        for object in objects { #expect(try table[identity(of: object)] === object) }
    }

    @Test func replacingEveryObjectOfAFullTableDoesNotMoveThem() throws {
        let store = StoreIdentity(identifier: "A")
        let table = RegistrationTable()
        let objects = try keyedObjects(3_000, store: store)
        table.reserveCapacity(3_000)
        for object in objects { table.insert(object) }
        let capacity = table.capacity
        let replacements = try keyedObjects(3_000, store: store)
        for (object, replacement) in zip(objects, replacements) { #expect(table.insert(replacement) === object) }
        #expect(table.capacity == capacity, "a table at its limit replaces elements in place")
        #expect(table.count == 3_000)
        for replacement in replacements { #expect(try table[identity(of: replacement)] === replacement) }

        // A new key past the limit makes it grow, and every element stays findable.
        let more = try keyedObjects(3_001, store: store)[3_000]
        #expect(table.insert(more) == nil)
        #expect(table.count == 3_001 && table.capacity > capacity)
        for object in replacements + [more] { #expect(try table[identity(of: object)] === object) }
    }

    @Test func aSweepRemovesOnlyObjectsNothingElseHolds() throws {
        let table = RegistrationTable()
        var objects: [NSManagedObject?] = []
        var identities: [NSManagedObjectID.Identity] = []
        do {
            let made = try keyedObjects(2_000, store: StoreIdentity(identifier: "A"))
            identities = try made.map { try identity(of: $0) }
            for object in made { table.insert(object) }
            objects = made
        }
        for index in objects.indices where index % 2 == 0 { objects[index] = nil }
        let released = table.removeUnreferenced { _ in true }
        #expect(released.count == 1_000 && table.count == 1_000)
        for (index, identity) in identities.enumerated() {
            #expect(index % 2 == 0 ? table[identity] == nil : table[identity] === objects[index])
        }
        #expect(table.removeUnreferenced { _ in true }.isEmpty, "objects held elsewhere stay")

        // A few leave one by one; the rest stay findable.
        for index in objects.indices where index % 100 == 1 { objects[index] = nil }
        #expect(table.removeUnreferenced { _ in true }.count == 20 && table.count == 980)
        for (index, identity) in identities.enumerated() where index % 2 == 1 {
            #expect(index % 100 == 1 ? table[identity] == nil : table[identity] === objects[index])
        }
    }

    @Test func anObjectWhoseIDBecomesPermanentIsFoundByIt() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "new"
            let temporary = author.objectID
            try context.obtainPermanentIDs(for: [author])
            #expect(!author.objectID.isTemporaryID)
            #expect(context.registeredObject(for: author.objectID) === author)
            #expect(context.registeredObject(for: temporary) == nil, "an inserted object is not found by its former temporary ID")
            try context.save()
            #expect(context.registeredObject(for: author.objectID) === author)
        }
    }

    @Test func aChildsObjectForItsParentsInsertKeepsItsTemporaryID() throws {
        let parent = try inMemoryContext()
        let temporary: NSManagedObjectID = parent.performAndWait {
            let author = Author(context: parent)
            author.name = "unsaved"
            return author.objectID
        }
        let child = childContext(of: parent)
        try child.performAndWait {
            let copy = try child.existingObject(with: temporary)
            #expect(child.registeredObject(for: temporary) === copy)
            try child.obtainPermanentIDs(for: [copy])
            #expect(child.registeredObject(for: copy.objectID) === copy, "found by its new ID")
            #expect(child.registeredObject(for: temporary) === copy, "and still by the temporary ID it was registered by")
            #expect(child.registeredObjects.filter { $0 === copy }.count == 1)
        }
    }

    @Test func manyFetchedObjectsStayFindableAcrossSweeps() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            for index in 0..<3_000 { Author(context: context).name = "a\(index)" }
            try context.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        let request = NSFetchRequest<Author>(entityName: "Author")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let (kept, ids) = try reader.performAndWait {
            let all = try reader.fetch(request)
            return (all.enumerated().filter { $0.offset % 2 == 1 }.map(\.element), all.map(\.objectID))
        }
        // The block's end let go of the objects nothing holds.
        let keptIDs = Set(kept.map(\.objectID))
        try reader.performAndWait {
            for id in ids {
                let registered = reader.registeredObject(for: id)
                #expect(keptIDs.contains(id) ? registered != nil : registered == nil)
            }
            let again = try reader.fetch(request)
            #expect(again.count == 3_000)
            #expect(zip(again.enumerated().filter { $0.offset % 2 == 1 }.map(\.element), kept).allSatisfy { $0 === $1 },
                    "a new fetch returns the objects still held")
            #expect(again.map(\.name) == (0..<3_000).map { "a\($0)" }.sorted())
        }
    }
}

/// A small seeded generator, so a shuffled order is the same on every run.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

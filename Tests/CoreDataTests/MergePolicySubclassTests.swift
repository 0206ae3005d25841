import Foundation
import Testing
import CoreData

/// A policy that adds the context's change of `count` to the stored value instead of overwriting it: two
/// contexts that increment the same counter from the same starting value end with the sum.
final class SummingMergePolicy: NSMergePolicy, @unchecked Sendable {
    let callsSuper: Bool
    private(set) var seen: [NSMergeConflict] = []

    init(callsSuper: Bool) {
        self.callsSuper = callsSuper
        super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    }

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        seen += list
        for conflict in list {
            let stored = (conflict.persistedSnapshot?["count"] as? NSNumber)?.int64Value ?? 0
            let read = (conflict.cachedSnapshot?["count"] as? NSNumber)?.int64Value ?? 0
            let mine = (conflict.sourceObject.value(forKey: "count") as? NSNumber)?.int64Value ?? 0
            conflict.sourceObject.setValue(stored + (mine - read), forKey: "count")
        }
        if callsSuper { try super.resolve(optimisticLockingConflicts: list) }
    }
}

/// A policy that refuses every conflict with an error of its own.
final class RefusingMergePolicy: NSMergePolicy, @unchecked Sendable {
    static let refusal = NSError(domain: "RefusingMergePolicy", code: 7, userInfo: [NSLocalizedDescriptionKey: "refused"])

    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws { throw Self.refusal }
}

/// A policy that records what reaches Apple's older entry point, then resolves as its type does.
final class RecordingMergePolicy: NSMergePolicy, @unchecked Sendable {
    private(set) var lists: [[Any]] = []

    override func resolve(mergeConflicts list: [Any]) throws {
        lists.append(list)
        try super.resolve(mergeConflicts: list)
    }
}

/// Merge policies are strategy objects: a subclass's `resolve` methods decide what a conflicting save writes.
@Suite struct MergePolicySubclassTests {
    /// Counter (name, count) —> Owner (a to-one, for the snapshot's object ID); Owner —< counters.
    static func model() -> NSManagedObjectModel {
        let counter = NSEntityDescription(name: "Counter"), owner = NSEntityDescription(name: "Holder")
        let toOwner = NSRelationshipDescription(name: "holder", destination: owner, toMany: false)
        let counters = NSRelationshipDescription(name: "counters", destination: counter, toMany: true)
        toOwner.inverseRelationship = counters
        counters.inverseRelationship = toOwner
        counter.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "count", type: .integer64), toOwner]
        owner.properties = [NSAttributeDescription(name: "name", type: .string), counters]
        return NSManagedObjectModel(entities: [counter, owner])
    }

    /// A store of `type` (SQLite in a new folder, or in memory) and a way to open it again.
    final class Stack {
        let model = MergePolicySubclassTests.model()
        let type: NSPersistentStore.StoreType
        let url: URL
        var coordinator: NSPersistentStoreCoordinator

        init(_ type: NSPersistentStore.StoreType) throws {
            self.type = type
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("merge-policy-\(UUID().uuidString)")
            url = type == .inMemory ? URL(fileURLWithPath: "/dev/null") : folder.appendingPathComponent("store.sqlite")
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: type, at: url)
        }

        func context(_ policy: Any = NSErrorMergePolicy) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.mergePolicy = policy
            return context
        }

        /// A context on a new coordinator for a file store (a reopen), else on the same one.
        func reopened() throws -> NSManagedObjectContext {
            if type != .inMemory {
                for store in coordinator.persistentStores { try coordinator.remove(store) }
                coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                try coordinator.addPersistentStore(type: type, at: url)
            }
            return context()
        }

        deinit {
            if type != .inMemory { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        }
    }

    /// Saves a counter at 10 and returns its ID.
    static func savedCounter(in stack: Stack) throws -> NSManagedObjectID {
        let setup = stack.context()
        return try setup.performAndWait {
            let holder = NSEntityDescription.insertNewObject(forEntityName: "Holder", into: setup)
            holder.setValue("holder", forKey: "name")
            let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: setup)
            counter.setValue("hits", forKey: "name")
            counter.setValue(Int64(10), forKey: "count")
            counter.setValue(holder, forKey: "holder")
            try setup.save()
            return counter.objectID
        }
    }

    /// The saved count of the counter named "hits", fetched (so it works after a reopen, where IDs are new).
    static func storedCount(_ context: NSManagedObjectContext, _ id: NSManagedObjectID) throws -> Int64? {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
            request.predicate = NSPredicate(format: "name == %@", "hits")
            return (try context.fetch(request).first?.value(forKey: "count") as? NSNumber)?.int64Value
        }
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory], [true, false])
    func summingPolicyAddsBothIncrements(type: NSPersistentStore.StoreType, callsSuper: Bool) throws {
        let stack = try Stack(type)
        let id = try Self.savedCounter(in: stack)
        let policy = SummingMergePolicy(callsSuper: callsSuper)
        let first = stack.context(policy), second = stack.context(policy)
        let mine = try first.performAndWait { try first.existingObject(with: id) }
        let theirs = try second.performAndWait { try second.existingObject(with: id) }
        try first.performAndWait {
            mine.setValue(Int64(13), forKey: "count")  // +3
            try first.save()
        }
        try second.performAndWait {
            theirs.setValue(Int64(15), forKey: "count")  // +5, from the same 10
            try second.save()
        }
        #expect(policy.seen.count == 1, "one conflict, for the second save")
        if let conflict = policy.seen.first {
            #expect(conflict.sourceObject === theirs)
            #expect(conflict.oldVersionNumber == 1 && conflict.newVersionNumber == 2, "read at version 1, the store at 2")
            #expect((conflict.cachedSnapshot?["count"] as? NSNumber)?.int64Value == 10, "what the context read")
            #expect((conflict.persistedSnapshot?["count"] as? NSNumber)?.int64Value == 13, "what the store has")
            #expect((conflict.objectSnapshot?["count"] as? NSNumber)?.int64Value == 15, "what the context holds")
            #expect(conflict.persistedSnapshot?["name"] as? String == "hits", "every attribute is in the snapshot")
            #expect(conflict.persistedSnapshot?["holder"] is NSManagedObjectID, "a to-one is an object ID")
            #expect(conflict.persistedSnapshot?["counters"] == nil, "no to-many relationships")
        }
        #expect(try Self.storedCount(second, id) == 18)
        #expect(try Self.storedCount(try stack.reopened(), id) == 18, "the sum after a reopen")
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func throwingPolicyFailsTheSaveAndWritesNothing(type: NSPersistentStore.StoreType) throws {
        let stack = try Stack(type)
        let id = try Self.savedCounter(in: stack)
        let first = stack.context(), second = stack.context(RefusingMergePolicy())
        let mine = try first.performAndWait { try first.existingObject(with: id) }
        let theirs = try second.performAndWait { try second.existingObject(with: id) }
        try first.performAndWait {
            mine.setValue(Int64(13), forKey: "count")
            try first.save()
        }
        second.performAndWait {
            theirs.setValue(Int64(15), forKey: "count")
            let extra = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: second)
            extra.setValue("unsaved", forKey: "name")
            #expect {
                try second.save()
            } throws: { error in
                (error as NSError).domain == "RefusingMergePolicy" && (error as NSError).code == 7
            }
        }
        let check = try stack.reopened()
        #expect(try Self.storedCount(check, id) == 13, "the other context's value stays")
        let names = try check.performAndWait {
            try check.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["hits"], "the refused save's insert was not written")
    }

    @Test func olderEntryPointReceivesEveryConflict() throws {
        let stack = try Stack(.inMemory)
        let id = try Self.savedCounter(in: stack)
        let policy = RecordingMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
        let first = stack.context(), second = stack.context(policy)
        let mine = try first.performAndWait { try first.existingObject(with: id) }
        let theirs = try second.performAndWait { try second.existingObject(with: id) }
        try first.performAndWait {
            mine.setValue(Int64(13), forKey: "count")
            try first.save()
        }
        try second.performAndWait {
            theirs.setValue(Int64(15), forKey: "count")
            theirs.setValue("renamed", forKey: "name")
            try second.save()
        }
        #expect(policy.lists.count == 1 && (policy.lists.first?.first as? NSMergeConflict)?.sourceObject === theirs,
                "resolve(mergeConflicts:) is called with the NSMergeConflict")
        let check = stack.context()
        try check.performAndWait {
            let stored = try check.existingObject(with: id)
            #expect((stored.value(forKey: "count") as? NSNumber)?.int64Value == 13, "store trump: the store's change wins")
            #expect(stored.value(forKey: "name") as? String == "renamed", "store trump: the context's other change stays")
        }
    }

    @Test func errorPolicyThrowsMergeErrorWithTheConflicts() throws {
        let stack = try Stack(.sqlite)
        let id = try Self.savedCounter(in: stack)
        let first = stack.context(), second = stack.context()
        let mine = try first.performAndWait { try first.existingObject(with: id) }
        let theirs = try second.performAndWait { try second.existingObject(with: id) }
        try first.performAndWait {
            mine.setValue(Int64(13), forKey: "count")
            try first.save()
        }
        second.performAndWait {
            theirs.setValue(Int64(15), forKey: "count")
            do {
                try second.save()
                Issue.record("the save should fail")
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError)
                let list = error.userInfo["conflictList"] as? [NSMergeConflict]
                #expect(list?.count == 1 && list?.first?.sourceObject === theirs && list?.first?.newVersionNumber == 2)
            }
        }
    }
}

/// What the built-in policies do with conflicting deletions.
@Suite struct ConflictingDeletionTests {
    /// One context deletes the counter while another changed it: rollback keeps the object, with the store's
    /// values, in the context; object trump deletes it.
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func rollbackUndoesAStaleDeletionObjectTrumpKeepsIt(type: NSPersistentStore.StoreType) throws {
        for (policy, survives) in [(NSRollbackMergePolicy, true), (NSMergeByPropertyObjectTrumpMergePolicy, false)] as [(Any, Bool)] {
            let stack = try MergePolicySubclassTests.Stack(type)
            let id = try MergePolicySubclassTests.savedCounter(in: stack)
            let first = stack.context(), second = stack.context(policy)
            let mine = try first.performAndWait { try first.existingObject(with: id) }
            let theirs = try second.performAndWait { try second.existingObject(with: id) }
            try first.performAndWait {
                mine.setValue(Int64(13), forKey: "count")
                try first.save()
            }
            try second.performAndWait {
                second.delete(theirs)
                try second.save()
                #expect((theirs.managedObjectContext === second) == survives, "\(policy)")
                if survives {
                    #expect(!theirs.isDeleted && (theirs.value(forKey: "count") as? NSNumber)?.int64Value == 13, "the store's values")
                }
            }
            let stored = try MergePolicySubclassTests.storedCount(try stack.reopened(), id)
            #expect(stored == (survives ? 13 : nil), "\(policy): after a reopen")
        }
    }
}

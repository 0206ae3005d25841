import CoreData
import Dispatch

/// Saves from several contexts at once that conflict on shared objects: under every merge policy but
/// `NSErrorMergePolicy` each save succeeds, and both sides of every relationship agree afterwards.
enum ConcurrentSaveCases {
    /// How many conflicting saves each of the 8 contexts makes: `COREDATA_STRESS_SAVES` when set (the issue's
    /// target is 1000), else 20, which keeps the case to a few seconds per store.
    static var savesPerContext: Int {
        ProcessInfo.processInfo.environment["COREDATA_STRESS_SAVES"].flatMap(Int.init).map { max(1, $0) } ?? 20
    }

    /// The policies the contexts use, one per context in turn.
    static var policies: [(name: String, policy: Any)] {
        [("object trump", NSMergeByPropertyObjectTrumpMergePolicy), ("store trump", NSMergeByPropertyStoreTrumpMergePolicy),
         ("overwrite", NSOverwriteMergePolicy), ("rollback", NSRollbackMergePolicy)]
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("save/concurrent-conflicting-saves") { env in
            let coordinator = try env.openCoordinator()
            let setup = env.context(coordinator)
            let (publisherID, sharedID) = try setup.performAndWait {
                let publisher = Fixtures.owner(setup, "Publisher")
                let shared = Fixtures.tag(setup, "shared")
                try setup.save()
                return (publisher.objectID, shared.objectID)
            }
            let saves = savesPerContext
            let contexts = (0..<8).map { index -> NSManagedObjectContext in
                let context = env.context(coordinator)
                context.performAndWait { context.mergePolicy = policies[index % policies.count].policy }
                return context
            }
            let failures = FailureList()
            // Each context inserts items linked to the one owner and the one tag, saving after each insert:
            // every save conflicts on the owner and the tag, whose to-many relationships every save changes.
            DispatchQueue.concurrentPerform(iterations: contexts.count) { index in
                let context = contexts[index]
                context.performAndWait {
                    do {
                        let owner = try context.existingObject(with: publisherID)
                        let tag = try context.existingObject(with: sharedID)
                        for step in 0..<saves {
                            let item = Fixtures.item(context, "c\(index)-\(step)", rank: Int64(step))
                            item.setValue(owner, forKey: "owner")
                            item.setValue(Set([tag]), forKey: "tags")
                            try context.save()
                        }
                    } catch {
                        failures.add("context \(index) (\(policies[index % policies.count].name)): \(error)")
                    }
                }
            }
            try env.expect(failures.all.isEmpty, "every save under a resolving policy succeeds: \(failures.all.prefix(3))")
            let expected = Set((0..<contexts.count).flatMap { index in (0..<saves).map { "c\(index)-\($0)" } })
            try checkSharedRelationships(env, env.context(coordinator), expected: expected, what: "after the saves")
            try checkSharedRelationships(env, try env.reopenedContext(or: coordinator), expected: expected, what: "after a reopen")
        },
    ]

    /// Checks that the items are exactly `expected`, each with the owner and the tag, and that the owner's and the
    /// tag's to-many relationships hold exactly them.
    private static func checkSharedRelationships(_ env: ConformanceEnvironment, _ context: NSManagedObjectContext,
                                                 expected: Set<String>, what: String) throws {
        try context.performAndWait {
            let items = try Fixtures.byName(context, "Item")
            try env.expectEqual(items.count, expected.count, "\(what): the number of items")
            try env.expect(Set(items.keys) == expected, "\(what): the items saved are the items inserted")
            let wrongOwner = items.values.filter { ($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String != "Publisher" }
            try env.expectEqual(wrongOwner.count, 0, "\(what): items whose owner is not the publisher")
            let wrongTags = items.values.filter { Fixtures.names($0.value(forKey: "tags"), key: "label") != ["shared"] }
            try env.expectEqual(wrongTags.count, 0, "\(what): items whose tags are not the shared tag")
            let owner = try env.require(try Fixtures.byName(context, "Owner")["Publisher"], "\(what): the publisher")
            let ownerItems = Fixtures.names(owner.value(forKey: "items"))
            try env.expectEqual(ownerItems.count, expected.count, "\(what): the publisher's items")
            try env.expect(Set(ownerItems) == expected, "\(what): the publisher's items are every item")
            let tag = try env.require(try Fixtures.byName(context, "Tag", key: "label")["shared"], "\(what): the tag")
            let tagItems = Fixtures.names(tag.value(forKey: "items"))
            try env.expectEqual(tagItems.count, expected.count, "\(what): the tag's items")
            try env.expect(Set(tagItems) == expected, "\(what): the tag's items are every item")
        }
    }
}

/// Failures collected from several threads.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []

    func add(_ failure: String) {
        lock.lock()
        defer { lock.unlock() }
        failures.append(failure)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return failures
    }
}

import CoreData
import Synchronization

/// Persistent history (`NSPersistentHistoryTrackingKey`), for stores whose type adopts
/// `PersistentHistoryBackend` (a store that does not records nothing, and history requests find no
/// transactions): one transaction per save with its author and context name, one change per object, fetching
/// after a token, a transaction or a date, and deleting before a token or a date.
enum HistoryCases {
    /// The option that turns history recording on.
    static var tracking: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true as NSNumber] }

    /// The transactions (with their changes) that `request` fetches.
    static func transactions(_ context: NSManagedObjectContext, _ request: NSPersistentHistoryChangeRequest) throws -> [NSPersistentHistoryTransaction] {
        request.resultType = .transactionsAndChanges
        return (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
    }

    /// The number `request` reports (a deletion's count of transactions).
    static func count(_ context: NSManagedObjectContext, _ request: NSPersistentHistoryChangeRequest) throws -> Int? {
        request.resultType = .count
        return ((try context.execute(request) as? NSPersistentHistoryResult)?.result as? NSNumber)?.intValue
    }

    /// Three saves by the "editor" context as author "importer": two owners inserted, one renamed, one deleted.
    /// Returns the URIs of the two owners, and the history token after the first save.
    static func threeSaves(_ env: ConformanceEnvironment, _ coordinator: NSPersistentStoreCoordinator) throws -> (ann: String, bob: String, afterFirst: NSPersistentHistoryToken?) {
        let context = env.context(coordinator)
        return try context.performAndWait {
            context.name = "editor"
            context.transactionAuthor = "importer"
            let ann = Fixtures.owner(context, "Ann"), bob = Fixtures.owner(context, "Bob")
            try context.save()
            let afterFirst = coordinator.currentPersistentHistoryToken(fromStores: nil)
            ann.setValue("Anne", forKey: "name")
            try context.save()
            context.delete(bob)
            try context.save()
            return (ann.objectID.uriRepresentation().absoluteString, bob.objectID.uriRepresentation().absoluteString, afterFirst)
        }
    }

    /// A context on the case's store with history tracking: on a new coordinator when the store keeps its data.
    static func reader(_ env: ConformanceEnvironment, _ writer: NSPersistentStoreCoordinator) throws -> NSManagedObjectContext {
        guard env.capabilities.contains(.persistent) else { return env.context(writer) }
        for store in writer.persistentStores { try writer.remove(store) }
        return env.context(try env.openCoordinator(options: tracking))
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("history/transactions-and-changes-per-save", adopting: [.persistentHistory]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let saved = try threeSaves(env, writer)
            let context = try reader(env, writer)
            try context.performAndWait {
                let all = try transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
                try env.expectEqual(all.count, 3, "one transaction per save, also after a reopen")
                let numbers = all.map(\.transactionNumber)
                try env.expectEqual(numbers, numbers.sorted(), "transactions oldest first")
                try env.expectEqual(Set(numbers).count, 3, "distinct transaction numbers")
                try env.expect(all.allSatisfy { $0.author == "importer" }, "each transaction's author: \(all.map(\.author))")
                try env.expect(all.allSatisfy { $0.contextName == "editor" }, "each transaction's context name: \(all.map(\.contextName))")
                try env.expect(zip(all, all.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp }, "timestamps in order")
                let changes = all.map { ($0.changes ?? []).map { change in
                    "\(change.changeType.rawValue) \(change.changedObjectID.uriRepresentation().absoluteString)"
                }.sorted() }
                let insert = NSPersistentHistoryChangeType.insert.rawValue, update = NSPersistentHistoryChangeType.update.rawValue
                let delete = NSPersistentHistoryChangeType.delete.rawValue
                try env.expectEqual(changes, [["\(insert) \(saved.ann)", "\(insert) \(saved.bob)"].sorted(), ["\(update) \(saved.ann)"], ["\(delete) \(saved.bob)"]],
                                    "one change per object and save, with its type and object ID")
                let renamed = try env.require(all[1].changes?.first, "the update's change")
                try env.expectEqual(renamed.updatedProperties?.map(\.name), ["name"], "the update's changed properties")
                let changeIDs = all.flatMap { ($0.changes ?? []).map(\.changeID) }
                try env.expectEqual(Set(changeIDs).count, 4, "distinct change IDs")
            }
        },
        ConformanceCase("history/fetch-after-a-token-a-transaction-or-a-date", adopting: [.persistentHistory]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let saved = try threeSaves(env, writer)
            let afterFirst = try env.require(saved.afterFirst, "the history token after the first save")
            let context = try reader(env, writer)
            try context.performAndWait {
                let later = try transactions(context, .fetchHistory(after: afterFirst))
                try env.expectEqual(later.map { $0.changes?.first?.changeType.rawValue }, [NSPersistentHistoryChangeType.update.rawValue, NSPersistentHistoryChangeType.delete.rawValue],
                                    "the transactions after the token")
                let last = try transactions(context, .fetchHistory(after: try env.require(later.first, "the second transaction")))
                try env.expectEqual(last.map(\.transactionNumber), later.dropFirst().map(\.transactionNumber), "the transactions after a transaction")
                let newest = try env.require(later.last, "the third transaction")
                try env.expectEqual(try transactions(context, .fetchHistory(after: newest.token)).count, 0, "nothing after the newest token")
                let all = try transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
                let beforeAll = try env.require(all.first, "the first transaction").timestamp.addingTimeInterval(-60)
                try env.expectEqual(try transactions(context, .fetchHistory(after: beforeAll)).count, 3, "every transaction after an earlier date")
                try env.expectEqual(try transactions(context, .fetchHistory(after: Date().addingTimeInterval(60))).count, 0, "none after a later date")
                try env.expectEqual(try count(context, .fetchHistory(after: afterFirst)), 2, "the count result type")
            }
        },
        ConformanceCase("history/delete-before-a-token-or-a-date", adopting: [.persistentHistory]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let saved = try threeSaves(env, writer)
            let afterFirst = try env.require(saved.afterFirst, "the history token after the first save")
            let context = try reader(env, writer)
            try context.performAndWait {
                try env.expectEqual(try count(context, .deleteHistory(before: afterFirst)), 1, "deleting up to and including the token's transaction")
                let left = try transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
                try env.expectEqual(left.map { $0.changes?.first?.changeType.rawValue }, [NSPersistentHistoryChangeType.update.rawValue, NSPersistentHistoryChangeType.delete.rawValue],
                                    "the later transactions are kept")
                try env.expectEqual(try count(context, .deleteHistory(before: Date().addingTimeInterval(-3600))), 0, "nothing is older than an hour ago")
                try env.expectEqual(try count(context, .deleteHistory(before: Date().addingTimeInterval(60))), 2, "deleting before a later date")
                try env.expectEqual(try transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).count, 0, "no history is left")
                try env.expectEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")), 1, "deleting history deletes no objects")
            }
        },
        // Apple gives a token for a store that tracks history before its first save, so an app can keep one from
        // its first launch; fetching after it gives the saves since.
        ConformanceCase("history/a-token-before-the-first-save", adopting: [.persistentHistory]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let first = try env.require(writer.currentPersistentHistoryToken(fromStores: nil), "the token of a store without transactions")
            let context = env.context(writer)
            try context.performAndWait {
                try env.expectEqual(try transactions(context, .fetchHistory(after: first)).count, 0, "nothing after it yet")
                _ = Fixtures.owner(context, "Ann")
                let saved = Mutex<NSPersistentHistoryToken?>(nil)
                let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
                    let token = note.userInfo?["newChangeToken"] as? NSPersistentHistoryToken
                    saved.withLock { $0 = token }
                }
                defer { NotificationCenter.default.removeObserver(observer) }
                try context.save()
                try env.expectEqual(try transactions(context, .fetchHistory(after: first)).count, 1, "the first save after it")
                let current = writer.currentPersistentHistoryToken(fromStores: nil)
                try env.expect(current != first, "the token moves with the save")
                let posted = saved.withLock { $0 }
                try env.expect(posted != nil && posted == current, "the did-save notification carries the token after the save (Apple's newChangeToken)")
            }
        },
        // Apple: fetching history after a token whose later history was deleted throws the expired-token error, so
        // that a reader starts again instead of silently missing the deleted transactions.
        ConformanceCase("history/fetch-after-an-expired-token", adopting: [.persistentHistory]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let editor = env.context(writer)
            let tokens = try editor.performAndWait {
                try (1...3).map { number -> NSPersistentHistoryToken in
                    _ = Fixtures.owner(editor, "Owner \(number)")
                    try editor.save()
                    return try env.require(writer.currentPersistentHistoryToken(fromStores: nil), "the token after save \(number)")
                }
            }
            let context = try reader(env, writer)
            try context.performAndWait {
                try env.expectEqual(try count(context, .deleteHistory(before: tokens[1])), 2, "deleting the first two transactions")
                _ = try env.expectError([NSPersistentHistoryTokenExpiredError], "fetching after the first save's token, whose next transaction was deleted") {
                    _ = try transactions(context, .fetchHistory(after: tokens[0]))
                }
                try env.expectEqual(try transactions(context, .fetchHistory(after: tokens[1])).count, 1, "after the second save's token: the third")
                try env.expectEqual(try transactions(context, .fetchHistory(after: tokens[2])).count, 0, "after the newest token: nothing")
                try env.expectEqual(try count(context, .deleteHistory(before: Date().addingTimeInterval(60))), 1, "deleting the rest")
                _ = try env.expectError([NSPersistentHistoryTokenExpiredError], "fetching after the second save's token once the third is deleted") {
                    _ = try transactions(context, .fetchHistory(after: tokens[1]))
                }
                try env.expectEqual(try transactions(context, .fetchHistory(after: tokens[2])).count, 0, "the newest token has not expired")
                try env.expectEqual(try transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).count, 0, "no token: nothing left")
            }
        },
        ConformanceCase("history/batch-requests-are-recorded", adopting: [.persistentHistory, .batchInserting, .batchUpdating]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let context = env.context(writer)
            try context.performAndWait {
                context.transactionAuthor = "not a batch request's"
                _ = try context.execute(NSBatchInsertRequest(entityName: "Owner", objects: ["a", "b", "c"].map { ["name": $0] }))
                let update = NSBatchUpdateRequest(entityName: "Owner")
                update.predicate = NSPredicate(format: "name IN %@", ["b", "c"])
                update.propertiesToUpdate = ["name": "renamed"]
                _ = try context.execute(update)
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Owner")))
            }
            let reader = try reader(env, writer)
            try reader.performAndWait {
                let all = try transactions(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?))
                let insert = NSPersistentHistoryChangeType.insert, update = NSPersistentHistoryChangeType.update, delete = NSPersistentHistoryChangeType.delete
                try env.expectEqual(all.map { ($0.changes ?? []).map(\.changeType.rawValue) },
                                    [[insert, insert, insert], [update, update], [delete, delete, delete]].map { $0.map(\.rawValue) },
                                    "one transaction per batch request, one change per row, also after a reopen")
                try env.expectEqual(all.count == 3 ? all[1].changes?.first?.updatedProperties?.map(\.name) : nil, ["name"],
                                    "a batch update's changed properties")
                try env.expect(all.allSatisfy { $0.author == nil && !$0.processID.isEmpty },
                               "batch requests carry the process, not a context's author: \(all.map { ($0.author, $0.processID) })")
            }
        },
        ConformanceCase("history/batch-insert-upsert-records-updates", adopting: [.persistentHistory, .batchInserting]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let context = env.context(writer)
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let saved = try context.performAndWait {
                _ = try context.execute(NSBatchInsertRequest(entityName: "Account", objects: [["email": "a@example.com", "code": 1]]))
                let saved = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account")).first?.objectID
                _ = try context.execute(NSBatchInsertRequest(entityName: "Account", objects: [
                    ["email": "a@example.com", "code": 2], ["email": "b@example.com"], ["email": "b@example.com", "code": 3],
                ]))
                return saved
            }
            let reader = try reader(env, writer)
            try reader.performAndWait {
                let all = try transactions(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?))
                try env.expectEqual(all.count, 2, "one transaction per batch request")
                let changes = all.last?.changes ?? []
                try env.expectEqual(changes.map(\.changeType.rawValue).sorted(),
                                    [NSPersistentHistoryChangeType.insert, .update].map(\.rawValue).sorted(),
                                    "the saved object's row updated, and the new object inserted once for its two rows")
                let update = changes.first { $0.changeType == .update }
                try env.expectEqual(update?.changedObjectID.uriRepresentation(), saved?.uriRepresentation(), "the update names the saved object")
                try env.expect(update?.updatedProperties?.contains { $0.name == "code" } == true,
                               "the update's properties include the attributes written: \(update?.updatedProperties?.map(\.name) ?? [])")
            }
        },
        ConformanceCase("history/survives-a-lightweight-migration", requires: .persistent, adopting: [.persistentHistory, .lightweightMigrating]) { env in
            let writer = try env.openCoordinator(options: tracking)
            let context = env.context(writer)
            try context.performAndWait {
                for name in ["a", "b"] {
                    _ = Fixtures.owner(context, name)
                    try context.save()
                }
            }
            for store in writer.persistentStores { try writer.remove(store) }
            let changed = ConformanceModel.make()
            changed.entitiesByName["Owner"]?.properties.append(NSAttributeDescription(name: "nickname", type: .string))
            var options = tracking
            options[NSMigratePersistentStoresAutomaticallyOption] = true
            options[NSInferMappingModelAutomaticallyOption] = true
            let migrated = env.context(try env.openCoordinator(options: options, model: changed))
            try migrated.performAndWait {
                let kept = try transactions(migrated, .fetchHistory(after: nil as NSPersistentHistoryToken?))
                try env.expectEqual(kept.count, 2, "the transactions recorded before the migration")
                let names = try kept.map { transaction in
                    let id = try env.require(transaction.changes?.first?.changedObjectID, "a migrated transaction's change")
                    return try migrated.existingObject(with: id).value(forKey: "name") as? String
                }
                try env.expectEqual(names, ["a", "b"], "each migrated change names its object as the migrated store knows it")
                _ = Fixtures.owner(migrated, "c")
                try migrated.save()
                let numbers = try transactions(migrated, .fetchHistory(after: nil as NSPersistentHistoryToken?)).map(\.transactionNumber)
                try env.expectEqual(numbers.count, 3, "a save after the migration is recorded")
                try env.expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "transaction numbers keep rising after the migration: \(numbers)")
            }
        },
    ]
}

import CoreData
import Foundation
import Testing

/// A policy that adds the context's change of `count` to the stored value instead of overwriting it, so
/// processes that increment one counter at once end with the sum of their increments.
final class IncrementingMergePolicy: NSMergePolicy, @unchecked Sendable {
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        for conflict in list {
            let stored = (conflict.persistedSnapshot?["count"] as? NSNumber)?.int64Value ?? 0
            let read = (conflict.cachedSnapshot?["count"] as? NSNumber)?.int64Value ?? 0
            let mine = (conflict.sourceObject.value(forKey: "count") as? NSNumber)?.int64Value ?? 0
            conflict.sourceObject.setValue(stored + (mine - read), forKey: "count")
        }
        try super.resolve(optimisticLockingConflicts: list)
    }
}

/// Several processes (app servers) on one PostgreSQL store: conflicting saves merged by a merge policy lose
/// no increment, saves reach the others as remote-change notifications with object IDs, persistent history read
/// while two servers save misses no transaction, and a server restart
/// costs at most the statement in flight. Child processes are this test binary running `childIncrements`.
@Suite(.serialized, .enabled(if: PostgreSQLTestServer.url != nil, Comment(rawValue: PostgreSQLTestServer.unavailableReason)))
struct PostgreSQLManyServersTests {
    static let storeVariable = "COREDATA_POSTGRES_CHILD_STORE"
    static let countVariable = "COREDATA_POSTGRES_CHILD_INCREMENTS"
    /// Increments per process (the figure; `COREDATA_POSTGRES_INCREMENTS` changes it).
    static let increments = Int(ProcessInfo.processInfo.environment["COREDATA_POSTGRES_INCREMENTS"] ?? "") ?? 5_000

    static func model() -> NSManagedObjectModel {
        let counter = NSEntityDescription(name: "Counter")
        counter.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "count", type: .integer64)]
        return NSManagedObjectModel(entities: [counter])
    }

    static func coordinator(_ url: URL, options: [AnyHashable: Any] = [:]) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: options)
        return coordinator
    }

    static func context(_ coordinator: NSPersistentStoreCoordinator, policy: Any = NSErrorMergePolicy) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.mergePolicy = policy
        return context
    }

    static func storedCount(_ url: URL) throws -> Int64? {
        let context = Self.context(try coordinator(url))
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first?.value(forKey: "count") as? Int64
        }
    }

    static func destroy(_ url: URL) {
        try? NSPersistentStoreCoordinator(managedObjectModel: model()).destroyPersistentStore(at: url, type: .postgreSQL)
    }

    @Test func twoProcessesIncrementingOneCounterLoseNothing() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { Self.destroy(url) }
        let setup = Self.context(try Self.coordinator(url))
        try setup.performAndWait {
            let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: setup)
            counter.setValue("shared", forKey: "name")
            counter.setValue(Int64(0), forKey: "count")
            try setup.save()
        }
        let children = try (0..<2).map { _ in
            let child = Process()
            child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            child.arguments = ["--testing-library", "swift-testing", "--filter", "PostgreSQLManyServersTests/childIncrements"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.storeVariable] = url.absoluteString
            environment[Self.countVariable] = String(Self.increments)
            child.environment = environment
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            return child
        }
        for child in children {
            child.waitUntilExit()
            #expect(child.terminationStatus == 0, "a child process finished its increments")
        }
        #expect(try Self.storedCount(url) == Int64(2 * Self.increments), "every increment of both processes is counted")
    }

    /// Two servers saving at once with persistent history, and a third reading the history after its last token
    /// while they save: every transaction reaches the reader exactly once, and the numbers only rise (a number
    /// is taken in the order the transactions commit, so none appears behind a token already read).
    @Test func historyReadWhileTwoServersSaveMissesNoTransaction() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { Self.destroy(url) }
        let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber]
        let writers = try (0..<2).map { _ in Self.context(try Self.coordinator(url, options: tracking)) }
        let reader = Self.context(try Self.coordinator(url, options: tracking))
        let savesEach = 150
        let done = DispatchGroup()
        for (index, writer) in writers.enumerated() {
            DispatchQueue.global().async(group: done) {
                writer.performAndWait {
                    for save in 0..<savesEach {
                        NSEntityDescription.insertNewObject(forEntityName: "Counter", into: writer).setValue("\(index)-\(save)", forKey: "name")
                        try? writer.save()
                    }
                }
            }
        }
        var seen: [Int64] = []
        var token: NSPersistentHistoryToken?
        func readNewTransactions() throws {
            try reader.performAndWait {
                let result = try reader.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
                let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
                seen += transactions.map(\.transactionNumber)
                token = transactions.last?.token ?? token
            }
        }
        while done.wait(timeout: .now() + .milliseconds(5)) == .timedOut { try readNewTransactions() }
        try readNewTransactions()
        #expect(seen.count == 2 * savesEach, "each save's transaction read once")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "transaction numbers rise in the order they were read")
        let all = try reader.performAndWait {
            (try reader.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult)?
                .result as? [NSPersistentHistoryTransaction] ?? []
        }
        #expect(all.map(\.transactionNumber) == seen, "what the reader gathered is the whole history")
        #expect(all.allSatisfy { $0.changes?.count == 1 }, "one inserted object per transaction")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[storeVariable] != nil, "runs only as a child process"))
    func childIncrements() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(environment[Self.storeVariable].flatMap(URL.init(string:)))
        let increments = try #require(environment[Self.countVariable].flatMap { Int($0) })
        let context = Self.context(try Self.coordinator(url), policy: IncrementingMergePolicy())
        try context.performAndWait {
            let counter = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first)
            for _ in 0..<increments {
                counter.setValue(((counter.value(forKey: "count") as? Int64) ?? 0) + 1, forKey: "count")
                try context.save()
            }
        }
    }

    @Test func aSaveReachesAnotherCoordinatorAsARemoteChangeWithObjectIDs() async throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { Self.destroy(url) }
        let writer = try Self.coordinator(url)
        let listener = try Self.coordinator(url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let viewContext = Self.context(listener)
        let received = NotificationRecorder(name: .NSPersistentStoreRemoteChange, object: listener)

        let context = Self.context(writer)
        let insertedID = try context.performAndWait {
            let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context)
            counter.setValue("announced", forKey: "name")
            try context.save()
            return counter.objectID
        }
        let note = try #require(await received.first(within: 10), "the listener's coordinator posted a remote change")
        let inserted = note.userInfo?[NSInsertedObjectIDsKey] as? [NSManagedObjectID] ?? []
        #expect(inserted.map { $0.uriRepresentation() } == [insertedID.uriRepresentation()])
        #expect(note.userInfo?[NSStoreUUIDKey] as? String == listener.persistentStores.first?.identifier)
        viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: note) }
        let names = try viewContext.performAndWait {
            try viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["announced"])
    }

    /// Batch requests reach the other servers too ("every write to the store"), with the IDs they changed:
    /// inserted by a batch insert, updated by a batch update, deleted by a batch delete even when it only counts.
    @Test func batchRequestsReachAnotherCoordinatorAsRemoteChanges() async throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { Self.destroy(url) }
        let writer = Self.context(try Self.coordinator(url))
        let listener = try Self.coordinator(url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        func heard(_ key: String, after write: () throws -> Void) async throws -> Set<String> {
            let recorder = NotificationRecorder(name: .NSPersistentStoreRemoteChange, object: listener)
            try write()
            let note = try #require(await recorder.first(within: 10), "a remote change for \(key)")
            return Set((note.userInfo?[key] as? [NSManagedObjectID] ?? []).map { $0.uriRepresentation().lastPathComponent })
        }
        var ids: [NSManagedObjectID] = []
        let inserted = try await heard(NSInsertedObjectIDsKey) {
            try writer.performAndWait {
                let request = NSBatchInsertRequest(entityName: "Counter", objects: (1...3).map { ["name": "batch \($0)", "count": Int64($0)] })
                request.resultType = .objectIDs
                ids = (try writer.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID] ?? []
            }
        }
        #expect(ids.count == 3 && inserted == Set(ids.map { $0.uriRepresentation().lastPathComponent }))
        let updated = try await heard(NSUpdatedObjectIDsKey) {
            try writer.performAndWait {
                let request = NSBatchUpdateRequest(entityName: "Counter")
                request.predicate = NSPredicate(format: "count >= 2")
                request.propertiesToUpdate = ["name": "renamed"]
                _ = try writer.execute(request)
            }
        }
        #expect(updated == Set(ids.dropFirst().map { $0.uriRepresentation().lastPathComponent }))
        let deleted = try await heard(NSDeletedObjectIDsKey) {
            try writer.performAndWait {
                let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Counter")
                fetch.predicate = NSPredicate(format: "count == 1")
                let request = NSBatchDeleteRequest(fetchRequest: fetch)
                request.resultType = .resultTypeObjectIDs
                _ = try writer.execute(request)
            }
        }
        #expect(deleted == [ids[0].uriRepresentation().lastPathComponent])
        let counted = NotificationRecorder(name: .NSPersistentStoreRemoteChange, object: listener)
        try writer.performAndWait { _ = try writer.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Counter"))) }
        #expect(await counted.first(within: 10) != nil, "a counted batch delete is announced, without a list of objects")
    }

    @Test func aViewContextThatMergesAutomaticallyFollowsAnotherServersSaves() async throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { Self.destroy(url) }
        let writer = Self.context(try Self.coordinator(url))
        let id = try writer.performAndWait {
            let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: writer)
            counter.setValue("seen", forKey: "name")
            counter.setValue(Int64(1), forKey: "count")
            try writer.save()
            return counter.objectID
        }
        let listener = try Self.coordinator(url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let viewContext = Self.context(listener)
        viewContext.automaticallyMergesChangesFromParent = true
        let shown = try viewContext.performAndWait {
            try #require(try viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first)
        }
        #expect(viewContext.performAndWait { shown.value(forKey: "count") as? Int64 } == 1)
        try writer.performAndWait {
            try writer.existingObject(with: id).setValue(Int64(2), forKey: "count")
            try writer.save()
        }
        let deadline = Date().addingTimeInterval(10)
        var seen: Int64?
        while Date() < deadline {
            seen = viewContext.performAndWait { shown.value(forKey: "count") as? Int64 }
            if seen == 2 { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(seen == 2, "the view context shows the other server's update without a refetch")
    }

    /// On a server of its own, since restarting the shared one would fail the other tests' statements.
    @Test func aServerRestartCostsAtMostTheStatementInFlight() throws {
        let server = try PostgreSQLTestServer.Private()
        defer { server.stop() }
        let url = server.url
        let coordinator = try Self.coordinator(url)
        let context = Self.context(coordinator)
        func add(_ name: String) throws {
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context).setValue(name, forKey: "name")
                try context.save()
            }
        }
        try add("before")
        try PostgreSQLTestServer.run("restart", server.directory)
        do {
            try add("after")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && [NSPersistentStoreSaveError, NSPersistentStoreOperationError].contains(error.code), "\(error)")
            context.performAndWait { context.rollback() }
            try add("after")
        }
        let names = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(names == ["after", "before"], "the save after the restart is written once, and the one before is kept")
    }

    /// On a server of its own, as above: a listening store listens again on its new connection.
    @Test func remoteChangesArriveAgainAfterAServerRestart() async throws {
        let server = try PostgreSQLTestServer.Private()
        defer { server.stop() }
        let writer = Self.context(try Self.coordinator(server.url))
        let listener = try Self.coordinator(server.url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        try PostgreSQLTestServer.run("restart", server.directory)
        let received = NotificationRecorder(name: .NSPersistentStoreRemoteChange, object: listener)
        // Saves made before the listener has reconnected are not heard (nothing queues them); keep saving.
        var heard: Notification?
        for attempt in 0..<40 where heard == nil {
            try? writer.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Counter", into: writer).setValue("after \(attempt)", forKey: "name")
                try writer.save()
            }
            writer.performAndWait { writer.rollback() }
            heard = await received.first(within: 0.5)
        }
        #expect(heard != nil, "the listener hears saves again after the server restarted")
        #expect((heard?.userInfo?[NSInsertedObjectIDsKey] as? [NSManagedObjectID])?.count == 1)
    }
}

/// Collects the notifications of one name and object, to await the first.
final class NotificationRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var notes: [Notification] = []
    private var token: NSObjectProtocol?

    init(name: Notification.Name, object: AnyObject) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            guard let self else { return }
            self.lock.lock()
            self.notes.append(note)
            self.lock.unlock()
        }
    }

    deinit { token.map(NotificationCenter.default.removeObserver) }

    /// The first notification, waiting up to `seconds` for it.
    func first(within seconds: Double) async -> Notification? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            lock.lock()
            let found = notes.first
            lock.unlock()
            if let found { return found }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return nil
    }
}

import CoreData
import Dispatch
import Foundation

/// A program that uses a container's contexts the way apps do, for `ConcurrencyTests`, which runs it once per
/// mode (the first argument) in a process of its own: a process serves its main queue one way only, and the
/// concurrency check stops a process.
///
/// The main-queue modes serve the main queue one way each and print one line per check, `ok <check>` or
/// `FAIL <check>: <why>`, then `done`; a deadlock shows as a process that never prints `done`. The
/// `misuse-…` modes use a context off its queue, which the concurrency check (when on) stops with a message.
///
/// The probe is compiled in Swift 6 language mode (Package.swift), as an app's code would be: it proves that
/// `await context.perform { … }` and `performBackgroundTask` called from the main actor compile unchanged.
@main
enum ConcurrencyProbe {
    static func main() async {
        let mode = CommandLine.arguments.dropFirst().first ?? ""
        switch mode {
        case "main-thread":
            // Still on the main thread (nothing awaited yet), and nothing serves the main queue.
            Scenario().runSynchronousChecks()
            finish()
        case "run-loop":
            DispatchQueue.main.async { Scenario().runServedChecks() }
            runTheMainRunLoop()
        case "dispatch-main":
            DispatchQueue.main.async { Scenario().runServedChecks() }
            dispatchMain()
        case "async-main":
            await Task.yield()  // from here on the main queue runs on a worker thread
            report("async main runs off the main thread after its first suspension", !Thread.isMainThread)
            await Scenario().runAsyncChecks()
            Scenario().runServedChecks()
        case "main-actor":
            await Task.detached { await MainActor.run { Scenario().runServedChecks() } }.value
        case "stress":
            // Served by dispatchMain; every worker ends the process when the last one is done.
            let workers = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 8
            let saves = Int(CommandLine.arguments.dropFirst(3).first ?? "") ?? 60
            DispatchQueue.main.async { Stress(workers: workers, savesEach: saves).start() }
            dispatchMain()
        case "shared":
            // Objects declared Sendable used from several threads at once (`SharedObjects`); ends the process.
            SharedObjects().run()
        case "misuse-fetch":
            let background = Scenario().container.newBackgroundContext()
            background.name = "background"
            _ = try? background.fetch(NSFetchRequest<Item>(entityName: "Item"))  // off the context's queue
            finish()
        case "misuse-object":
            let scenario = Scenario()
            let background = scenario.container.newBackgroundContext()
            background.name = "background"
            let item = background.performAndWait { Item(context: background) }
            item.name = "off the queue"  // off the context's queue
            finish()
        case "model-freeze":
            // Makes a coordinator with a model, then changes the model (`original`, which must stop the
            // program) or a copy of it (`copy`, which may change) (ModelFreezeTests).
            let item = NSEntityDescription(name: "Item", managedObjectClassName: "Item")
            item.properties = [NSAttributeDescription(name: "name", type: .string)]
            let model = NSManagedObjectModel(entities: [item])
            report("a new model is editable", model.isEditable)
            _ = NSPersistentStoreCoordinator(managedObjectModel: model)
            report("a model a coordinator uses is not", !model.isEditable)
            if CommandLine.arguments.dropFirst(2).first == "copy" {
                let copy = model.copy() as? NSManagedObjectModel
                report("a copy is editable", copy?.isEditable == true)
                copy?.entities.first?.properties.first?.isOptional = false
                copy?.entities.first?.name = "Renamed"
                report("a copy changes", copy?.entitiesByName["Renamed"]?.propertiesByName["name"]?.isOptional == false)
            } else {
                item.propertiesByName["name"]?.isOptional = false
            }
            finish()
        case "sql-debug":
            // Saves and fetches once, for the SQL debug log's launch argument and variable (DebugLogTests).
            let context = Scenario().viewContext
            context.performAndWait {
                Item(context: context).name = "logged"
                report("saves", (try? context.save()) != nil)
                let request = NSFetchRequest<Item>(entityName: "Item")
                request.predicate = NSPredicate(format: "name == %@", "logged")
                report("fetches", (try? context.fetch(request))?.count == 1)
            }
            finish()
        case "migration-debug":
            // Opens a store of one model with another and the migration options (DebugLogTests).
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migration-probe-\(UUID().uuidString)")
            let url = folder.appendingPathComponent("Probe.sqlite")
            defer { try? FileManager.default.removeItem(at: folder) }
            let first = NSEntityDescription(name: "Item", managedObjectClassName: "Item")
            first.properties = [NSAttributeDescription(name: "name", type: .string)]
            let second = NSEntityDescription(name: "Item", managedObjectClassName: "Item")
            second.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "rank", type: .integer64)]
            let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
            for model in [NSManagedObjectModel(entities: [first]), NSManagedObjectModel(entities: [second])] {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                do {
                    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url, options: options))
                } catch {
                    report("the store opens with version \(model.entities[0].properties.count)", false, "\(error)")
                }
            }
            finish()
        default:
            print("usage: ConcurrencyProbe main-thread|run-loop|dispatch-main|async-main|main-actor|stress [workers saves]|shared|misuse-fetch|misuse-object|sql-debug|migration-debug")
            exit(64)
        }
        // The served checks end the process; give them time, then report a hang.
        try? await Task.sleep(nanoseconds: 120_000_000_000)
        report("the checks finish", false, "timed out")
        finish()
    }
}

/// Serves the main queue from the main thread's run loop (a synchronous call: async code may not run it).
func runTheMainRunLoop() {
    RunLoop.main.run()
}

/// Prints one check's outcome; a failed check makes the process exit with 1 once `finish` runs.
func report(_ check: String, _ passed: Bool, _ detail: @autoclosure () -> String = "") {
    if passed { print("ok \(check)") } else { print("FAIL \(check): \(detail())"); failures += 1 }
}

nonisolated(unsafe) var failures = 0

func finish() -> Never {
    print(failures == 0 ? "done" : "done with \(failures) failures")
    exit(failures == 0 ? 0 : 1)
}

/// Tells the probe, independently of the package, whether code runs on the main queue.
enum ProbeMainQueue {
    static let key = DispatchSpecificKey<UInt8>()
    static let isMarked: Bool = { DispatchQueue.main.setSpecific(key: key, value: 1); return true }()
    static var isCurrent: Bool { _ = isMarked; return Thread.isMainThread || DispatchQueue.getSpecific(key: key) != nil }
}

final class Item: NSManagedObject {
    @Managed var name: String?
}

/// Counts the objects-did-change notifications a context posts.
final class ChangeCounter: @unchecked Sendable {
    private(set) var posts = 0
    private var observer: NSObjectProtocol?

    init(_ context: NSManagedObjectContext) {
        observer = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification,
                                                          object: context, queue: nil) { [weak self] _ in self?.posts += 1 }
    }
}

/// The checks, on a container with a SQLite store in a new temporary folder.
final class Scenario: @unchecked Sendable {
    let container: NSPersistentContainer

    init() {
        let entity = NSEntityDescription(name: "Item", managedObjectClassName: "Item")
        entity.properties = [NSAttributeDescription(name: "name", type: .string)]
        container = NSPersistentContainer(name: "Probe", managedObjectModel: NSManagedObjectModel(entities: [entity]))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("main-queue-probe-\(UUID().uuidString)")
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: folder.appendingPathComponent("Probe.sqlite"))]
        container.loadPersistentStores { _, error in
            if let error { report("store loads", false, "\(error)"); finish() }
        }
    }

    var viewContext: NSManagedObjectContext { container.viewContext }

    func count() -> Int {
        viewContext.performAndWait { (try? viewContext.count(for: NSFetchRequest<Item>(entityName: "Item"))) ?? -1 }
    }

    /// What works wherever the main queue is: called on the main queue (or the main thread).
    func runSynchronousChecks() {
        var ranInline = false
        viewContext.performAndWait { ranInline = true }
        report("performAndWait runs inline on the main queue", ranInline)

        let item = Item(context: viewContext)
        item.name = "first"
        do { if viewContext.hasChanges { try viewContext.save() } } catch { report("view context saves", false, "\(error)") }
        report("view context saves", count() == 1, "count \(count())")

        let request = NSFetchRequest<Item>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: viewContext,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        do { try controller.performFetch() } catch { report("fetched results controller fetches", false, "\(error)") }
        report("fetched results controller fetches", controller.fetchedObjects?.count == 1)

        let background = container.newBackgroundContext()
        let insertedID: NSManagedObjectID? = background.performAndWait {
            let other = Item(context: background)
            other.name = "from background"
            do { try background.save() } catch { return nil }
            return other.objectID
        }
        if let insertedID {
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: [insertedID]], into: [viewContext])
            report("remote save merges into the view context", viewContext.registeredObject(for: insertedID) != nil)
        } else {
            report("background context saves", false)
        }

        let privateChild = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        privateChild.parent = viewContext
        let childSaved: Bool = privateChild.performAndWait {
            Item(context: privateChild).name = "private child"
            return (try? privateChild.save()) != nil
        }
        report("a private child saves into the view context", childSaved && viewContext.hasChanges)

        let mainChild = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        mainChild.parent = viewContext
        Item(context: mainChild).name = "main child"
        do { try mainChild.save(); try viewContext.save() } catch { report("a main-queue child saves", false, "\(error)") }
        report("a main-queue child saves", count() == 4, "count \(count())")

        var enqueuedRan = false
        viewContext.perform { enqueuedRan = true }
        report("perform enqueues instead of running inline", !enqueuedRan)
    }

    /// The synchronous checks, then what needs the main queue served: blocks from `perform` run on it, and a
    /// background thread's `performAndWait` on the view context runs there. Ends the process.
    func runServedChecks() {
        runSynchronousChecks()
        let changed = ChangeCounter(viewContext)
        Item(context: viewContext).name = "changed outside a block"
        report("a change outside a block is not reported before the event ends", changed.posts == 0)
        DispatchQueue.main.async {
            report("a change outside a block is reported when the main queue's event ends", changed.posts == 1)
        }
        viewContext.perform {
            report("perform's block runs on the main queue", ProbeMainQueue.isCurrent)
            DispatchQueue.global().async { [self] in
                let onMainQueue = viewContext.performAndWait { ProbeMainQueue.isCurrent }
                report("performAndWait from another thread runs on the main queue", onMainQueue)
                DispatchQueue.main.async { finish() }
            }
        }
    }

    /// What async code on the main actor does: `await context.perform` runs at once on the view context, and
    /// on a background context's queue.
    @MainActor
    func runAsyncChecks() async {
        let inline = await viewContext.perform { ProbeMainQueue.isCurrent }
        report("async perform on the view context runs on the main queue", inline)
        let background = container.newBackgroundContext()
        let name = await background.perform { () -> String in
            let item = Item(context: background)
            item.name = "async"
            return item.name ?? ""
        }
        report("async perform on a background context returns its value", name == "async")
        let saved = await Self.saveInBackground(container)
        report("performBackgroundTask needs no try for a block that does not throw", saved)
    }

    /// A save through `performBackgroundTask`, from nonisolated code: as with Apple's SDK, a main-actor caller's
    /// closure cannot be handed to it in Swift 6.
    nonisolated static func saveInBackground(_ container: NSPersistentContainer) async -> Bool {
        let saved = await container.performBackgroundTask { context in
            Item(context: context).name = "task"
            return (try? context.save()) != nil
        }
        // A Bool comes back, not an array: the thread sanitizer does not see the hand-over of a result's heap
        // buffer through the concurrency runtime, which is not instrumented.
        let found = try? await inBackground(container) { context in
            try context.fetch(NSFetchRequest<Item>(entityName: "Item")).contains { $0.name == "task" }
        }
        return saved && found == true
    }

    /// A wrapper that passes on the block it was given, as apps' helpers do; it compiles against Apple's SDK, whose
    /// block is a plain escaping closure, and so here.
    nonisolated static func inBackground<T>(_ container: NSPersistentContainer, _ block: @escaping (NSManagedObjectContext) throws -> T) async throws -> T {
        try await container.performBackgroundTask(block)
    }
}

/// Several private contexts saving, fetching and batch deleting on one SQLite store at once, while the view
/// context (on the main queue, served by `dispatchMain()`) merges their saves automatically and fetches. At the
/// end the store and the view context must agree on what is left. Run under the thread sanitizer by CI.
final class Stress: @unchecked Sendable {
    let scenario = Scenario()
    let workers: Int
    let savesEach: Int
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var expected = 0
    private var errors: [String] = []

    init(workers: Int, savesEach: Int) {
        self.workers = workers
        self.savesEach = savesEach
    }

    func start() {
        scenario.viewContext.automaticallyMergesChangesFromParent = true
        for worker in 0..<workers {
            group.enter()
            DispatchQueue.global().async { [self] in
                let left = work(worker)
                lock.lock()
                expected += left
                lock.unlock()
                group.leave()
            }
        }
        readOnTheMainQueue()
        group.notify(queue: .main) { [self] in finishOnTheMainQueue() }
    }

    /// One worker: saves one item at a time, fetches its own, and now and then batch deletes them, merging the
    /// deletion into the view context. Returns how many of its items are left.
    private func work(_ worker: Int) -> Int {
        let context = scenario.container.newBackgroundContext()
        context.name = "worker \(worker)"
        var left = 0
        for round in 0..<savesEach {
            context.performAndWait {
                Item(context: context).name = "w\(worker)-\(round)"
                do { try context.save(); left += 1 } catch { record("save: \(error)") }
                let mine = NSFetchRequest<Item>(entityName: "Item")
                mine.predicate = NSPredicate(format: "name BEGINSWITH %@", "w\(worker)-")
                if ((try? context.count(for: mine)) ?? -1) != left { record("worker \(worker) counts its items wrong") }
                guard round % 25 == 12 else { return }
                let everything = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
                everything.predicate = mine.predicate
                let delete = NSBatchDeleteRequest(fetchRequest: everything)
                delete.resultType = .resultTypeObjectIDs
                do {
                    let result = try context.execute(delete) as? NSBatchDeleteResult
                    let ids = result?.result as? [NSManagedObjectID] ?? []
                    NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids],
                                                        into: [context, scenario.viewContext])
                    left -= ids.count
                } catch {
                    record("batch delete: \(error)")
                }
            }
        }
        return left
    }

    /// Fetches on the view context again and again until the workers are done.
    private func readOnTheMainQueue() {
        _ = try? scenario.viewContext.fetch(NSFetchRequest<Item>(entityName: "Item"))
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(5)) { [self] in
            lock.lock()
            let done = expected >= 0 && group.wait(timeout: .now()) == .success
            lock.unlock()
            if !done { readOnTheMainQueue() }
        }
    }

    private func finishOnTheMainQueue() {
        let count = (try? scenario.viewContext.count(for: NSFetchRequest<Item>(entityName: "Item"))) ?? -1
        report("every acknowledged save and batch delete is in the store", count == expected, "count \(count), expected \(expected)")
        let fetched = (try? scenario.viewContext.fetch(NSFetchRequest<Item>(entityName: "Item")).count) ?? -1
        report("the view context fetches what the store holds", fetched == expected, "fetched \(fetched), expected \(expected)")
        lock.lock()
        let problems = errors
        lock.unlock()
        report("no worker met an error", problems.isEmpty, problems.prefix(5).joined(separator: "; "))
        finish()
    }

    private func record(_ problem: String) {
        lock.lock()
        errors.append(problem)
        lock.unlock()
    }
}

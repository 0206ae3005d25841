import CoreData
import Dispatch
import Foundation

/// The objects the package declares `Sendable` used from several threads at once, as Apple's SDK allows: one
/// fetch request (with a Swift key-path sort, which a fetch names in place) fetched by contexts on several
/// queues, and a store's coordinator and URL read on other threads while the coordinator removes the store.
/// Run under the thread sanitizer by CI, where a data race stops the process.
final class SharedObjects: @unchecked Sendable {
    let scenario = Scenario()

    /// Runs both checks, then ends the process.
    func run() {
        fetchOneRequestOnSeveralQueues()
        readStoresWhileTheyAreRemoved()
        finish()
    }

    /// Four background contexts fetch with one request at once, each round with a new request; afterwards the
    /// request's sort descriptor names the property, as Apple's does.
    private func fetchOneRequestOnSeveralQueues() {
        let setup = scenario.container.newBackgroundContext()
        setup.performAndWait {
            for number in 0..<20 { Item(context: setup).name = "item \(number)" }
            do { try setup.save() } catch { report("the items save", false, "\(error)") }
        }
        let contexts = (0..<4).map { _ in scenario.container.newBackgroundContext() }
        let wrongResults = Counter()
        var unnamedSorts = 0
        for _ in 0..<30 {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Item.name, ascending: false)]
            let start = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            for context in contexts {
                DispatchQueue.global().async(group: finished) {
                    start.wait()  // every context starts its fetch at the same moment
                    context.performAndWait {
                        let names = ((try? context.fetch(request)) ?? []).map { $0.name ?? "" }
                        if names.count != 20 || names.first != "item 9" { wrongResults.add() }
                    }
                }
            }
            for _ in contexts { start.signal() }
            finished.wait()
            if request.sortDescriptors?.count != 1 || request.sortDescriptors?.first?.key != "name" { unnamedSorts += 1 }
        }
        report("contexts on several queues fetch with one request", wrongResults.value == 0, "\(wrongResults.value) wrong results")
        report("the request's key-path sort names its property after the fetches", unnamedSorts == 0, "\(unnamedSorts) requests not named")
    }

    /// Another thread reads a store's coordinator and URL while the coordinator adds and removes it.
    private func readStoresWhileTheyAreRemoved() {
        let coordinator = scenario.container.persistentStoreCoordinator
        var unexpected = 0
        for round in 0..<40 {
            guard let store = try? coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/probe/memory-\(round)")) else {
                report("an in-memory store is added", false)
                return
            }
            let reader = DispatchGroup()
            let seenAfterRemoval = Counter()
            let removed = Flag()
            DispatchQueue.global().async(group: reader) {
                for _ in 0..<200 {
                    let wasRemoved = removed.isSet
                    if store.persistentStoreCoordinator != nil, wasRemoved { seenAfterRemoval.add() }
                    _ = store.url
                }
            }
            do { try coordinator.remove(store) } catch { report("the store is removed", false, "\(error)") }
            removed.set()
            reader.wait()
            unexpected += seenAfterRemoval.value
        }
        report("a removed store has no coordinator on any thread", unexpected == 0, "\(unexpected) reads")
    }
}

/// A count several threads add to.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// A flag one thread sets and others read.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    func set() {
        lock.lock()
        raised = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return raised
    }
}

import CoreData
import Foundation

/// Issue 12: "fetches from the atomic stores should cost no more than from SQLite once loaded". The same
/// fetches through the public API from an in-memory store and from a SQLite store holding the same rows, in the
/// same run: every row, and 10% of them by an unindexed attribute. Each fetch runs in a new context (nothing
/// registered), reads one attribute of each object, and is timed alone (loading is not timed).
func benchmarkInMemoryFetching(rows: Int, repetitions: Int) throws -> String {
    let workloads = ["fetch all, read one attribute", "predicate, unindexed, 10%"]
    var times: [String: [String: [Double]]] = [:]
    for (name, type) in [("in-memory", NSPersistentStore.StoreType.inMemory), ("SQLite", .sqlite)] {
        let model = benchmarkModel()
        let url = scratchURL("fetching-\(name).store")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let loader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        loader.persistentStoreCoordinator = coordinator
        try loader.performAndWait {
            for i in 0..<rows {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Record", into: loader)
                object.setValue(Int64(i), forKey: "a0")
                object.setValue(Int64((i &* 7919) % rows), forKey: "a1")
                object.setValue(Int64(i * 2), forKey: "a2")
            }
            try loader.save()
            loader.reset()
        }
        func fetch(_ predicate: NSPredicate?) throws -> Double {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return try seconds {
                try context.performAndWait {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Record")
                    request.predicate = predicate
                    var sum: Int64 = 0
                    for object in try context.fetch(request) { sum &+= object.value(forKey: "a2") as? Int64 ?? 0 }
                    checksum &+= sum
                }
            }
        }
        for _ in 0..<max(1, repetitions) {
            times[workloads[0], default: [:]][name, default: []].append(try fetch(nil))
            times[workloads[1], default: [:]][name, default: []].append(try fetch(NSPredicate(format: "a1 < %d", rows / 10)))
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }
    var report = "\nFetching from a loaded in-memory store and from SQLite, public API, \(rows) rows, new context each time\n"
    report += "| workload | in-memory store | SQLite store | in-memory / SQLite |\n|---|---:|---:|---:|\n"
    for workload in workloads {
        let memory = median(times[workload]?["in-memory"] ?? []), sqlite = median(times[workload]?["SQLite"] ?? [])
        report += "| \(workload) | \(ms(memory)) | \(ms(sqlite)) | \(String(format: "%.2f×", memory / sqlite)) |\n"
    }
    return report
}

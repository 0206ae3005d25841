// The Core Data sides of the single-client PostgreSQL workloads: the public API (a coordinator, a
// private-queue context and `Record` objects, as an app reads and writes) and the store contract alone
// (`PostgreSQLStore`: rows, keys and change sets). Both mirror the SQLite benchmark's sides in main.swift.
import CoreData
import CoreDataPostgreSQL
import Foundation

/// Runs the workloads through contexts on a PostgreSQL store in `schema`.
func runPostgreSQLAPIWorkloads(server: PostgreSQLBenchmarkServer, schema: String, sizes: PostgreSQLWorkloadSizes,
                               timings: PostgreSQLTimings) throws {
    let model = benchmarkModel()
    let url = server.storeURL(schema: schema)
    func stack() throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgreSQL, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }
    var (coordinator, context) = try stack()
    let entity = model.entitiesByName["Record"]!
    try timings.measure(.api, .insertAndSave) {
        try context.performAndWait {
            for i in 0..<sizes.rows {
                let object = Record(entity: entity, insertInto: context)
                object.a0 = sizes.value(row: i, attribute: 0); object.a1 = sizes.value(row: i, attribute: 1)
                object.a2 = sizes.value(row: i, attribute: 2); object.a3 = sizes.value(row: i, attribute: 3)
                object.a4 = sizes.value(row: i, attribute: 4); object.a5 = sizes.value(row: i, attribute: 5)
                object.a6 = sizes.value(row: i, attribute: 6); object.a7 = sizes.value(row: i, attribute: 7)
                object.a8 = sizes.value(row: i, attribute: 8); object.a9 = sizes.value(row: i, attribute: 9)
            }
            try context.save()
        }
    }
    // A new coordinator, so the fetch finds no registered objects; the table analysed, as on every side.
    for store in coordinator.persistentStores { try coordinator.remove(store) }
    try server.analyze(schema: schema, table: "zrecord")
    (coordinator, context) = try stack()
    var all: [Record] = []
    try timings.measure(.api, .fetchAll) {
        try context.performAndWait {
            all = try context.fetch(NSFetchRequest<Record>(entityName: "Record"))
            var sum: Int64 = 0
            for object in all { sum &+= object.sum }
            timings.checksum &+= sum
        }
    }
    func predicateFetch(_ workload: PostgreSQLWorkload, _ predicate: NSPredicate) throws {
        try timings.measure(.api, workload) {
            try context.performAndWait {
                let request = NSFetchRequest<Record>(entityName: "Record")
                request.predicate = predicate
                for object in try context.fetch(request) { timings.checksum &+= object.a2 }
            }
        }
    }
    try predicateFetch(.indexedTenPercent, NSPredicate(format: "a0 < %d", sizes.tenPercent))
    try predicateFetch(.unindexedTenPercent, NSPredicate(format: "a1 < %d", sizes.tenPercent))
    try predicateFetch(.unindexedTenthOfAPercent, NSPredicate(format: "a1 < %d", sizes.tenthOfAPercent))
    let ids = context.performAndWait {
        stride(from: 0, to: all.count, by: max(1, all.count / sizes.lookups)).prefix(sizes.lookups).map { all[$0].objectID }
    }
    let lookupContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    lookupContext.persistentStoreCoordinator = coordinator
    try timings.measure(.api, .lookups) {
        try lookupContext.performAndWait {
            for id in ids { timings.checksum &+= (try lookupContext.existingObject(with: id) as? Record)?.a3 ?? 0 }
        }
    }
    try timings.measure(.api, .updateAndSave) {
        try context.performAndWait {
            for object in all { object.a2 += 1 }
            try context.save()
        }
    }
    try timings.measure(.api, .batchDelete) {
        try context.performAndWait {
            let half = NSFetchRequest<NSFetchRequestResult>(entityName: "Record")
            half.predicate = NSPredicate(format: "a0 < %d", sizes.rows / 2)
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: half))
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Record")))
        }
    }
    let objects = batchInsertObjects(sizes)
    try timings.measure(.api, .batchInsert) {
        try context.performAndWait { _ = try context.execute(NSBatchInsertRequest(entityName: "Record", objects: objects)) }
    }
    try timings.measure(.api, .batchUpdate) {
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Record")
            update.propertiesToUpdate = ["a2": Int64(7)]
            _ = try context.execute(update)
        }
    }
    for store in coordinator.persistentStores { try coordinator.remove(store) }
}

/// Runs the workloads on `PostgreSQLStore` directly, in `schema`: what the store itself costs, apart from the
/// managed-object layer above it.
func runPostgreSQLStoreWorkloads(server: PostgreSQLBenchmarkServer, schema: String, sizes: PostgreSQLWorkloadSizes,
                                 timings: PostgreSQLTimings) throws {
    let model = benchmarkModel()
    let entity = model.entitiesByName["Record"]!
    let store = try PostgreSQLStore(StoreOpenRequest(model: model, configurationName: nil, url: server.storeURL(schema: schema), options: [:]))
    defer { store.close() }
    var keys: [ObjectKey] = []
    try timings.measure(.store, .insertAndSave) {
        var changes = StoreChangeSet()
        let primaryKeys = try store.allocatePrimaryKeys(for: entity, count: sizes.rows)
        changes.inserted.reserveCapacity(sizes.rows)
        for (i, primaryKey) in primaryKeys.enumerated() {
            let values: [Any?] = (0..<10).map { sizes.value(row: i, attribute: $0) }
            changes.inserted.append(StoreRow(key: ObjectKey(entityNumber: entity.entityNumber, primaryKey: primaryKey), version: 0, values: values))
        }
        keys = changes.inserted.map(\.key)
        _ = try store.save(changes)
    }
    try server.analyze(schema: schema, table: "zrecord")
    var all: [StoreRow] = []
    try timings.measure(.store, .fetchAll) {
        guard case .rows(let rows) = try store.fetch(StoreFetchRequest(entity: entity)) else { return }
        all = rows
        var sum: Int64 = 0
        for row in rows { for value in row.values { sum &+= value as? Int64 ?? 0 } }
        timings.checksum &+= sum
    }
    func predicateFetch(_ workload: PostgreSQLWorkload, _ predicate: NSPredicate) throws {
        try timings.measure(.store, workload) {
            guard case .rows(let rows) = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate)) else { return }
            for row in rows { timings.checksum &+= row.values[2] as? Int64 ?? 0 }
        }
    }
    try predicateFetch(.indexedTenPercent, NSPredicate(format: "a0 < %d", sizes.tenPercent))
    try predicateFetch(.unindexedTenPercent, NSPredicate(format: "a1 < %d", sizes.tenPercent))
    try predicateFetch(.unindexedTenthOfAPercent, NSPredicate(format: "a1 < %d", sizes.tenthOfAPercent))
    let sample = stride(from: 0, to: keys.count, by: max(1, keys.count / sizes.lookups)).prefix(sizes.lookups).map { keys[$0] }
    try timings.measure(.store, .lookups) {
        for key in sample { timings.checksum &+= try store.rows(for: [key]).first?.values[3] as? Int64 ?? 0 }
    }
    try timings.measure(.store, .updateAndSave) {
        var changes = StoreChangeSet()
        changes.updated = all.map { row in
            var row = row
            row.values[2] = (row.values[2] as? Int64 ?? 0) + 1
            return StoreRowUpdate(row: row, expectedVersion: row.version, changedSlots: [2])
        }
        _ = try store.save(changes)
    }
    try timings.measure(.store, .batchDelete) {
        _ = try store.batchDeleteCount(.matching(StoreFetchRequest(entity: entity, predicate: NSPredicate(format: "a0 < %d", sizes.rows / 2), result: .keys)))
        _ = try store.batchDeleteCount(.matching(StoreFetchRequest(entity: entity, result: .keys)))
    }
    let objects = batchInsertObjects(sizes)
    try timings.measure(.store, .batchInsert) {
        _ = try store.batchInsert(StoreBatchInsertRequest(entity: entity, objects: objects))
    }
    try timings.measure(.store, .batchUpdate) {
        _ = try store.batchUpdate(StoreBatchUpdateRequest(fetch: StoreFetchRequest(entity: entity), propertiesToUpdate: ["a2": Int64(7)]))
    }
}

/// The objects of the batch-insert workload, by attribute name, built before the timing.
private func batchInsertObjects(_ sizes: PostgreSQLWorkloadSizes) -> [[String: Any]] {
    (0..<sizes.rows).map { i in
        Dictionary(uniqueKeysWithValues: (0..<10).map { ("a\($0)", sizes.value(row: i, attribute: $0) as Any) })
    }
}

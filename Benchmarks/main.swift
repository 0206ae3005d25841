// coredata-benchmark: the SQLite store against raw SQLite (C API, prepared statements, one transaction),
// on the same workloads, in one run. Build and run with:
//
//     swift run -c release coredata-benchmark [rows] [repetitions]
//     swift run -c release coredata-benchmark memory [rows …]
//     swift run -c release coredata-benchmark prefetch [repetitions]
//     swift run -c release coredata-benchmark postgres [rows] [repetitions] [options]
//
// Prints, per workload, the median time of each side over the repetitions and the ratio store/raw; with
// `memory`, the peak resident memory of the memory workloads (MemoryWorkloads.swift) instead; with
// `postgres`, the same workloads on PostgreSQL against libpq, and concurrent clients (PostgreSQLBenchmark.swift).
import CSQLite
import CoreData
import CoreDataSQLite
import Foundation

let arguments = CommandLine.arguments
// The memory workloads run before anything else is built, so that nothing here adds to what they measure.
if arguments.count > 1, arguments[1] == "memory" || arguments[1] == "memory-child" {
    do {
        if arguments[1] == "memory-child", arguments.count == 4, let workload = MemoryWorkload(rawValue: arguments[2]) {
            try runMemoryChild(workload, storePath: arguments[3])
        } else {
            let counts = arguments.dropFirst(2).compactMap { Int($0) }.filter { $0 > 0 }
            try runMemoryBenchmark(rowCounts: counts.isEmpty ? [10_000, 100_000, 1_000_000] : counts)
        }
        exit(0)
    } catch {
        print("memory benchmark failed: \(error)")
        exit(1)
    }
}
if arguments.count > 1, arguments[1] == "--help" || arguments[1] == "-h" {
    print("""
    usage: coredata-benchmark [rows] [repetitions]          SQLite store, store contract and raw SQLite (default 100000 5)
           coredata-benchmark memory [rows …]               peak memory of walking many rows (default 10000 100000 1000000)
           coredata-benchmark prefetch [repetitions]        1,000 authors × 10 books read with and without prefetching
           coredata-benchmark atomic [repetitions] [objects] one save and one open of the objects: binary, XML, SQLite (default 3 100000)
           coredata-benchmark postgres [rows] [repetitions] [--postgres URI] [--clients 1,2,4,8] [--operations N]
                                       [--batch N] [--time-limit SECONDS] [--only workloads|concurrency]
                                                            PostgreSQL store against libpq, and concurrent clients
    """)
    exit(0)
}
if arguments.count > 1, arguments[1] == "postgres" || arguments[1] == "postgres-client" {
    do {
        if arguments[1] == "postgres-client" {
            guard arguments.count > 2, let kind = PostgreSQLClientKind(rawValue: arguments[2]),
                  let work = PostgreSQLClientWork(arguments: arguments.dropFirst(3)) else {
                throw RawFailure(description: "postgres-client: unexpected arguments \(arguments.dropFirst(2))")
            }
            try runPostgreSQLClient(kind, work)
        } else {
            try runPostgreSQLBenchmark(arguments.dropFirst(2))
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(arguments[1]) failed: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count > 1, arguments[1] == "prefetch" {
    do {
        print(try benchmarkPrefetching(repetitions: arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5).report)
        exit(0)
    } catch {
        print("prefetch benchmark failed: \(error)")
        exit(1)
    }
}
if arguments.count > 1, arguments[1] == "atomic" {
    do {
        try runAtomicStoreBenchmark(repetitions: arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3,
                                    objectCount: arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000)
        exit(0)
    } catch {
        print("atomic store benchmark failed: \(error)")
        exit(1)
    }
}
let rowCount = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let repetitions = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let lookups = min(10_000, rowCount)

/// The unindexed attribute's value for row `i`: a permutation of 0..<rowCount, so `a1 < k` selects k rows.
/// The attribute names, made once so the loops measure the store, not string building.
let attributeKeys = (0..<10).map { "a\($0)" }

func scrambled(_ i: Int) -> Int64 { Int64((i &* 7919) % rowCount) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func scratchURL(_ name: String) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-benchmark-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name)
}

/// The workloads, in the order they run within one repetition.
let workloads = ["insert + save", "fetch all, read every attribute", "dictionary-result fetch, every row", "dictionary-result fetch, values not read", "predicate, indexed, 10%", "predicate, unindexed, 10%",
                 "predicate, unindexed, 0.1%", "\(lookups) fetches by ID", "update one attribute + save", "batch delete half, then all",
                 "batch insert all", "batch update one attribute, all rows", "\(lookups) look-ups of registered objects"]
/// The workloads to run: every one, or with `BENCHMARK_WORKLOADS` (comma-separated parts of names, e.g.
/// `update one` or `batch`) those whose names contain a part, plus those that make the others' rows and
/// objects: insert + save, fetch all, batch delete and batch insert always run.
let selectedWorkloads: Set<String> = {
    guard let filter = ProcessInfo.processInfo.environment["BENCHMARK_WORKLOADS"], !filter.isEmpty else { return Set(workloads) }
    let parts = filter.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    let needed = [workloads[0], workloads[1], workloads[9], workloads[10]]
    return Set(workloads.filter { name in needed.contains(name) || parts.contains { name.lowercased().contains($0) } })
}()
/// Whether the table named `table` after the main one runs (`evaluation`: in-memory predicate evaluation,
/// `in-memory`: fetching from a loaded in-memory store, `prefetching`, `upsert`: batch insert resolving
/// uniqueness conflicts): always without `BENCHMARK_WORKLOADS`;
/// with it, only when a part of it is `extra` (every table) or the table's name, so a profile or callgrind run
/// of a few workloads does not also pay for the others.
func runsExtraTable(_ table: String) -> Bool {
    guard let filter = ProcessInfo.processInfo.environment["BENCHMARK_WORKLOADS"], !filter.isEmpty else { return true }
    return filter.lowercased().split(separator: ",").contains { part in
        let part = part.trimmingCharacters(in: .whitespaces)
        return part == "extra" || part == table
    }
}
/// Whether workloads are timed in CPU time of this process (user + system, `BENCHMARK_CLOCK=cpu`) rather than
/// wall-clock time: on a machine shared with other builds, CPU time leaves out the time spent waiting for a
/// core (and for the disk), so two binaries can be compared under load.
let timesCPU = ProcessInfo.processInfo.environment["BENCHMARK_CLOCK"] == "cpu"
/// Runs `body` and adds its time to `times` under `workload`, when the workload is selected.
func measure(_ workload: String, _ times: inout [String: [Double]], _ body: () throws -> Void) rethrows {
    guard selectedWorkloads.contains(workload) else { return }
    guard timesCPU else { return times[workload, default: []].append(try seconds(body)) }
    let start = processCPUSeconds()
    try body()
    times[workload, default: []].append(processCPUSeconds() - start)
}
var storeTimes: [String: [Double]] = [:]
var backendTimes: [String: [Double]] = [:]
var rawTimes: [String: [Double]] = [:]
var checksum: Int64 = 0

/// The objects of the batch-insert workload, by attribute name, built once outside the timings.
let batchObjects: [[String: Any]] = (0..<rowCount).map { i in
    var object: [String: Any] = ["a0": Int64(i), "a1": scrambled(i)]
    for k in 2..<10 { object["a\(k)"] = Int64(i * k) }
    return object
}

// MARK: The store

/// The benchmark entity as an app declares it: typed properties backed by the model.
final class Record: NSManagedObject {
    @Managed var a0: Int64
    @Managed var a1: Int64
    @Managed var a2: Int64
    @Managed var a3: Int64
    @Managed var a4: Int64
    @Managed var a5: Int64
    @Managed var a6: Int64
    @Managed var a7: Int64
    @Managed var a8: Int64
    @Managed var a9: Int64

    /// All ten values, read through the typed properties.
    var sum: Int64 { a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9 }
}

func benchmarkModel() -> NSManagedObjectModel {
    let entity = NSEntityDescription(name: "Record")
    entity.properties = (0..<10).map { index in
        let attribute = NSAttributeDescription(name: "a\(index)", type: .integer64, defaultValue: 0)
        attribute.isIndexed = index == 0
        return attribute
    }
    return NSManagedObjectModel(entities: [entity])
}

func runStore() throws {
    let model = benchmarkModel()
    let url = scratchURL("store.sqlite")
    func stack() throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }
    var (coordinator, context) = try stack()
    let entity = model.entitiesByName["Record"]!
    try measure(workloads[0], &storeTimes) {
        try context.performAndWait {
            for i in 0..<rowCount {
                let object = Record(entity: entity, insertInto: context)
                object.a0 = Int64(i)
                object.a1 = scrambled(i)
                object.a2 = Int64(i * 2); object.a3 = Int64(i * 3); object.a4 = Int64(i * 4); object.a5 = Int64(i * 5)
                object.a6 = Int64(i * 6); object.a7 = Int64(i * 7); object.a8 = Int64(i * 8); object.a9 = Int64(i * 9)
            }
            try context.save()
        }
    }
    for store in coordinator.persistentStores { try coordinator.remove(store) }
    (coordinator, context) = try stack()
    var all: [Record] = []
    try measure(workloads[1], &storeTimes) {
        try context.performAndWait {
            all = try context.fetch(NSFetchRequest<Record>(entityName: "Record"))
            var sum: Int64 = 0
            for object in all { sum &+= object.sum }
            checksum &+= sum
        }
    }
    try measure(workloads[2], &storeTimes) {
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Record")
            request.resultType = .dictionaryResultType
            var sum: Int64 = 0
            for dictionary in try context.fetch(request) {
                for key in attributeKeys { sum &+= dictionary[key] as? Int64 ?? 0 }
            }
            checksum &+= sum
        }
    }
    try measure(workloads[3], &storeTimes) {
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Record")
            request.resultType = .dictionaryResultType
            checksum &+= Int64(try context.fetch(request).count)
        }
    }
    func predicateFetch(_ workload: String, _ predicate: NSPredicate) throws {
        try measure(workload, &storeTimes) {
            try context.performAndWait {
                let request = NSFetchRequest<Record>(entityName: "Record")
                request.predicate = predicate
                let found = try context.fetch(request)
                for object in found { checksum &+= object.a2 }
            }
        }
    }
    try predicateFetch(workloads[4], NSPredicate(format: "a0 < %d", rowCount / 10))
    try predicateFetch(workloads[5], NSPredicate(format: "a1 < %d", rowCount / 10))
    try predicateFetch(workloads[6], NSPredicate(format: "a1 < %d", rowCount / 1000))
    let ids = context.performAndWait { stride(from: 0, to: all.count, by: max(1, all.count / lookups)).prefix(lookups).map { all[$0].objectID } }
    let (lookupCoordinator, lookupContext) = (coordinator, NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType))
    lookupContext.persistentStoreCoordinator = lookupCoordinator
    try measure(workloads[7], &storeTimes) {
        try lookupContext.performAndWait {
            for id in ids { checksum &+= (try lookupContext.existingObject(with: id) as? Record)?.a3 ?? 0 }
        }
    }
    // The same IDs in the context that fetched them: each is registered and filled, so `existingObject(with:)`
    // returns it without reading a row (Apple's documented behaviour); the other sides look each row up by key.
    try measure(workloads[12], &storeTimes) {
        try context.performAndWait {
            for id in ids { checksum &+= (try context.existingObject(with: id) as? Record)?.a3 ?? 0 }
        }
    }
    try measure(workloads[8], &storeTimes) {
        try context.performAndWait {
            for object in all { object.a2 += 1 }
            try context.save()
        }
    }
    try measure(workloads[9], &storeTimes) {
        try context.performAndWait {
            let half = NSFetchRequest<NSFetchRequestResult>(entityName: "Record")
            half.predicate = NSPredicate(format: "a0 < %d", rowCount / 2)
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: half))
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Record")))
        }
    }
    try measure(workloads[10], &storeTimes) {
        try context.performAndWait { _ = try context.execute(NSBatchInsertRequest(entityName: "Record", objects: batchObjects)) }
    }
    try measure(workloads[11], &storeTimes) {
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Record")
            update.propertiesToUpdate = ["a2": Int64(7)]
            _ = try context.execute(update)
        }
    }
    for store in coordinator.persistentStores { try coordinator.remove(store) }
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

// MARK: The store contract, without contexts

/// The same workloads against `SQLiteStore` directly (rows, keys and change sets): what the store itself
/// costs, apart from the managed-object layer above it.
func runBackend() throws {
    let model = benchmarkModel()
    let entity = model.entitiesByName["Record"]!
    let url = scratchURL("backend.sqlite")
    let store = try SQLiteStore(StoreOpenRequest(model: model, configurationName: nil, url: url, options: [:]))
    defer { store.close() }
    var keys: [ObjectKey] = []
    try measure(workloads[0], &backendTimes) {
        var changes = StoreChangeSet()
        let primaryKeys = try store.allocatePrimaryKeys(for: entity, count: rowCount)
        changes.inserted.reserveCapacity(rowCount)
        for (i, primaryKey) in primaryKeys.enumerated() {
            var values: [Any?] = [Int64(i), scrambled(i)]
            for k in 2..<10 { values.append(Int64(i * k)) }
            changes.inserted.append(StoreRow(key: ObjectKey(entityNumber: entity.entityNumber, primaryKey: primaryKey), version: 0, values: values))
        }
        keys = changes.inserted.map(\.key)
        _ = try store.save(changes)
    }
    var all: [StoreRow] = []
    try measure(workloads[1], &backendTimes) {
        guard case .rows(let rows) = try store.fetch(StoreFetchRequest(entity: entity)) else { return }
        all = rows
        var sum: Int64 = 0
        for row in rows { for value in row.values { sum &+= value as? Int64 ?? 0 } }
        checksum &+= sum
    }
    try measure(workloads[2], &backendTimes) {
        let request = StoreFetchRequest(entity: entity, result: .dictionaries(properties: entity.properties, distinct: false))
        guard case .dictionaries(let dictionaries) = try store.fetch(request) else { return }
        var sum: Int64 = 0
        for dictionary in dictionaries {
            for key in attributeKeys { sum &+= dictionary[key] as? Int64 ?? 0 }
        }
        checksum &+= sum
    }
    try measure(workloads[3], &backendTimes) {
        let request = StoreFetchRequest(entity: entity, result: .dictionaries(properties: entity.properties, distinct: false))
        guard case .dictionaries(let dictionaries) = try store.fetch(request) else { return }
        checksum &+= Int64(dictionaries.count)
    }
    func predicateFetch(_ workload: String, _ predicate: NSPredicate) throws {
        try measure(workload, &backendTimes) {
            guard case .rows(let rows) = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate)) else { return }
            for row in rows { checksum &+= row.values[2] as? Int64 ?? 0 }
        }
    }
    try predicateFetch(workloads[4], NSPredicate(format: "a0 < %d", rowCount / 10))
    try predicateFetch(workloads[5], NSPredicate(format: "a1 < %d", rowCount / 10))
    try predicateFetch(workloads[6], NSPredicate(format: "a1 < %d", rowCount / 1000))
    let sample = stride(from: 0, to: keys.count, by: max(1, keys.count / lookups)).prefix(lookups).map { keys[$0] }
    for workload in [workloads[7], workloads[12]] {
        try measure(workload, &backendTimes) {
            for key in sample { checksum &+= try store.rows(for: [key]).first?.values[3] as? Int64 ?? 0 }
        }
    }
    try measure(workloads[8], &backendTimes) {
        var changes = StoreChangeSet()
        changes.updated = all.map { row in
            var row = row
            row.values[2] = (row.values[2] as? Int64 ?? 0) + 1
            return StoreRowUpdate(row: row, expectedVersion: row.version, changedSlots: [2])
        }
        _ = try store.save(changes)
    }
    try measure(workloads[9], &backendTimes) {
        _ = try store.batchDeleteCount(.matching(StoreFetchRequest(entity: entity, predicate: NSPredicate(format: "a0 < %d", rowCount / 2), result: .keys)))
        _ = try store.batchDeleteCount(.matching(StoreFetchRequest(entity: entity, result: .keys)))
    }
    try measure(workloads[10], &backendTimes) {
        _ = try store.batchInsert(StoreBatchInsertRequest(entity: entity, objects: batchObjects))
    }
    try measure(workloads[11], &backendTimes) {
        // As the API's status-only request runs it: the count of updated rows, not their keys.
        _ = try store.batchUpdateCount(StoreBatchUpdateRequest(fetch: StoreFetchRequest(entity: entity), propertiesToUpdate: ["a2": Int64(7)]))
    }
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

// MARK: Raw SQLite

func runRaw() throws {
    let url = scratchURL("raw.sqlite")
    let raw = try RawSQLite(url)
    defer { raw.close() }
    let db = raw.db
    let exec = raw.exec, prepare = raw.prepare
    // With BENCHMARK_RAW_APPLE_FORMAT=1 the raw file gets the store's file settings (incremental auto-vacuum).
    if ProcessInfo.processInfo.environment["BENCHMARK_RAW_APPLE_FORMAT"] == "1" { try exec("PRAGMA auto_vacuum = 2") }
    try exec("PRAGMA journal_mode = WAL; PRAGMA secure_delete = OFF")
    let columns = (0..<10).map { "ZA\($0)" }
    try exec("CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \(columns.map { "\($0) INTEGER" }.joined(separator: ", ")) )")
    try exec("CREATE INDEX ZRECORD_ZA0_INDEX ON ZRECORD (ZA0)")
    // The keys given out so far, as Apple's Z_PRIMARYKEY keeps them: new rows never reuse a deleted row's key.
    try exec("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER); INSERT INTO Z_PRIMARYKEY VALUES (1, 'Record', 0, 0)")
    /// Inserts every row with one prepared statement in one transaction, with keys reserved in `Z_PRIMARYKEY`
    /// in the same transaction (as a save and a batch insert reserve theirs); with `fromDictionaries`, each
    /// row's values are read from its dictionary in `batchObjects`, the batch insert's input, as the store
    /// reads them.
    func insertAll(fromDictionaries: Bool = false) throws {
        let insert = try prepare("INSERT INTO ZRECORD (Z_PK, Z_ENT, Z_OPT, \(columns.joined(separator: ", "))) VALUES (?, 1, 1, \(columns.map { _ in "?" }.joined(separator: ", ")))")
        defer { sqlite3_finalize(insert) }
        try exec("BEGIN")
        let reserve = try prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = 1 RETURNING Z_MAX")
        defer { sqlite3_finalize(reserve) }
        sqlite3_bind_int64(reserve, 1, Int64(rowCount))
        guard sqlite3_step(reserve) == SQLITE_ROW else { throw RawFailure(description: "key reservation: \(String(cString: sqlite3_errmsg(db)))") }
        let firstKey = sqlite3_column_int64(reserve, 0) - Int64(rowCount) + 1
        sqlite3_reset(reserve)  // done before the COMMIT, which refuses while a statement is still running
        for i in 0..<rowCount {
            sqlite3_bind_int64(insert, 1, firstKey + Int64(i))
            if fromDictionaries {
                let object = batchObjects[i]
                for (k, key) in attributeKeys.enumerated() {
                    guard let value = object[key] as? Int64 else { throw RawFailure(description: "batch object \(i) has no Int64 \(key)") }
                    sqlite3_bind_int64(insert, Int32(k + 2), value)
                }
            } else {
                sqlite3_bind_int64(insert, 2, Int64(i))
                sqlite3_bind_int64(insert, 3, scrambled(i))
                for k in 2..<10 { sqlite3_bind_int64(insert, Int32(k + 2), Int64(i * k)) }
            }
            guard sqlite3_step(insert) == SQLITE_DONE else { throw RawFailure(description: String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(insert)
        }
        try exec("COMMIT")
    }
    try measure(workloads[0], &rawTimes) {
        try insertAll()
    }
    struct Row { var pk: Int64; var version: Int64; var values: [Int64] }
    func select(_ sql: String, _ bind: (OpaquePointer) -> Void = { _ in }) throws -> [Row] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(statement)
        var rows: [Row] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(Row(pk: sqlite3_column_int64(statement, 0), version: sqlite3_column_int64(statement, 2), values: (0..<10).map { sqlite3_column_int64(statement, Int32($0 + 3)) }))
        }
        return rows
    }
    let selectAll = "SELECT Z_PK, Z_ENT, Z_OPT, \(columns.joined(separator: ", ")) FROM ZRECORD"
    var all: [Row] = []
    try measure(workloads[1], &rawTimes) {
        all = try select(selectAll)
        var sum: Int64 = 0
        for row in all { for value in row.values { sum &+= value } }
        checksum &+= sum
    }
    // The dictionary-result workloads' raw side: the attribute columns only, each row's ten values read into an
    // array of its own (as the fetch-all side reads them); with `readingValues`, every value then read once.
    func selectAttributes(readingValues: Bool) throws {
        let statement = try prepare("SELECT \(columns.joined(separator: ", ")) FROM ZRECORD")
        defer { sqlite3_finalize(statement) }
        var rows: [[Int64]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<10).map { sqlite3_column_int64(statement, Int32($0)) })
        }
        guard readingValues else { return checksum &+= Int64(rows.count) }
        var sum: Int64 = 0
        for row in rows { for value in row { sum &+= value } }
        checksum &+= sum
    }
    try measure(workloads[2], &rawTimes) {try selectAttributes(readingValues: true) }
    try measure(workloads[3], &rawTimes) {try selectAttributes(readingValues: false) }
    func predicateFetch(_ workload: String, _ column: String, _ limit: Int) throws {
        try measure(workload, &rawTimes) {
            let rows = try select(selectAll + " WHERE \(column) < ?") { sqlite3_bind_int64($0, 1, Int64(limit)) }
            for row in rows { checksum &+= row.values[2] }
        }
    }
    try predicateFetch(workloads[4], "ZA0", rowCount / 10)
    try predicateFetch(workloads[5], "ZA1", rowCount / 10)
    try predicateFetch(workloads[6], "ZA1", rowCount / 1000)
    let keys = stride(from: 0, to: all.count, by: max(1, all.count / lookups)).prefix(lookups).map { all[$0].pk }
    for workload in [workloads[7], workloads[12]] {
        try measure(workload, &rawTimes) {
            let statement = try prepare(selectAll + " WHERE Z_PK = ?")
            defer { sqlite3_finalize(statement) }
            for key in keys {
                sqlite3_bind_int64(statement, 1, key)
                if sqlite3_step(statement) == SQLITE_ROW { checksum &+= sqlite3_column_int64(statement, 6) }
                sqlite3_reset(statement)
            }
        }
    }
    try measure(workloads[8], &rawTimes) {
        // Optimistic locking, as a context's save does: the row is written only if its version is the one read.
        let update = try prepare("UPDATE ZRECORD SET ZA2 = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?")
        defer { sqlite3_finalize(update) }
        try exec("BEGIN")
        for row in all {
            sqlite3_bind_int64(update, 1, row.values[2] + 1)
            sqlite3_bind_int64(update, 2, row.pk)
            sqlite3_bind_int64(update, 3, row.version)
            guard sqlite3_step(update) == SQLITE_DONE, sqlite3_changes(db) == 1 else { throw RawFailure(description: "update of row \(row.pk): \(String(cString: sqlite3_errmsg(db)))") }
            sqlite3_reset(update)
        }
        try exec("COMMIT")
    }
    try measure(workloads[9], &rawTimes) {
        try exec("BEGIN")
        let half = try prepare("DELETE FROM ZRECORD WHERE ZA0 < ?")
        sqlite3_bind_int64(half, 1, Int64(rowCount / 2))
        _ = sqlite3_step(half)
        sqlite3_finalize(half)
        try exec("COMMIT")
        try exec("BEGIN; DELETE FROM ZRECORD; COMMIT")
    }
    try measure(workloads[10], &rawTimes) {
        try insertAll(fromDictionaries: true)
    }
    try measure(workloads[11], &rawTimes) {
        let update = try prepare("UPDATE ZRECORD SET ZA2 = ?, Z_OPT = Z_OPT + 1")
        defer { sqlite3_finalize(update) }
        sqlite3_bind_int64(update, 1, 7)
        try exec("BEGIN")
        guard sqlite3_step(update) == SQLITE_DONE else { throw RawFailure(description: String(cString: sqlite3_errmsg(db))) }
        try exec("COMMIT")
    }
    raw.close()
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

// MARK: Run and report

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The sides to run: all three, or those named in `BENCHMARK_SIDES` (a comma-separated list of `api`, `store`
/// and `raw`), to profile one side alone.
let sides = Set((ProcessInfo.processInfo.environment["BENCHMARK_SIDES"] ?? "api,store,raw").split(separator: ",").map(String.init))
print("coredata-benchmark: \(rowCount) rows, \(repetitions) repetitions, SQLite \(String(cString: sqlite3_libversion()))")
do {
    for repetition in 1...repetitions {
        // Alternate which side runs first, so neither always meets a warm or a cold cache.
        let order: [(String, () throws -> Void)] = [("raw", runRaw), ("store", runBackend), ("api", runStore)]
        for (side, run) in repetition % 2 == 1 ? order : order.reversed() where sides.contains(side) { try run() }
        print("  repetition \(repetition) done")
    }
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
func ms(_ value: Double) -> String { String(format: "%9.1f ms", value * 1000) }
print("\n| workload | public API (contexts) | store contract (SQLiteStore) | raw SQLite | API / raw | store / raw |")
print("|---|---:|---:|---:|---:|---:|")
for workload in workloads {
    let store = median(storeTimes[workload] ?? []), backend = median(backendTimes[workload] ?? []), raw = median(rawTimes[workload] ?? [])
    print("| \(workload) | \(ms(store)) | \(ms(backend)) | \(ms(raw)) | \(String(format: "%.2f×", store / raw)) | \(String(format: "%.2f×", backend / raw)) |")
}
do {
    if runsExtraTable("evaluation") {
        let evaluated = 1_000_000
        let (time, prepared, matches) = try benchmarkPredicateEvaluation(count: evaluated, repetitions: repetitions)
        print("\nIn-memory predicate evaluation: \(evaluated) rows, \"amount > 500 AND name BEGINSWITH[c] 'GA' OR category IN {1, 2}\", \(matches) matches:")
        print("  row by row (a context's pending changes): median \(ms(time)), \(String(format: "%.1f", Double(evaluated) / time / 1e6)) million rows/s")
        print("  prepared once (the atomic stores' fetch): median \(ms(prepared)), \(String(format: "%.1f", Double(evaluated) / prepared / 1e6)) million rows/s")
    }
    if runsExtraTable("in-memory") { print(try benchmarkInMemoryFetching(rows: rowCount, repetitions: repetitions)) }
} catch {
    print("predicate benchmark failed: \(error)")
    exit(1)
}
do {
    if runsExtraTable("prefetching") { print(try benchmarkPrefetching(repetitions: repetitions).report) }
} catch {
    print("prefetch benchmark failed: \(error)")
    exit(1)
}
do {
    if runsExtraTable("upsert") { print(try benchmarkBatchUpsert(rows: rowCount, repetitions: repetitions).report) }
} catch {
    print("upsert benchmark failed: \(error)")
    exit(1)
}
print("\n(checksum \(checksum))")

import CSQLite
import CoreData
import Foundation

/// Batch insert into an entity with a uniqueness constraint, under `NSMergeByPropertyObjectTrumpMergePolicy`
/// (Apple's upsert, as the Earthquakes sample re-imports its feed): every row new into an empty store, then the
/// same keys again with new values, so every row updates a stored one. Raw SQLite does the same writes the
/// simplest fast way: one reused `INSERT … ON CONFLICT DO UPDATE …` per row, keys reserved in `Z_PRIMARYKEY`,
/// values read from the same dictionaries, one transaction per batch; it collects no keys (the store returns
/// the written objects' keys and records history from them).
struct BatchUpsertBenchmarkResult {
    let rows: Int
    /// Median seconds of each side, for the all-new and the all-existing batch.
    let api: (new: Double, existing: Double)
    let raw: (new: Double, existing: Double)

    /// The result as the report's lines.
    var report: String {
        func line(_ name: String, _ api: Double, _ raw: Double) -> String {
            "| \(name) | \(ms(api)) | \(ms(raw)) | \(String(format: "%.2f×", api / raw)) |"
        }
        return ["\nBatch insert with a uniqueness constraint on a0, object-trump merge policy (upsert), \(rows) rows (SQLite)",
                "| batch | public API (contexts) | raw SQLite | API / raw |", "|---|---:|---:|---:|",
                line("every row new", api.new, raw.new), line("every row updates a stored one", api.existing, raw.existing)].joined(separator: "\n")
    }
}

/// The upsert benchmarks' model: entity `Keyed`, ten Int64 attributes `a0`…`a9`, uniqueness constraint `[["a0"]]`.
func upsertBenchmarkModel() -> NSManagedObjectModel {
    let entity = NSEntityDescription(name: "Keyed")
    entity.properties = (0..<10).map { NSAttributeDescription(name: "a\($0)", type: .integer64, defaultValue: 0) }
    entity.uniquenessConstraints = [["a0"]]
    return NSManagedObjectModel(entities: [entity])
}

/// The upsert benchmarks' two batches of `rows` objects: every row new (`a0` the row number), then the same keys
/// with a changed `a1`.
func upsertBenchmarkBatches(rows: Int) -> (fresh: [[String: Any]], changed: [[String: Any]]) {
    let fresh: [[String: Any]] = (0..<rows).map { i in Dictionary(uniqueKeysWithValues: (0..<10).map { k in ("a\(k)", Int64(i * (k + 1)) as Any) }) }
    var changed = fresh
    for i in changed.indices { changed[i]["a1"] = Int64(-i) }
    return (fresh, changed)
}

/// Runs both batches `repetitions` times on each side, each repetition on a new file.
func benchmarkBatchUpsert(rows: Int, repetitions: Int) throws -> BatchUpsertBenchmarkResult {
    let (fresh, changed) = upsertBenchmarkBatches(rows: rows)
    var api: [(Double, Double)] = []
    var raw: [(Double, Double)] = []
    for repetition in 0..<repetitions {
        // Alternate which side runs first, so neither always meets a warm or a cold cache.
        if repetition % 2 == 0 {
            api.append(try upsertThroughContexts(fresh, changed))
            raw.append(try upsertInRawSQLite(fresh, changed))
        } else {
            raw.append(try upsertInRawSQLite(fresh, changed))
            api.append(try upsertThroughContexts(fresh, changed))
        }
    }
    return BatchUpsertBenchmarkResult(rows: rows, api: (median(api.map(\.0)), median(api.map(\.1))),
                                      raw: (median(raw.map(\.0)), median(raw.map(\.1))))
}

/// The two batch inserts through a context on a new SQLite store; their times.
private func upsertThroughContexts(_ fresh: [[String: Any]], _ changed: [[String: Any]]) throws -> (Double, Double) {
    let url = scratchURL("upsert.sqlite")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    return try upsertThroughContext(storeType: .sqlite, at: url, fresh, changed)
}

/// The two batch inserts (every row new, then every row changed) through a private-queue context with the
/// object-trump merge policy, on a new store of `storeType` at `url`; their times. Shared by the SQLite and the
/// PostgreSQL upsert tables.
func upsertThroughContext(storeType: NSPersistentStore.StoreType, at url: URL, _ fresh: [[String: Any]],
                          _ changed: [[String: Any]]) throws -> (new: Double, existing: Double) {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: upsertBenchmarkModel())
    try coordinator.addPersistentStore(type: storeType, at: url)
    defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    func batch(_ objects: [[String: Any]]) throws -> Double {
        try seconds {
            try context.performAndWait { _ = try context.execute(NSBatchInsertRequest(entityName: "Keyed", objects: objects)) }
        }
    }
    return (try batch(fresh), try batch(changed))
}

private func upsertInRawSQLite(_ fresh: [[String: Any]], _ changed: [[String: Any]]) throws -> (Double, Double) {
    let url = scratchURL("upsert-raw.sqlite")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let raw = try RawSQLite(url)
    defer { raw.close() }
    let db = raw.db
    let exec = raw.exec, prepare = raw.prepare
    let columns = (0..<10).map { "ZA\($0)" }
    try exec("PRAGMA journal_mode = WAL; PRAGMA secure_delete = OFF")
    try exec("CREATE TABLE ZKEYED ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \(columns.map { "\($0) INTEGER" }.joined(separator: ", ")) )")
    try exec("CREATE UNIQUE INDEX Z_Keyed_UNIQUE_a0 ON ZKEYED (ZA0 COLLATE BINARY ASC)")
    try exec("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER); INSERT INTO Z_PRIMARYKEY VALUES (1, 'Keyed', 0, 0)")
    let set = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    let upsert = try prepare("""
        INSERT INTO ZKEYED (Z_PK, Z_ENT, Z_OPT, \(columns.joined(separator: ", "))) VALUES (?1, 1, 1, \(columns.indices.map { "?\($0 + 2)" }.joined(separator: ", "))) \
        ON CONFLICT DO UPDATE SET \(set), Z_OPT = Z_OPT + 1 WHERE Z_ENT = excluded.Z_ENT
        """)
    defer { sqlite3_finalize(upsert) }
    let reserve = try prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = 1 RETURNING Z_MAX")
    defer { sqlite3_finalize(reserve) }
    func batch(_ objects: [[String: Any]]) throws -> Double {
        try seconds {
            try exec("BEGIN")
            sqlite3_bind_int64(reserve, 1, Int64(objects.count))
            guard sqlite3_step(reserve) == SQLITE_ROW else { throw RawFailure(description: "key reservation") }
            let firstKey = sqlite3_column_int64(reserve, 0) - Int64(objects.count) + 1
            sqlite3_reset(reserve)
            for (i, object) in objects.enumerated() {
                sqlite3_bind_int64(upsert, 1, firstKey + Int64(i))
                for (k, key) in attributeKeys.enumerated() {
                    guard let value = object[key] as? Int64 else { throw RawFailure(description: "object \(i) has no \(key)") }
                    sqlite3_bind_int64(upsert, Int32(k + 2), value)
                }
                guard sqlite3_step(upsert) == SQLITE_DONE else { throw RawFailure(description: String(cString: sqlite3_errmsg(db))) }
                sqlite3_reset(upsert)
            }
            try exec("COMMIT")
        }
    }
    return (try batch(fresh), try batch(changed))
}

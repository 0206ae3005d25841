// The PostgreSQL form of the upsert table (BatchUpsertBenchmark.swift): a batch insert into an entity with a
// uniqueness constraint under `NSMergeByPropertyObjectTrumpMergePolicy`, every row new into an empty store, then
// the same keys again with new values, so every row updates a stored one. The raw side writes the same rows the
// way an application talking to PostgreSQL directly would: keys reserved in `Z_PRIMARYKEY`, then prepared
// multi-row `INSERT … ON CONFLICT (ZA0) DO UPDATE …` statements of 500 rows, in one transaction per batch, values
// read from the same dictionaries; it collects no keys (the store returns the written objects' keys and records
// history from them). Each side of each repetition works in a fresh schema, on the table the store creates.
import CLibPQ
import CoreData
import CoreDataPostgreSQL
import Foundation

/// Runs both batches `repetitions` times on each side and prints the medians and ratios.
/// - Throws: the first failure of a side (a store error, or `RawFailure` from libpq).
func runPostgreSQLUpsert(on server: PostgreSQLBenchmarkServer, rows: Int, repetitions: Int) throws {
    let (fresh, changed) = upsertBenchmarkBatches(rows: rows)
    var api: [(new: Double, existing: Double)] = []
    var raw: [(new: Double, existing: Double)] = []
    for repetition in 0..<repetitions {
        let apiFirst = repetition % 2 == 0
        for side in apiFirst ? [true, false] : [false, true] {
            let schema = server.freshSchema()
            defer { try? server.drop(schema: schema) }
            if side {
                api.append(try upsertThroughContexts(server: server, schema: schema, fresh, changed))
            } else {
                raw.append(try upsertWithLibPQ(server: server, schema: schema, fresh, changed))
            }
        }
    }
    func line(_ name: String, _ api: Double, _ raw: Double) -> String {
        "| \(name) | \(ms(api)) | \(ms(raw)) | \(String(format: "%.2f×", api / raw)) |"
    }
    print("\nBatch insert with a uniqueness constraint on a0, object-trump merge policy (upsert), \(rows) rows, \(repetitions) repetitions")
    print("| batch | public API (contexts) | raw libpq | API / raw |\n|---|---:|---:|---:|")
    print(line("every row new", median(api.map(\.new)), median(raw.map(\.new))))
    print(line("every row updates a stored one", median(api.map(\.existing)), median(raw.map(\.existing))))
}

/// The two batch inserts through a context on a PostgreSQL store in `schema`; their times.
private func upsertThroughContexts(server: PostgreSQLBenchmarkServer, schema: String, _ fresh: [[String: Any]],
                                   _ changed: [[String: Any]]) throws -> (new: Double, existing: Double) {
    try upsertThroughContext(storeType: .postgreSQL, at: server.storeURL(schema: schema), fresh, changed)
}

/// The two batches as SQL through libpq on the store's table in `schema`; their times.
private func upsertWithLibPQ(server: PostgreSQLBenchmarkServer, schema: String, _ fresh: [[String: Any]],
                             _ changed: [[String: Any]]) throws -> (new: Double, existing: Double) {
    let model = upsertBenchmarkModel()
    let entityNumber = Int64(model.entitiesByName["Keyed"]!.entityNumber)
    try PostgreSQLStore(StoreOpenRequest(model: model, configurationName: nil, url: server.storeURL(schema: schema), options: [:])).close()
    let client = try LibPQClient(uri: server.uri, schema: schema)
    let columns = (0..<10).map { "ZA\($0)" }
    // Not main.swift's `attributeKeys`: the PostgreSQL benchmark runs before main.swift's later globals are set.
    let keys = (0..<10).map { "a\($0)" }
    let head = "INSERT INTO ZKEYED (Z_PK, Z_ENT, Z_OPT, \(columns.joined(separator: ", "))) VALUES "
    let conflict = " ON CONFLICT (ZA0) DO UPDATE SET \(columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")), "
        + "Z_OPT = ZKEYED.Z_OPT + 1 WHERE ZKEYED.Z_ENT = excluded.Z_ENT"
    let chunk = 500
    func tuples(_ count: Int) -> String {
        (0..<count).map { row in "(" + (1...13).map { "$\(row * 13 + $0)" }.joined(separator: ", ") + ")" }.joined(separator: ", ")
    }
    try client.prepare("upsert chunk", head + tuples(chunk) + conflict)
    try client.prepare("upsert", head + tuples(1) + conflict)
    try client.prepare("reserve", "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX")
    func batch(_ objects: [[String: Any]]) throws -> Double {
        try seconds {
            try client.execute("BEGIN")
            let reserved = try client.run("reserve", [Int64(objects.count), entityNumber])
            let firstKey = LibPQClient.int64(reserved, 0, 0) - Int64(objects.count) + 1
            PQclear(reserved)
            var parameters: [Int64] = []
            parameters.reserveCapacity(chunk * 13)
            for (i, object) in objects.enumerated() {
                parameters += [firstKey + Int64(i), entityNumber, 1]
                for key in keys {
                    guard let value = object[key] as? Int64 else { throw RawFailure(description: "object \(i) has no \(key)") }
                    parameters.append(value)
                }
                let isLast = i == objects.count - 1
                if parameters.count == chunk * 13 || isLast {
                    if parameters.count == chunk * 13 {
                        try client.command("upsert chunk", parameters)
                    } else {
                        for start in stride(from: 0, to: parameters.count, by: 13) {
                            try client.command("upsert", Array(parameters[start..<start + 13]))
                        }
                    }
                    parameters.removeAll(keepingCapacity: true)
                }
            }
            try client.execute("COMMIT")
        }
    }
    return (try batch(fresh), try batch(changed))
}

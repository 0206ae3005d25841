// One client process of the concurrent PostgreSQL workload (PostgreSQLConcurrency.swift starts N of them).
// A client connects, says `ready`, waits for `go` on its standard input, then repeats rounds until it has done
// its operations or its time is up: insert `batch` records and commit, then change one attribute of each of
// them and commit. Every inserted or updated row is one operation. It prints
// `<operations> <start ns> <end ns> <CPU seconds>` (CLOCK_MONOTONIC, shared by the processes of one machine; the
// client's CPU time from `go` to its end) and exits.
//
// The two kinds of client send the same SQL for a round: the Core Data client through a context on a
// PostgreSQL store (keys from `Z_PRIMARYKEY`, one `INSERT` per row, updates that check `Z_OPT`, each save one
// transaction with its `pg_notify`); the libpq client the same statements, prepared (unless
// `BENCHMARK_RAW_UNPREPARED=1`), without `pg_notify` (unless `BENCHMARK_RAW_NOTIFY=1`).
import CLibPQ
import CoreData
import Foundation

/// The two kinds of client.
enum PostgreSQLClientKind: String, CaseIterable {
    case coreData = "core-data"
    case libpq
}

/// What one client is asked to do.
struct PostgreSQLClientWork {
    /// The server's libpq URI and the schema holding the store.
    var uri: String
    var schema: String
    /// Operations (rows inserted plus rows updated) after which the client stops.
    var operations: Int
    /// Rows per transaction.
    var batch: Int
    /// Seconds after `go` after which the client stops even if it has not done its operations.
    var timeLimit: Double

    /// The arguments after `postgres-client <kind>`, and back.
    var arguments: [String] { [uri, schema, String(operations), String(batch), String(timeLimit)] }

    init(uri: String, schema: String, operations: Int, batch: Int, timeLimit: Double) {
        (self.uri, self.schema, self.operations, self.batch, self.timeLimit) = (uri, schema, operations, batch, timeLimit)
    }

    init?(arguments: ArraySlice<String>) {
        let fields = Array(arguments)
        guard fields.count == 5, let operations = Int(fields[2]), let batch = Int(fields[3]), batch > 0,
              let timeLimit = Double(fields[4]) else { return nil }
        self.init(uri: fields[0], schema: fields[1], operations: operations, batch: batch, timeLimit: timeLimit)
    }
}

/// The client's side of the start: says it is ready, then blocks until the parent says `go`.
/// - Throws: `RawFailure` when the parent closes the pipe instead.
private func waitForGo() throws {
    print("ready")
    fflush(stdout)
    guard readLine() == "go" else { throw RawFailure(description: "the parent did not say go") }
}

/// Runs one client of `kind` in this process (the child's side) and prints its count and times.
/// - Throws: a save or libpq failure.
func runPostgreSQLClient(_ kind: PostgreSQLClientKind, _ work: PostgreSQLClientWork) throws {
    var done = 0
    let round: () throws -> Void
    switch kind {
    case .coreData:
        let model = benchmarkModel()
        let entity = model.entitiesByName["Record"]!
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgreSQL, at: PostgreSQLBenchmarkServer.storeURL(uri: work.uri, schema: work.schema))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        round = {
            try context.performAndWait {
                var objects: [Record] = []
                for i in 0..<work.batch {
                    let object = Record(entity: entity, insertInto: context)
                    object.a0 = Int64(done + i); object.a1 = Int64(i)
                    objects.append(object)
                }
                try context.save()
                for object in objects { object.a2 += 1 }
                try context.save()
                // A fresh start for the next round, as a server handles each request in a new context.
                context.reset()
            }
        }
    case .libpq:
        let client = try LibPQClient(uri: work.uri, schema: work.schema)
        let entityNumber = Int64(benchmarkModel().entitiesByName["Record"]!.entityNumber)
        let notify = ProcessInfo.processInfo.environment["BENCHMARK_RAW_NOTIFY"] == "1"
        let columns = (0..<10).map { "ZA\($0)" }.joined(separator: ", ")
        try client.prepare("keys", "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX")
        try client.prepare("insert", "INSERT INTO ZRECORD (Z_PK, Z_ENT, Z_OPT, \(columns)) VALUES (\((1...13).map { "$\($0)" }.joined(separator: ", ")))")
        try client.prepare("update", "UPDATE ZRECORD SET ZA2 = $1, Z_OPT = Z_OPT + 1 WHERE Z_PK = $2 AND Z_OPT = $3")
        try client.prepare("notify", "SELECT pg_notify('coredata_' || current_schema(), $1::bigint::text)")
        round = {
            let result = try client.run("keys", [Int64(work.batch), entityNumber])
            let last = LibPQClient.int64(result, 0, 0)
            PQclear(result)
            let keys = (last - Int64(work.batch) + 1)...last
            try client.execute("BEGIN")
            for (i, key) in keys.enumerated() {
                try client.command("insert", [key, entityNumber, 1, Int64(done + i), Int64(i), 0, 0, 0, 0, 0, 0, 0, 0])
            }
            if notify { try client.command("notify", [last]) }
            try client.execute("COMMIT")
            try client.execute("BEGIN")
            for key in keys { try client.command("update", [1, key, 1]) }
            if notify { try client.command("notify", [last]) }
            try client.execute("COMMIT")
        }
    }
    try waitForGo()
    let start = monotonicNanoseconds()
    let cpuBefore = processCPUSeconds()
    let deadline = start + UInt64(work.timeLimit * 1e9)
    while done < work.operations, monotonicNanoseconds() < deadline {
        try round()
        done += 2 * work.batch
    }
    let end = monotonicNanoseconds()
    print("\(done) \(start) \(end) \(processCPUSeconds() - cpuBefore)")
}

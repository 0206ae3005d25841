// The concurrent PostgreSQL workload: N client processes (the benchmark re-run as `postgres-client`, see
// PostgreSQLConcurrentClient.swift) inserting and updating at once on one store, Core Data clients against
// libpq clients sending the same SQL. Each measurement gets a fresh schema holding a new store, dropped
// afterwards; every client starts on the same `go` once all are connected. Throughput is the operations of all
// clients over the time from the first client's start to the last client's end; afterwards the table must hold
// one row per insert, each updated once.
import CoreData
import CoreDataPostgreSQL
import Foundation

/// The sizes of the concurrent workload.
struct PostgreSQLConcurrencySettings {
    /// The numbers of client processes measured, e.g. 1, 2, 4, 8.
    var clientCounts: [Int]
    /// Operations per client (rows inserted plus rows updated).
    var operationsPerClient: Int
    /// Rows per transaction.
    var batch: Int
    /// Seconds after which a client stops even if it has not done its operations.
    var timeLimit: Double
    var repetitions: Int
}

/// What one measurement gave: operations of all clients, the time they took, their CPU time, and whether any
/// stopped at the time limit.
struct PostgreSQLConcurrencyResult {
    var operations: Int
    var seconds: Double
    var clientCPUSeconds: Double
    var hitTimeLimit: Bool
    var operationsPerSecond: Double { Double(operations) / seconds }
    /// Microseconds of client CPU per operation.
    var clientCPUPerOperation: Double { clientCPUSeconds * 1e6 / Double(max(1, operations)) }
}

/// Runs the concurrent workload for every client count, both kinds of client, and prints the medians.
/// - Throws: when a client fails or the store cannot be created.
func runPostgreSQLConcurrency(on server: PostgreSQLBenchmarkServer, settings: PostgreSQLConcurrencySettings) throws {
    print("\nConcurrent clients: each inserts and updates \(settings.operationsPerClient / 2) rows in transactions of \(settings.batch) rows "
          + "(at most \(Int(settings.timeLimit)) s), \(settings.repetitions) repetitions")
    // One untimed round of each kind first: a new cluster is slower for its first few thousand transactions.
    for kind in PostgreSQLClientKind.allCases {
        _ = try measure(kind, clients: 1, operations: min(settings.operationsPerClient, 1_000), on: server, settings: settings)
    }
    var throughput: [PostgreSQLClientKind: [Int: [Double]]] = [:]
    var cpuPerOperation: [PostgreSQLClientKind: [Int: [Double]]] = [:]
    var stoppedOnTime = false
    for clients in settings.clientCounts {
        for repetition in 1...settings.repetitions {
            let kinds: [PostgreSQLClientKind] = repetition % 2 == 1 ? [.libpq, .coreData] : [.coreData, .libpq]
            for kind in kinds {
                let result = try measure(kind, clients: clients, operations: settings.operationsPerClient, on: server, settings: settings)
                throughput[kind, default: [:]][clients, default: []].append(result.operationsPerSecond)
                cpuPerOperation[kind, default: [:]][clients, default: []].append(result.clientCPUPerOperation)
                stoppedOnTime = stoppedOnTime || result.hitTimeLimit
            }
        }
        print("  \(clients) client\(clients == 1 ? "" : "s") done")
    }
    print("\n| client processes | Core Data, operations/s | libpq, operations/s | libpq / Core Data | client CPU per operation, Core Data | client CPU per operation, libpq |")
    print("|---:|---:|---:|---:|---:|---:|")
    for clients in settings.clientCounts {
        let coreData = median(throughput[.coreData]?[clients] ?? []), raw = median(throughput[.libpq]?[clients] ?? [])
        let coreDataCPU = median(cpuPerOperation[.coreData]?[clients] ?? []), rawCPU = median(cpuPerOperation[.libpq]?[clients] ?? [])
        print("| \(clients) | \(String(format: "%.0f", coreData)) | \(String(format: "%.0f", raw)) | \(String(format: "%.2f×", raw / coreData)) "
              + "| \(String(format: "%.0f µs", coreDataCPU)) | \(String(format: "%.0f µs", rawCPU)) |")
    }
    if stoppedOnTime { print("\n(some clients stopped at the time limit before doing all their operations)") }
}

/// Runs `clients` clients of `kind` on a new store in a fresh schema, checks the rows they left, and drops the
/// schema.
/// - Throws: when a client fails, or the table does not hold one row per insert, each updated once.
private func measure(_ kind: PostgreSQLClientKind, clients: Int, operations: Int, on server: PostgreSQLBenchmarkServer,
                     settings: PostgreSQLConcurrencySettings) throws -> PostgreSQLConcurrencyResult {
    let schema = server.freshSchema()
    defer { try? server.drop(schema: schema) }
    try PostgreSQLStore(StoreOpenRequest(model: benchmarkModel(), configurationName: nil, url: server.storeURL(schema: schema), options: [:])).close()
    let work = PostgreSQLClientWork(uri: server.uri, schema: schema, operations: operations, batch: settings.batch, timeLimit: settings.timeLimit)
    let result = try runClients(kind, count: clients, work: work)
    let counts = try server.recordCounts(schema: schema)
    guard counts.rows == result.operations / 2, counts.updatedOnce == counts.rows else {
        throw RawFailure(description: "\(kind.rawValue) clients reported \(result.operations) operations, but the table holds \(counts.rows) rows, \(counts.updatedOnce) of them updated once")
    }
    return result
}

/// Starts `count` clients of `kind`, lets them go together once all are ready, and collects their results.
/// - Throws: `RawFailure` when a client fails or prints something unexpected.
private func runClients(_ kind: PostgreSQLClientKind, count: Int, work: PostgreSQLClientWork) throws -> PostgreSQLConcurrencyResult {
    let clients = try (0..<count).map { _ in try ClientProcess(kind, work) }
    for client in clients { try client.expect("ready") }
    for client in clients { client.say("go") }
    var operations = 0
    var first = UInt64.max, last = UInt64.min
    var cpu = 0.0
    var hitTimeLimit = false
    for client in clients {
        let fields = (try client.finish()).split(separator: " ")
        guard fields.count == 4, let done = Int(fields[0]), let start = UInt64(fields[1]), let end = UInt64(fields[2]),
              let seconds = Double(fields[3]) else {
            throw RawFailure(description: "a \(kind.rawValue) client printed \(fields.joined(separator: " "))")
        }
        operations += done
        first = min(first, start)
        last = max(last, end)
        cpu += seconds
        hitTimeLimit = hitTimeLimit || done < work.operations
    }
    return PostgreSQLConcurrencyResult(operations: operations, seconds: Double(last - first) / 1e9, clientCPUSeconds: cpu,
                                       hitTimeLimit: hitTimeLimit)
}

/// A client process: this benchmark run as `postgres-client <kind> …`, talked to through its standard input
/// and output (its errors go to the benchmark's standard error).
private final class ClientProcess {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer = Data()

    init(_ kind: PostgreSQLClientKind, _ work: PostgreSQLClientWork) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["postgres-client", kind.rawValue] + work.arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Reads the client's next line and checks that it is `line`.
    func expect(_ line: String) throws {
        let read = readLine()
        guard read == line else { throw RawFailure(description: "a client said \(read ?? "nothing") instead of \(line)") }
    }

    /// Writes one line to the client.
    func say(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The client's last line, after it exited successfully.
    func finish() throws -> String {
        let line = readLine()
        while readLine() != nil {}
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line else {
            throw RawFailure(description: "a client failed (status \(process.terminationStatus))")
        }
        return line
    }

    /// The next line the client wrote, nil at the end of its output.
    private func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}

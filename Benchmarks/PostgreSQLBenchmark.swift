// The PostgreSQL benchmark's entry: its command line, the server, and the three parts (the single-client
// workloads, PostgreSQLWorkloads.swift, the batch insert that updates by a uniqueness constraint,
// PostgreSQLUpsertBenchmark.swift, and the concurrent clients, PostgreSQLConcurrency.swift). Run with:
//
//     swift run -c release coredata-benchmark postgres [rows] [repetitions] [options]
//
// Options: `--postgres URI` (else `COREDATA_POSTGRES_URL`, else a throwaway cluster started with
// `Scripts/postgres-test-server` and stopped at the end), `--clients 1,2,4,8`, `--operations N` (per client,
// rows inserted plus rows updated; default 4000), `--batch N` (rows per transaction; default 10),
// `--time-limit SECONDS` (per client; default 60), `--only workloads|upsert|concurrency`.
//
// Two environment variables change the raw side only, to find what the store's overhead is made of:
// `BENCHMARK_RAW_UNPREPARED=1` sends every libpq statement with its SQL text instead of preparing it (as the store
// does), and `BENCHMARK_RAW_NOTIFY=1` makes the concurrent libpq clients run `pg_notify` in each transaction
// (as the store's saves do).
import Foundation

/// The PostgreSQL benchmark's command line, after `postgres`.
struct PostgreSQLBenchmarkOptions {
    var rows = 100_000
    var repetitions = 5
    var uri: String?
    var concurrency = PostgreSQLConcurrencySettings(clientCounts: [1, 2, 4, 8], operationsPerClient: 4_000, batch: 10,
                                                    timeLimit: 60, repetitions: 5)
    var runsWorkloads = true
    var runsUpsert = true
    var runsConcurrency = true

    /// - Throws: `RawFailure` naming the argument it cannot read.
    init(_ arguments: ArraySlice<String>) throws {
        var positional: [Int] = []
        var remaining = arguments
        func value(after option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw RawFailure(description: "\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--postgres": uri = try value(after: argument)
            case "--clients":
                let counts = try value(after: argument).split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                guard !counts.isEmpty else { throw RawFailure(description: "--clients needs counts such as 1,2,4,8") }
                concurrency.clientCounts = counts
            case "--operations": concurrency.operationsPerClient = try Self.positive(try value(after: argument), argument)
            case "--batch": concurrency.batch = try Self.positive(try value(after: argument), argument)
            case "--time-limit": concurrency.timeLimit = Double(try Self.positive(try value(after: argument), argument))
            case "--only":
                let part = try value(after: argument)
                guard ["workloads", "upsert", "concurrency"].contains(part) else {
                    throw RawFailure(description: "--only takes workloads, upsert or concurrency")
                }
                runsWorkloads = part == "workloads"
                runsUpsert = part == "upsert"
                runsConcurrency = part == "concurrency"
            default:
                positional.append(try Self.positive(argument, "a row or repetition count"))
            }
        }
        if positional.count > 0 { rows = positional[0] }
        if positional.count > 1 { repetitions = positional[1] }
        concurrency.repetitions = repetitions
    }

    private static func positive(_ text: String, _ what: String) throws -> Int {
        guard let number = Int(text), number > 0 else { throw RawFailure(description: "\(what): \(text) is not a positive number") }
        return number
    }
}

/// Runs the PostgreSQL benchmark with the arguments after `postgres`, on a given server or a throwaway one.
/// - Throws: when no server can be had, or a workload fails.
func runPostgreSQLBenchmark(_ arguments: ArraySlice<String>) throws {
    let options = try PostgreSQLBenchmarkOptions(arguments)
    let server = try PostgreSQLBenchmarkServer(given: options.uri)
    defer { server.stop() }
    let origin = server.isThrowaway ? "a throwaway cluster of this run (Unix socket, fsync off)" : "the given server"
    print("coredata-benchmark postgres: PostgreSQL \(server.version()) on \(origin)")
    if options.runsWorkloads {
        let sizes = PostgreSQLWorkloadSizes(rows: options.rows, lookups: min(10_000, options.rows))
        try runPostgreSQLWorkloads(on: server, sizes: sizes, repetitions: options.repetitions)
    }
    if options.runsUpsert {
        try runPostgreSQLUpsert(on: server, rows: options.rows, repetitions: options.repetitions)
    }
    if options.runsConcurrency {
        try runPostgreSQLConcurrency(on: server, settings: options.concurrency)
    }
}

// The single-client PostgreSQL workloads: the workloads of the SQLite benchmark (main.swift), run on one
// PostgreSQL server three ways in each repetition: through the public API (contexts on a
// `NSPersistentStore.StoreType.postgreSQL` store), on the store contract (`PostgreSQLStore`, no contexts), and
// as SQL written directly against libpq (LibPQClient.swift). Each side of each repetition works in a fresh
// schema of its own, dropped afterwards; the order of the sides alternates between repetitions.
import CoreData
import Foundation

/// A single-client workload, in the order the workloads run within one repetition.
enum PostgreSQLWorkload: Int, CaseIterable {
    case insertAndSave, fetchAll, indexedTenPercent, unindexedTenPercent, unindexedTenthOfAPercent, lookups,
         updateAndSave, batchDelete, batchInsert, batchUpdate

    /// The row of the printed table (the same wording as the SQLite benchmark's).
    func title(lookups: Int) -> String {
        switch self {
        case .insertAndSave: return "insert + save"
        case .fetchAll: return "fetch all, read every attribute"
        case .indexedTenPercent: return "predicate, indexed, 10%"
        case .unindexedTenPercent: return "predicate, unindexed, 10%"
        case .unindexedTenthOfAPercent: return "predicate, unindexed, 0.1%"
        case .lookups: return "\(lookups) fetches by ID"
        case .updateAndSave: return "update one attribute + save"
        case .batchDelete: return "batch delete half, then all"
        case .batchInsert: return "batch insert all"
        case .batchUpdate: return "batch update one attribute, all rows"
        }
    }
}

/// The sizes of one run and the values of its rows.
struct PostgreSQLWorkloadSizes {
    /// Rows inserted, fetched and updated.
    let rows: Int
    /// Objects fetched one by one by ID.
    let lookups: Int

    /// Attribute `a<attribute>` of row `row`: `a0` is the row number (indexed), `a1` a permutation of the row
    /// numbers (so `a1 < k` selects k rows, unindexed), `a<k>` is k × the row number.
    func value(row: Int, attribute: Int) -> Int64 {
        switch attribute {
        case 0: return Int64(row)
        case 1: return Int64((row &* 7919) % rows)
        default: return Int64(row * attribute)
        }
    }

    /// The bounds of the three predicate fetches: `a0 < rows/10`, `a1 < rows/10`, `a1 < rows/1000`.
    var tenPercent: Int { rows / 10 }
    var tenthOfAPercent: Int { rows / 1000 }
}

/// The times measured, by side and workload: wall-clock time, and the CPU time of this process (user and
/// system: the client's own work, the rest of the wall time being the server's and the round trips'); plus a
/// checksum of what was read, so nothing is optimised away.
final class PostgreSQLTimings {
    enum Side: CaseIterable {
        case api, store, libpq
    }

    private var wall: [Side: [PostgreSQLWorkload: [Double]]] = [:]
    private var cpu: [Side: [PostgreSQLWorkload: [Double]]] = [:]
    var checksum: Int64 = 0

    /// Runs `body` and records its wall-clock and CPU durations for `side` and `workload`.
    func measure(_ side: Side, _ workload: PostgreSQLWorkload, _ body: () throws -> Void) rethrows {
        let cpuBefore = processCPUSeconds()
        let duration = try seconds(body)
        wall[side, default: [:]][workload, default: []].append(duration)
        cpu[side, default: [:]][workload, default: []].append(processCPUSeconds() - cpuBefore)
    }

    /// The median wall-clock duration (NaN when none).
    func median(_ side: Side, _ workload: PostgreSQLWorkload) -> Double { Self.median(wall[side]?[workload] ?? []) }

    /// The median CPU time of this process (NaN when none).
    func medianCPU(_ side: Side, _ workload: PostgreSQLWorkload) -> Double { Self.median(cpu[side]?[workload] ?? []) }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// Runs every single-client workload `repetitions` times on each side and prints the medians and ratios.
/// - Throws: the first failure of a side (a store error, or `RawFailure` from libpq).
func runPostgreSQLWorkloads(on server: PostgreSQLBenchmarkServer, sizes: PostgreSQLWorkloadSizes, repetitions: Int) throws {
    print("\nSingle client: \(sizes.rows) rows, \(sizes.lookups) look-ups, \(repetitions) repetitions")
    let timings = PostgreSQLTimings()
    for repetition in 1...repetitions {
        let sides: [PostgreSQLTimings.Side] = repetition % 2 == 1 ? [.libpq, .store, .api] : [.api, .store, .libpq]
        for side in sides {
            let schema = server.freshSchema()
            defer { try? server.drop(schema: schema) }
            switch side {
            case .api: try runPostgreSQLAPIWorkloads(server: server, schema: schema, sizes: sizes, timings: timings)
            case .store: try runPostgreSQLStoreWorkloads(server: server, schema: schema, sizes: sizes, timings: timings)
            case .libpq: try runPostgreSQLLibPQWorkloads(server: server, schema: schema, sizes: sizes, timings: timings)
            }
        }
        print("  repetition \(repetition) done")
    }
    func ms(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }
    func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
    print("\n| workload | public API (contexts) | store contract (PostgreSQLStore) | raw libpq | API / raw | store / raw |")
    print("|---|---:|---:|---:|---:|---:|")
    for workload in PostgreSQLWorkload.allCases {
        let api = timings.median(.api, workload), store = timings.median(.store, workload), raw = timings.median(.libpq, workload)
        print("| \(workload.title(lookups: sizes.lookups)) | \(ms(api)) | \(ms(store)) | \(ms(raw)) | \(ratio(api / raw)) | \(ratio(store / raw)) |")
    }
    print("\nCPU time of the benchmark process (the client) during each workload, median; the rest of the wall time is the")
    print("server's work and the round trips:")
    print("\n| workload | public API (contexts) | store contract (PostgreSQLStore) | raw libpq |")
    print("|---|---:|---:|---:|")
    for workload in PostgreSQLWorkload.allCases {
        let cells = PostgreSQLTimings.Side.allCases.map { ms(timings.medianCPU($0, workload)) }
        print("| \(workload.title(lookups: sizes.lookups)) | \(cells.joined(separator: " | ")) |")
    }
    print("\n(checksum \(timings.checksum))")
}

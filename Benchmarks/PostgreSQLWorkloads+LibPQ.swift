// The raw side of the single-client PostgreSQL workloads: the same work as SQL written directly against
// libpq, on the table the PostgreSQL store itself creates (the store is opened once, untimed, to make its
// schema, so both sides run on the same DDL and indexes).
//
// The SQL is what an application would write by hand for the same effect: prepared statements; a transaction
// around each run of writes; one `INSERT` per row for insert + save, as the store sends; multi-row `INSERT`s
// of 500 rows for the batch insert, as the store's batch insert sends; updates that check `Z_OPT`, as the
// store's optimistic locking does; parameters and results in libpq's text format. It leaves out what only the
// store does: `pg_notify` in every save, reading the keys back of a batch delete or update.
import CLibPQ
import CoreData
import CoreDataPostgreSQL
import Foundation

/// Runs the workloads with libpq on the store's table in `schema`.
func runPostgreSQLLibPQWorkloads(server: PostgreSQLBenchmarkServer, schema: String, sizes: PostgreSQLWorkloadSizes,
                                 timings: PostgreSQLTimings) throws {
    let model = benchmarkModel()
    let entityNumber = Int64(model.entitiesByName["Record"]!.entityNumber)
    try PostgreSQLStore(StoreOpenRequest(model: model, configurationName: nil, url: server.storeURL(schema: schema), options: [:])).close()
    let client = try LibPQClient(uri: server.uri, schema: schema)
    let columns = (0..<10).map { "ZA\($0)" }.joined(separator: ", ")
    let selectAll = "SELECT Z_PK, Z_ENT, Z_OPT, \(columns) FROM ZRECORD"
    try client.prepare("insert", "INSERT INTO ZRECORD (Z_PK, Z_ENT, Z_OPT, \(columns)) VALUES (\((1...13).map { "$\($0)" }.joined(separator: ", ")))")
    let chunk = 500
    let tuples = (0..<chunk).map { row in "(" + (1...13).map { "$\(row * 13 + $0)" }.joined(separator: ", ") + ")" }
    try client.prepare("insert chunk", "INSERT INTO ZRECORD (Z_PK, Z_ENT, Z_OPT, \(columns)) VALUES \(tuples.joined(separator: ", "))")
    try client.prepare("below", selectAll + " WHERE ZA0 < $1")
    try client.prepare("below unindexed", selectAll + " WHERE ZA1 < $1")
    try client.prepare("by key", selectAll + " WHERE Z_PK = $1")
    try client.prepare("update", "UPDATE ZRECORD SET ZA2 = $1, Z_OPT = Z_OPT + 1 WHERE Z_PK = $2 AND Z_OPT = $3")
    try client.prepare("delete below", "DELETE FROM ZRECORD WHERE ZA0 < $1")
    try client.prepare("update all", "UPDATE ZRECORD SET ZA2 = $1, Z_OPT = Z_OPT + 1")

    /// Row `i`'s parameters for the insert statements: `Z_PK`, `Z_ENT`, `Z_OPT` 1, then the ten values.
    func insertValues(_ i: Int) -> [Int64] {
        [Int64(i + 1), entityNumber, 1] + (0..<10).map { sizes.value(row: i, attribute: $0) }
    }
    try timings.measure(.libpq, .insertAndSave) {
        try client.execute("BEGIN")
        for i in 0..<sizes.rows { try client.command("insert", insertValues(i)) }
        try client.execute("COMMIT")
    }
    try server.analyze(schema: schema, table: "zrecord")

    struct Row { var key: Int64; var version: Int64; var values: [Int64] }
    func rows(of result: OpaquePointer) -> [Row] {
        defer { PQclear(result) }
        return (0..<PQntuples(result)).map { row in
            Row(key: LibPQClient.int64(result, row, 0), version: LibPQClient.int64(result, row, 2),
                values: (0..<10).map { LibPQClient.int64(result, row, Int32($0 + 3)) })
        }
    }
    var all: [Row] = []
    try timings.measure(.libpq, .fetchAll) {
        all = rows(of: try client.query(selectAll))
        var sum: Int64 = 0
        for row in all { for value in row.values { sum &+= value } }
        timings.checksum &+= sum
    }
    func predicateFetch(_ workload: PostgreSQLWorkload, _ statement: String, _ bound: Int) throws {
        try timings.measure(.libpq, workload) {
            for row in rows(of: try client.run(statement, [Int64(bound)])) { timings.checksum &+= row.values[2] }
        }
    }
    try predicateFetch(.indexedTenPercent, "below", sizes.tenPercent)
    try predicateFetch(.unindexedTenPercent, "below unindexed", sizes.tenPercent)
    try predicateFetch(.unindexedTenthOfAPercent, "below unindexed", sizes.tenthOfAPercent)
    let sample = stride(from: 0, to: all.count, by: max(1, all.count / sizes.lookups)).prefix(sizes.lookups).map { all[$0].key }
    try timings.measure(.libpq, .lookups) {
        for key in sample {
            let result = try client.run("by key", [key])
            if PQntuples(result) == 1 { timings.checksum &+= LibPQClient.int64(result, 0, 6) }
            PQclear(result)
        }
    }
    try timings.measure(.libpq, .updateAndSave) {
        try client.execute("BEGIN")
        for row in all { try client.command("update", [row.values[2] + 1, row.key, row.version]) }
        try client.execute("COMMIT")
    }
    try timings.measure(.libpq, .batchDelete) {
        try client.command("delete below", [Int64(sizes.rows / 2)])
        try client.execute("DELETE FROM ZRECORD")
    }
    let parameters = (0..<sizes.rows).map(insertValues)
    try timings.measure(.libpq, .batchInsert) {
        try client.execute("BEGIN")
        var start = 0
        while start < parameters.count {
            let end = min(start + chunk, parameters.count)
            if end - start == chunk {
                try client.command("insert chunk", Array(parameters[start..<end].joined()))
            } else {
                for values in parameters[start..<end] { try client.command("insert", values) }
            }
            start = end
        }
        try client.execute("COMMIT")
    }
    try timings.measure(.libpq, .batchUpdate) {
        try client.command("update all", [7])
    }
}

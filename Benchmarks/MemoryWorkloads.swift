// The memory workloads: peak resident memory of walking many rows, each workload measured in a process of its
// own (a child of the benchmark), so one workload's peak never hides another's. Run with:
//
//     swift run -c release coredata-benchmark memory [rows …]        # default: 10000 100000 1000000
//
// For each row count the parent writes one store of `Record` rows (through the store contract), then starts one
// child per workload on it and prints, per workload, the child's peak resident memory (`VmHWM`), its resident
// memory just before the workload (after opening the store), the difference per row, and the time taken.
import CSQLite
import CoreData
import CoreDataSQLite
import Foundation

/// A memory workload: what one child process does on a store of `rows` rows.
enum MemoryWorkload: String, CaseIterable {
    /// `fetchBatchSize = 500`, walked from start to end, each object read (all ten attributes) and then turned
    /// back into a fault with `refresh(_:mergeChanges: false)` (issue 12's workload).
    case batchedWalk = "batched-walk"
    /// `includesPropertyValues = false`: every object a fault, all kept, none read.
    case faultsKept = "faults-kept"
    /// A default fetch (objects come back as faults holding their rows), every object read and kept.
    case fetchAllRead = "fetch-all-read"
    /// Raw SQLite: one `SELECT` of every row stepped through, the ten values read; nothing kept.
    case rawWalk = "raw-walk"

    var summary: String {
        switch self {
        case .batchedWalk: return "fetchBatchSize 500, walk: read, refresh(_:mergeChanges: false)"
        case .faultsKept: return "includesPropertyValues = false, all faults kept"
        case .fetchAllRead: return "default fetch, every object read and kept"
        case .rawWalk: return "raw SQLite, every row stepped through and read"
        }
    }
}

/// Resident memory figures of this process from `/proc/self/status`, in kB: `VmRSS` (now) or `VmHWM` (peak).
func residentKilobytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).first ?? "") ?? 0
    }
    return 0
}

/// Writes `rows` records to a new SQLite store at `url`, through the store contract, in saves of 100,000.
func writeMemoryStore(rows: Int, at url: URL) throws {
    let model = benchmarkModel()
    let entity = model.entitiesByName["Record"]!
    let store = try SQLiteStore(StoreOpenRequest(model: model, configurationName: nil, url: url, options: [:]))
    defer { store.close() }
    var written = 0
    while written < rows {
        let count = min(100_000, rows - written)
        var changes = StoreChangeSet()
        changes.inserted.reserveCapacity(count)
        for (offset, primaryKey) in try store.allocatePrimaryKeys(for: entity, count: count).enumerated() {
            let i = Int64(written + offset)
            let values: [Any?] = (0..<10).map { Int64($0) * i }
            changes.inserted.append(StoreRow(key: ObjectKey(entityNumber: entity.entityNumber, primaryKey: primaryKey), version: 0, values: values))
        }
        _ = try store.save(changes)
        written += count
    }
}

/// Runs one workload in this process (the child's side) and prints "peak baseline seconds checksum".
func runMemoryChild(_ workload: MemoryWorkload, storePath: String) throws {
    let url = URL(fileURLWithPath: storePath)
    var checksum: Int64 = 0
    var baseline = 0
    let time: Double
    switch workload {
    case .rawWalk:
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw RawFailure(description: "open") }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        let columns = (0..<10).map { "ZA\($0)" }.joined(separator: ", ")
        guard sqlite3_prepare_v2(db, "SELECT Z_PK, Z_ENT, Z_OPT, \(columns) FROM ZRECORD", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw RawFailure(description: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        baseline = residentKilobytes("VmRSS")
        time = seconds {
            while sqlite3_step(statement) == SQLITE_ROW {
                for column in 3..<13 { checksum &+= sqlite3_column_int64(statement, Int32(column)) }
            }
        }
    default:
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: benchmarkModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        baseline = residentKilobytes("VmRSS")
        var kept: [Record] = []
        time = try seconds {
            try context.performAndWait {
                let request = NSFetchRequest<Record>(entityName: "Record")
                switch workload {
                case .batchedWalk:
                    request.fetchBatchSize = 500
                    for object in try context.fetch(request) {
                        checksum &+= object.sum
                        context.refresh(object, mergeChanges: false)
                    }
                case .faultsKept:
                    request.includesPropertyValues = false
                    kept = try context.fetch(request)
                    checksum &+= Int64(kept.count)
                default:
                    kept = try context.fetch(request)
                    for object in kept { checksum &+= object.sum }
                }
            }
        }
        withExtendedLifetime(kept) {}
    }
    print("\(residentKilobytes("VmHWM")) \(baseline) \(time) \(checksum)")
}

/// glibc's `malloc_usable_size` (not in Swift's Glibc module), looked up at run time; nil where absent.
let mallocUsableSize: (@convention(c) (UnsafeMutableRawPointer?) -> Int)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size")
    .map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self) }

/// Prints what one `Record` fault (fetched with `includesPropertyValues = false`) takes on the heap, as malloc
/// gives it: the object, and its `NSManagedObjectID` once asked for.
func printObjectSizes(storeAt url: URL) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: benchmarkModel())
    try coordinator.addPersistentStore(type: .sqlite, at: url)
    defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
        let request = NSFetchRequest<Record>(entityName: "Record")
        request.includesPropertyValues = false
        request.fetchLimit = 1
        guard let object = try context.fetch(request).first, let mallocUsableSize else { return }
        let objectBytes = mallocUsableSize(Unmanaged.passUnretained(object).toOpaque())
        let idBytes = mallocUsableSize(Unmanaged.passUnretained(object.objectID).toOpaque())
        print("\nOne Record fault: the object \(objectBytes) B on the heap; its NSManagedObjectID, once asked for, \(idBytes) B")
    }
}

/// Runs every workload on stores of each row count, each in a child process, and prints a table.
func runMemoryBenchmark(rowCounts: [Int]) throws {
    print("coredata-benchmark memory: peak resident memory (VmHWM) of each workload, each in a process of its own")
    for rows in rowCounts {
        let url = scratchURL("memory.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try writeMemoryStore(rows: rows, at: url)
        if rows == rowCounts.first {
            try printObjectSizes(storeAt: url)
            print("\n| rows | workload | peak RSS | RSS before | (peak − before) / row | time |")
            print("|---:|---|---:|---:|---:|---:|")
        }
        for workload in MemoryWorkload.allCases {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            child.arguments = ["memory-child", workload.rawValue, url.path]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            child.waitUntilExit()
            let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace)
            guard child.terminationStatus == 0, fields.count == 4, let peak = Int(fields[0]), let before = Int(fields[1]),
                  let time = Double(fields[2]) else {
                throw RawFailure(description: "the \(workload.rawValue) child failed (status \(child.terminationStatus)): \(String(decoding: data, as: UTF8.self))")
            }
            let perRow = Double(peak - before) * 1024 / Double(max(1, rows))
            print("| \(rows) | \(workload.summary) | \(String(format: "%.1f MiB", Double(peak) / 1024)) | \(String(format: "%.1f MiB", Double(before) / 1024)) | \(String(format: "%.0f B", perRow)) | \(String(format: "%.2f s", time)) |")
        }
    }
}

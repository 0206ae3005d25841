import CSQLite
import CoreData
import Foundation
import Testing

/// Where Apple-written fixture stores are: `$COREDATA_FIXTURES`, or `../shared/fixtures` beside the package.
enum Fixtures {
    static let root: URL? = {
        if let path = ProcessInfo.processInfo.environment["COREDATA_FIXTURES"] {
            return URL(fileURLWithPath: path)
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = package.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    static var available: Bool { root != nil }

    static func sqlite(_ name: String) -> URL? {
        root?.appendingPathComponent("apple/sqlite").appendingPathComponent(name)
    }

    /// Copies a fixture store (and its `-wal`/`-shm` files) into a fresh temporary directory.
    /// A test whose fixture is not in this fixture set is reported as cancelled (skipped), not failed.
    static func copy(_ name: String) throws -> URL {
        guard let source = sqlite(name) else { throw FixtureMissing() }
        if !FileManager.default.fileExists(atPath: source.path) { try Test.cancel("fixture \(name) is not in this fixture set") }
        let target = TemporaryStore.directory().appendingPathComponent("store.sqlite")
        try FileManager.default.copyItem(at: source, to: target)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
        return target
    }

    struct FixtureMissing: Error {}
}

enum TemporaryStore {
    /// A new empty directory under the system temporary directory.
    static func directory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func url() -> URL { directory().appendingPathComponent("store.sqlite") }
}

/// A coordinator with one SQLite store, and a context on it.
struct Stack {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let store: NSPersistentStore

    init(model: NSManagedObjectModel, url: URL, options: [AnyHashable: Any]? = nil) throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    func fetch(_ entity: String, _ predicate: NSPredicate? = nil, sort: [NSSortDescriptor] = [], limit: Int = 0, offset: Int = 0,
               subentities: Bool = true) throws -> [NSManagedObject] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = predicate
            request.sortDescriptors = sort
            request.fetchLimit = limit
            request.fetchOffset = offset
            request.includesSubentities = subentities
            return try context.fetch(request)
        }
    }

    func count(_ entity: String, _ predicate: NSPredicate? = nil, subentities: Bool = true) throws -> Int {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = predicate
            request.includesSubentities = subentities
            return try context.count(for: request)
        }
    }

    func close() throws {
        try coordinator.remove(store)
    }
}

/// Reads a database with the C API, for assertions on what the store wrote.
enum RawSQLite {
    static func rows(_ url: URL, _ sql: String) -> [[String]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return [] }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return [] }
        defer { sqlite3_finalize(statement) }
        var result: [[String]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL"
            })
        }
        return result
    }

    static func execute(_ url: URL, _ sql: String) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else { return }
        sqlite3_exec(db, sql, nil, nil, nil)
        sqlite3_close_v2(db)
    }

    /// The schema entries that describe the model's data: entity tables, join tables and their indexes
    /// (not Core Data's own tables, persistent history or derived-attribute triggers), as "type name: sql".
    static func modelSchema(_ url: URL) -> [String] {
        rows(url, """
            SELECT type, name, sql FROM sqlite_master
            WHERE type IN ('table', 'index') AND sql IS NOT NULL
              AND tbl_name NOT IN ('Z_PRIMARYKEY', 'Z_METADATA', 'Z_MODELCACHE')
              AND tbl_name NOT IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')
            """).map { "\($0[0]) \($0[1]): \($0[2])" }.sorted()
    }
}

/// File bytes, for checking that a rejected file was left alone.
func fileBytes(_ url: URL) -> Data? { try? Data(contentsOf: url) }

/// The `NSError` a throwing call threw, or nil.
func thrownError(_ body: () throws -> Void) -> NSError? {
    do {
        try body()
        return nil
    } catch {
        return error as NSError
    }
}



import CSQLite
import Foundation

struct RawFailure: Error, CustomStringConvertible { let description: String }

/// A raw SQLite connection for the benchmark's raw sides: open, run SQL, prepare statements, each failure
/// thrown with SQLite's message.
final class RawSQLite {
    let db: OpaquePointer
    private var isClosed = false

    /// Opens (creating) the file at `url`.
    init(_ url: URL) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else { throw RawFailure(description: "open") }
        self.db = db
    }

    /// Closes the connection; later calls do nothing.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(db)
    }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw RawFailure(description: String(cString: sqlite3_errmsg(db))) }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw RawFailure(description: String(cString: sqlite3_errmsg(db))) }
        return statement
    }
}

import CoreDataStoreKit
import CSQLite
import Foundation

/// SQLite's own check of a database file, `PRAGMA integrity_check`, for `coredata validate`.
///
/// The store classes offer no way to run a statement, so the tool opens its own read-only connection to the
/// file (with `immutable=1` when asked, so nothing is created beside it) and closes it before the store is
/// opened.
enum SQLiteIntegrityCheck {
    /// The problems SQLite reports (at most `limit`), or an empty array when it answers `ok`.
    /// - Throws: 259 when the file cannot be opened or the check cannot run (SQLite's message included).
    static func problems(in url: URL, immutable: Bool, limit: Int = 100) throws -> [String] {
        var components = URLComponents()
        components.scheme = "file"
        components.path = url.path
        if immutable { components.queryItems = [URLQueryItem(name: "immutable", value: "1")] }
        let uri = components.string ?? "file:\(url.path)"
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK else {
            throw failure(url, db)
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check(\(limit))", -1, &statement, nil) == SQLITE_OK else { throw failure(url, db) }
        var lines: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure(url, db) }
            lines.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
        return lines == ["ok"] ? [] : lines
    }

    private static func failure(_ url: URL, _ db: OpaquePointer?) -> NSError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
        return CoreDataError.make(NSFileReadCorruptFileError, "SQLite cannot check \(url.path): \(message).", userInfo: [NSFilePathErrorKey: url.path])
    }
}

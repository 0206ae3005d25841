import CSQLite
import Foundation

/// The files a process killed in the middle of a SQLite transaction leaves: copies `store` and its rollback
/// journal to `copy` while a transaction running `statements` is under way in rollback-journal mode. By default
/// with a page cache of four pages, so the transaction's changed pages have spilled into the file and the journal
/// (`-journal`, synced first) holds their originals: a "hot" journal SQLite must roll back. With
/// `beforeTheJournalIsSynced`, with a page cache large enough that nothing spills: the file is untouched and the
/// journal's header still begins with zeros (SQLite writes its magic number only when it syncs the journal), the
/// journal SQLite ignores, as a process killed in a commit's first steps leaves it.
/// The transaction is then rolled back in `store`, which stays as it was.
/// - Returns: the size of the copied journal.
/// - Throws: a description of the SQLite call that failed, or when the transaction wrote no journal or not the
///   journal asked for.
@discardableResult
public func copyStoreInTheMiddleOfATransaction(_ store: URL, to copy: URL, running statements: [String],
                                               beforeTheJournalIsSynced: Bool = false) throws -> Int {
    struct Failure: Error, CustomStringConvertible { let description: String }
    var db: OpaquePointer?
    guard sqlite3_open_v2(store.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
        sqlite3_close_v2(db)
        throw Failure(description: "cannot open \(store.path)")
    }
    defer { sqlite3_close_v2(db) }
    let cacheSize = beforeTheJournalIsSynced ? "PRAGMA cache_size=100000" : "PRAGMA cache_size=4"
    for sql in ["PRAGMA journal_mode=DELETE", cacheSize, "BEGIN"] + statements {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
    defer { sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
    let journal = store.path + "-journal"
    let journalSize = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? Int ?? 0
    guard journalSize > 0 else { throw Failure(description: "the transaction wrote no journal") }
    let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: journal))
    defer { try? header.close() }
    let synced = try header.read(upToCount: 1)?.first != 0
    guard synced != beforeTheJournalIsSynced else {
        throw Failure(description: "the journal's header \(synced ? "was" : "was not") synced")
    }
    try FileManager.default.copyItem(at: store, to: copy)
    try FileManager.default.copyItem(atPath: journal, toPath: copy.path + "-journal")
    return journalSize
}

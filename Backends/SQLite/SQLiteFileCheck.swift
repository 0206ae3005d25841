import CSQLite
import CoreDataStoreKit

/// Checks a file before SQLite opens it for writing, so a file that is rejected stays as it was.
enum SQLiteFileCheck {
    /// Reads the 100-byte SQLite header: the magic string, a valid page size, and a file length that holds
    /// every page the header counts.
    /// - Throws: 134000 when the file is not a SQLite database, 259 when it is truncated or damaged.
    static func checkHeader(at url: URL, size: Int) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw CoreDataError.openFailed(url, reason: "the file cannot be read")
        }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        let magic = Array("SQLite format 3\0".utf8)
        guard header.count >= magic.count, Array(header.prefix(magic.count)) == magic else {
            throw CoreDataError.notAStore(url, type: NSSQLiteStoreType, reason: "it is not a SQLite database")
        }
        guard header.count == 100 else {
            throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "the file is truncated (\(size) bytes)")
        }
        func be32(_ offset: Int) -> Int {
            header[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType, reason: "the header has an invalid page size \(rawPageSize)")
        }
        let pageCount = be32(28)
        let headerCountIsValid = be32(24) == be32(92) && pageCount > 0
        if size % pageSize != 0 || (headerCountIsValid && size < pageCount * pageSize) {
            throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType,
                                             reason: "the file is truncated (\(size) bytes, the header counts \(pageCount) pages of \(pageSize) bytes)")
        }
    }

    /// Whether a rollback journal with content lies beside the store (`<store>-journal`), whatever it holds:
    /// a transaction in rollback-journal mode under way in another connection, one that a killed process left
    /// unfinished, or a journal SQLite ignores (`hasUnfinishedTransaction(_:)`).
    static func hasRollbackJournal(_ url: URL) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: url.path + "-journal"))?[.size] as? Int ?? 0) > 0
    }

    /// Whether the journal beside the store (`<store>-journal`) holds saved pages SQLite must copy back before
    /// the file reads as a whole: a transaction under way in another connection, or one a killed process left
    /// unfinished (a "hot" journal). That is SQLite's own test: the journal's first byte is not zero.
    ///
    /// A journal that begins with zeros holds no such transaction, and SQLite ignores it and leaves it where
    /// it is: with `synchronous` on, SQLite writes a journal's header with its magic number zeroed and fills
    /// the magic in only when it syncs the journal, before the first page of the database file is changed.
    /// A process killed in between (in the first steps of a commit, or of `PRAGMA journal_mode = DELETE`)
    /// leaves such a journal beside a database it never changed. A journal with content that cannot be read
    /// counts as an unfinished transaction: what it holds is unknown.
    static func hasUnfinishedTransaction(_ url: URL) -> Bool {
        guard hasRollbackJournal(url) else { return false }
        guard let journal = FileHandle(forReadingAtPath: url.path + "-journal") else { return true }
        defer { try? journal.close() }
        guard let first = try? journal.read(upToCount: 1)?.first else { return true }
        return first != 0
    }

    /// Rolls back a transaction a killed process left unfinished in the store at `url`, if any: SQLite does it
    /// when a read-write connection first reads the file, restoring the file as it was before that transaction
    /// (what every reader must see). A journal of a transaction another connection still runs is left to it
    /// (SQLite sees its lock and waits up to `busyTimeout` seconds for it to end).
    /// A journal SQLite ignores (`hasUnfinishedTransaction(_:)`) is left where it is, as SQLite leaves it.
    /// - Returns: whether an unfinished transaction is still there afterwards (the file or its folder not
    ///   writable, SQLite refusing the file, or another connection's transaction still under way).
    @discardableResult
    static func rollBackUnfinishedTransaction(of url: URL, busyTimeout: Double = 30) -> Bool {
        guard hasUnfinishedTransaction(url) else { return false }
        if let connection = try? SQLiteConnection(path: url.path, flags: SQLITE_OPEN_READWRITE) {
            if let handle = connection.handle { sqlite3_busy_timeout(handle, Int32(max(0, min(busyTimeout, 86_400)) * 1000)) }
            _ = try? connection.query("SELECT count(*) FROM sqlite_master", cached: false) { $0.int64(at: 0) }
            connection.close()
        }
        return hasUnfinishedTransaction(url)
    }

    /// The URI that opens the store at `url` read-only. Immutable (no locks, no `-shm`, nothing created beside
    /// the file) only when no log lies beside it: an immutable connection reads neither a `-wal`'s rows nor a
    /// `-journal`'s saved pages, so it would read a file in the middle of a transaction as if it were whole.
    static func readOnlyURI(for url: URL) -> String {
        let hasLog = FileManager.default.fileExists(atPath: url.path + "-wal") || hasRollbackJournal(url)
        return url.standardizedFileURL.absoluteString + (hasLog ? "?mode=ro" : "?mode=ro&immutable=1")
    }

    /// A connection that cannot change the file or create files beside it (`readOnlyURI(for:)`), waiting up
    /// to `busyTimeout` seconds while another connection (another process opening or saving) holds its lock.
    /// A transaction a killed process left unfinished (a hot `-journal`) is rolled back first when
    /// `rollingBack` (a writable open will do so anyway); a read-only open leaves the files as they are.
    /// - Throws: 134000 when the file is not a SQLite database; 134080 naming the journal when an unfinished
    ///   transaction must be rolled back and `rollingBack` is false or the rollback failed; SQLite's errors
    ///   as 134180.
    static func readOnlyConnection(url: URL, busyTimeout: Double = 30, rollingBack: Bool = true) throws -> SQLiteConnection {
        if rollingBack { rollBackUnfinishedTransaction(of: url, busyTimeout: busyTimeout) }
        let connection = try SQLiteConnection(path: readOnlyURI(for: url), flags: SQLITE_OPEN_READONLY, uri: true)
        if let handle = connection.handle { sqlite3_busy_timeout(handle, Int32(max(0, min(busyTimeout, 86_400)) * 1000)) }
        SQLiteFunctions.register(on: connection)
        // Make SQLite read the schema now, so a damaged file fails here.
        do {
            _ = try connection.query("SELECT count(*) FROM sqlite_master", cached: false) { $0.int64(at: 0) }
        } catch let error as NSError {
            connection.close()
            if error.code == NSSQLiteError, (error.userInfo[NSSQLiteErrorDomain] as? Int) == Int(SQLITE_NOTADB) {
                throw CoreDataError.notAStore(url, type: NSSQLiteStoreType, reason: "it is not a SQLite database")
            }
            let readOnlyRollback = Int(SQLITE_READONLY) | 3 << 8  // SQLITE_READONLY_ROLLBACK: a hot journal it cannot roll back
            if error.code == NSSQLiteError, (error.userInfo["NSSQLiteExtendedErrorCode"] as? Int) == readOnlyRollback {
                throw unfinishedTransaction(url, rollingBack: rollingBack)
            }
            throw error
        }
        return connection
    }

    /// 134080 for a store whose unfinished transaction (a hot `-journal`) must be rolled back before it can be
    /// read, which a read-only open does not do (`rollingBack` false) or could not do.
    static func unfinishedTransaction(_ url: URL, rollingBack: Bool) -> NSError {
        let journal = url.path + "-journal"
        let reason = rollingBack
            ? "it has an unfinished transaction (\(journal)) that SQLite could not roll back; make the store and its folder writable"
            : "it has an unfinished transaction (\(journal)) that must be rolled back before the store can be read, which a read-only open does not do; "
                + "add it once without NSReadOnlyPersistentStoreOption, which rolls it back and keeps the store as it was before that transaction"
        return CoreDataError.openFailed(url, reason: reason)
    }
}

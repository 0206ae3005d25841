import CSQLite
import CoreDataStoreKit

extension SQLiteStore {
    /// A store option for this package's `coredata` tool, not Apple's: together with
    /// `NSReadOnlyPersistentStoreOption`, the store's connection is opened `immutable`, so no file beside the
    /// database is created or changed (a WAL-mode database opened only read-only gets a `-wal` and a `-shm`).
    /// The database must have no `-wal` file, whose rows an immutable connection would not read, and no
    /// `-journal` with content, whose unfinished transaction it would read as if it were committed.
    ///
    /// Immutable means SQLite takes no locks and assumes nothing else writes the file while it is open, so
    /// the option suits a short inspection, not an app that shares a store with a writer (which is why
    /// `NSReadOnlyPersistentStoreOption` alone does not do this; see Decisions.md, "Reading a store
    /// without touching it").
    package static let leavesFilesUntouchedOption = "CoreDataSQLiteLeavesFilesUntouched"

    /// The read-only, immutable connection `leavesFilesUntouchedOption` asks for.
    /// - Throws: 134080 when the database has a `-wal` file or a `-journal` holding an unfinished transaction;
    ///   SQLite's errors as 134180.
    static func untouchedConnection(path: String) throws -> SQLiteConnection {
        let url = URL(fileURLWithPath: path)
        guard !FileManager.default.fileExists(atPath: path + "-wal") else {
            throw CoreDataError.openFailed(url, reason: "it has a write-ahead log (-wal), which SQLite cannot read without "
                                                + "creating or changing files beside it, so it cannot be opened untouched")
        }
        guard !SQLiteFileCheck.hasUnfinishedTransaction(url) else {
            throw SQLiteFileCheck.unfinishedTransaction(url, rollingBack: false)
        }
        return try SQLiteConnection(path: url.standardizedFileURL.absoluteString + "?mode=ro&immutable=1",
                                    flags: SQLITE_OPEN_READONLY, uri: true)
    }

    /// Whether the journal beside the store at `url` (`<store>-journal`) holds a transaction in
    /// rollback-journal mode under way, or one a killed process left unfinished; not a journal SQLite ignores
    /// (one whose header begins with zeros, left by a process killed before it changed the database).
    package static func hasUnfinishedTransaction(at url: URL) -> Bool { SQLiteFileCheck.hasUnfinishedTransaction(url) }

    /// Rolls back the unfinished transaction that the `-journal` beside the store at `url` holds, as SQLite does
    /// on a writable open, so the file is the store as it was before that transaction (the tool does this to
    /// its own copy of a store, never to the user's file).
    /// - Returns: whether an unfinished transaction is still there afterwards.
    @discardableResult
    package static func rollBackUnfinishedTransaction(of url: URL) -> Bool { SQLiteFileCheck.rollBackUnfinishedTransaction(of: url) }
}

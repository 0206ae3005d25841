import CSQLite
import CoreDataStoreKit

extension SQLiteStore {
    /// A store option for this package's `coredata` tool, not Apple's: together with
    /// `NSReadOnlyPersistentStoreOption`, the store's connection creates no file beside the database and
    /// changes none (`SQLiteFileCheck.readOnlyURI(for:)`): immutable without a `-wal` file, reading the
    /// `-shm` without writing it with one.
    ///
    /// Immutable means SQLite takes no locks and assumes nothing else writes the file while it is open, so
    /// the option suits a short inspection, not an app that shares a store with a writer (which is why
    /// `NSReadOnlyPersistentStoreOption` alone does not do this; see Decisions.md, "Reading a store
    /// without touching it").
    package static let leavesFilesUntouchedOption = "CoreDataSQLiteLeavesFilesUntouched"

    /// The read-only connection `leavesFilesUntouchedOption` asks for.
    /// - Throws: 134080 when the database has a `-wal` file and no `-shm`, which SQLite cannot read
    ///   without creating a `-shm`; SQLite's errors as 134180.
    static func untouchedConnection(path: String) throws -> SQLiteConnection {
        let url = URL(fileURLWithPath: path)
        let (uri, untouched) = SQLiteFileCheck.readOnlyURI(for: url)
        guard untouched else {
            throw CoreDataError.openFailed(url, reason: "it has a write-ahead log (-wal) but no shared-memory file (-shm), "
                                                + "and SQLite cannot read the log without creating one")
        }
        return try SQLiteConnection(path: uri, flags: SQLITE_OPEN_READONLY, uri: true)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite
import CoreDataStoreKit

/// Moving a finished database over a store, so that a crash leaves the old store or the new one, whole.
///
/// A database in WAL mode is two files that must agree: replayed onto another database, a log corrupts it.
/// A hot rollback journal, replayed onto another database, corrupts it too. So before the one atomic step
/// (`rename` of the new database over the old) neither side may have a log or a hot journal: the new
/// database's log, if any, is folded into it, and so is the old store's (its committed transactions are part
/// of the old version a crash must be able to leave; an interrupted transaction is rolled back). The old
/// store's `-shm` index is removed, the new file flushed, renamed and the directory flushed. Folding leaves a
/// database in rollback-journal mode; the store's next open switches it to WAL again.
enum SQLiteFileReplacement {
    /// Moves the closed database at `source` over `destination` (which may not exist).
    /// - Throws: 512 naming the step that failed; `destination` is then the old store, whole.
    static func move(_ source: URL, over destination: URL) throws {
        try foldLog(of: source)
        if FileManager.default.fileExists(atPath: destination.path) { try foldLog(of: destination) }
        unlink(destination.path + "-journal")
        do {
            try AtomicFileReplacement.flush(source.path, directory: false)
        } catch {
            throw failure("flush \(source.path)", underlying: error)
        }
        let shm = destination.path + "-shm"
        if FileManager.default.fileExists(atPath: shm) { unlink(shm) }
        guard rename(source.path, destination.path) == 0 else {
            throw failure("move \(source.path) over \(destination.path) (\(String(cString: strerror(errno))))")
        }
        for suffix in SQLiteStore.companionSuffixes { unlink(source.path + suffix) }
        try? AtomicFileReplacement.flush(destination.deletingLastPathComponent().path, directory: true)
    }

    /// Writes the committed transactions of the database's `-wal` into the database and removes the log, and
    /// rolls back an interrupted transaction a `-journal` holds, by opening the database and switching it to
    /// rollback-journal mode. Nothing to do when neither file exists.
    /// - Throws: 512 when the log cannot be folded (the store is open in another process that keeps it).
    static func foldLog(of url: URL) throws {
        let wal = url.path + "-wal"
        guard FileManager.default.fileExists(atPath: wal) || FileManager.default.fileExists(atPath: url.path + "-journal") else { return }
        do {
            let connection = try SQLiteConnection(path: url.path, flags: SQLITE_OPEN_READWRITE)
            defer { connection.close() }
            try connection.execute("PRAGMA journal_mode = DELETE")
        } catch {
            throw failure("fold the log \(wal) into the store", underlying: error)
        }
        guard !FileManager.default.fileExists(atPath: wal) else {
            throw failure("fold the log \(wal) into the store; is the store open in another process?")
        }
    }

    private static func failure(_ step: String, underlying: Error? = nil) -> NSError {
        CoreDataError.make(NSFileWriteUnknownError, "Could not \(step).",
                           userInfo: underlying.map { [NSUnderlyingErrorKey: $0] } ?? [:])
    }
}

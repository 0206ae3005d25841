#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CoreDataSQL
import CoreDataStoreKit

/// Creating a new store file atomically.
///
/// A new store is built under a temporary name beside the final one (`.<name>.<UUID>.tmp`, the name
/// `AtomicFileReplacement` uses), already in the journal mode its opens ask for (WAL unless the pragmas option
/// says otherwise: closing the only connection folds the log in and removes `-wal` and `-shm`), then flushed and
/// moved into place in one step. Connections that open the new store at once (other coordinators, other
/// processes) then find it in its mode: none has to switch it, which takes the database's exclusive lock and made
/// them wait on one another (and fail, `SQLITE_BUSY` or a log another had just removed). A crash at any moment
/// therefore leaves either no store (nothing, or the empty file a destroyed store keeps) or a complete one,
/// and the temporary files a crash leaves are removed by the next open (`removeCreationLeftovers(of:)`), while
/// those of a process building the store now are claimed and left alone.
extension SQLiteStore {
    /// The files SQLite keeps beside a database: rollback journal, write-ahead log, shared-memory index.
    static let companionSuffixes = ["-journal", "-wal", "-shm"]

    /// Makes a complete, empty store at `url` (a missing or empty file), so that the open that follows finds an
    /// existing store. When another process creates the store first, its store is kept and ours dropped.
    /// - Throws: 134080 when the directory or the file cannot be made; SQLite errors (134180) from building it.
    static func createFile(at url: URL, request: StoreOpenRequest, schema: SQLSchema) throws {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw CoreDataError.openFailed(url, reason: "its directory could not be created (\(error.localizedDescription))")
        }
        let claim = try claimTemporaryFile(beside: url)
        defer { claim.release() }
        defer { removeDatabase(at: claim.url.path) }
        try buildNewFile(at: claim.url, request: request, schema: schema)
        try placeNewFile(claim.url, at: url)
    }

    /// Writes Core Data's tables, the model's schema and the metadata into a new database at `temporary`, in
    /// one transaction, and closes it, in the journal mode the options ask for; once it is closed nothing but the
    /// database file is left (a WAL database's log is folded in and removed with its index).
    private static func buildNewFile(at temporary: URL, request: StoreOpenRequest, schema: SQLSchema) throws {
        let connection = try openConnection(path: temporary.path, readOnly: false, options: request.options, creating: true)
        defer { connection.close() }
        let metadata = ModelCompatibility.metadata(storeType: NSSQLiteStoreType, uuid: UUID().uuidString,
                                                   entities: request.entities, model: request.model)
        try connection.transaction {
            try createSchema(on: connection, schema: schema, model: request.model, metadata: metadata)
            try createDerivedAttributeTriggers(on: connection, schema: schema, entities: request.entities, refreshing: false)
        }
    }

    /// Moves the finished database at `temporary` to `url` in one step and flushes the directory. A missing
    /// `url` is linked without replacing (so two processes creating one store cannot overwrite each other's;
    /// on a file system without hard links it is renamed); an empty file at `url` is renamed over. Stale companions of the old, empty `url` are removed first, so
    /// no old log is ever replayed onto the new file.
    /// - Throws: 134080 when the file cannot be moved and no other process created the store meanwhile.
    private static func placeNewFile(_ temporary: URL, at url: URL) throws {
        try AtomicFileReplacement.flush(temporary.path, directory: false)
        guard (fileSize(url.path) ?? 0) == 0 else { return }
        for suffix in companionSuffixes { unlink(url.path + suffix) }
        var moved: Bool
        if fileSize(url.path) == nil {
            moved = link(temporary.path, url.path) == 0
            // A file system without hard links: rename, which replaces a store only if one appeared just now.
            if !moved, [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(errno), fileSize(url.path) == nil {
                moved = rename(temporary.path, url.path) == 0
            }
        } else {
            moved = rename(temporary.path, url.path) == 0
        }
        let reason = String(cString: strerror(errno))
        // Another process's store won the race: open that one.
        if !moved, (fileSize(url.path) ?? 0) > 0 { return }
        guard moved else { throw CoreDataError.openFailed(url, reason: "the new store file could not be moved into place (\(reason))") }
        try AtomicFileReplacement.flush(url.deletingLastPathComponent().path, directory: true)
    }

    /// A new, empty temporary database file beside `url`, claimed while it is built (`TemporaryFileClaim`), so
    /// that another process opening the store meanwhile does not remove it as a leftover.
    /// - Throws: 134080 naming the file when it cannot be made.
    static func claimTemporaryFile(beside url: URL) throws -> TemporaryFileClaim {
        do {
            return try TemporaryFileClaim(beside: url)
        } catch {
            throw CoreDataError.openFailed(url, reason: "a temporary file could not be made beside it (\((error as NSError).localizedDescription))")
        }
    }

    /// Removes the temporary databases (and their journals) a process killed while creating this store left
    /// beside `url`, and nothing else (not those another process is building now).
    static func removeCreationLeftovers(of url: URL) {
        AtomicFileReplacement.removeLeftovers(of: url, companionSuffixes: companionSuffixes)
    }

    /// The size of the file at `path`, or nil when there is none.
    static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }

    private static func removeDatabase(at path: String) {
        for suffix in [""] + companionSuffixes { unlink(path + suffix) }
    }
}

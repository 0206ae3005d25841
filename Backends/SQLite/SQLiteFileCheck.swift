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

    /// A connection that cannot change the file or create files beside it. Without a `-wal` file the
    /// database is opened immutable (no locks, no `-shm`); with one, read-only so the log is read, waiting up to
    /// `busyTimeout` seconds while another connection (another process opening or saving) holds its lock.
    static func readOnlyConnection(url: URL, busyTimeout: Double = 30) throws -> SQLiteConnection {
        let walExists = FileManager.default.fileExists(atPath: url.path + "-wal")
        let uri = url.standardizedFileURL.absoluteString + (walExists ? "?mode=ro" : "?mode=ro&immutable=1")
        let connection = try SQLiteConnection(path: uri, flags: SQLITE_OPEN_READONLY, uri: true)
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
            throw error
        }
        return connection
    }
}

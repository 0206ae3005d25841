import CoreDataStoreKit

extension SQLiteStore: ExternalChangeDetecting {
    /// SQLite's `PRAGMA data_version` on the store's connection: it changes when another connection (of this
    /// process or another) commits to the database, and not for this connection's own commits. An in-memory
    /// database at `/dev/null` has no other connection, so its number never changes.
    public func externalChangeCount() throws -> Int64 {
        try connection.query("PRAGMA data_version", cached: false) { $0.int64(at: 0) }.first ?? 0
    }
}

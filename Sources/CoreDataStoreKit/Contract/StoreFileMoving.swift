/// A store type whose files need more than a rename to move a store over another one safely. The coordinator
/// and `NSMigrationManager` move a finished store into place with it; store types that do not adopt it are
/// moved file by file with `rename(2)`, which is atomic only for a store of one file (the atomic stores).
public protocol StoreFileMoving: PersistentStoreBackend {
    /// Moves the closed, complete store at `source` to `destination`, replacing any store there, so that a
    /// crash at any moment leaves at `destination` either the old store, whole, or the new one, whole (never
    /// the new file with the old one's companions). `source` does not exist afterwards.
    /// - Throws: `NSFileWriteUnknownError` (512) naming the step that failed; `destination` is then as it was.
    ///
    /// Not yet proven by a conformance case: a crash cannot be staged through the public API. The
    /// migration manager's tests (`MigrationManagerTests`) move SQLite stores with it.
    static func moveStore(from source: URL, to destination: URL) throws
}

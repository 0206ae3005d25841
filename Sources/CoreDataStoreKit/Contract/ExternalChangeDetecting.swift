/// A store that can tell when its file was changed by another connection: another coordinator of this
/// process or another process. An optional refinement of the contract; adopting it is the capability.
///
/// The coordinator polls it for stores added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`
/// and posts `NSPersistentStoreRemoteChange` when the number changes. The SQLite store adopts it.
public protocol ExternalChangeDetecting: PersistentStoreBackend {
    /// A number that changes whenever another connection commits a change to the store's data.
    ///
    /// The store guarantees: the number changes after another coordinator's or process's save, and does not
    /// change for the store's own saves, so that the coordinator posts `NSPersistentStoreRemoteChange` (with
    /// the store's `NSStoreUUIDKey`) for those only. Called with the coordinator's lock held.
    ///
    /// - Throws: the store's error when the file cannot be read; the coordinator then posts nothing.
    ///
    /// Conformance: `save/remote-change-notification`.
    func externalChangeCount() throws -> Int64
}

/// A store that can also tell which objects other connections changed (the PostgreSQL store, through
/// `LISTEN`/`NOTIFY`). The coordinator puts them in `NSPersistentStoreRemoteChange`'s userInfo as object IDs,
/// so `mergeChanges(fromContextDidSave:)` can bring contexts up to date.
public protocol ExternalChangeListing: ExternalChangeDetecting {
    /// What other connections changed since the last call (called with the coordinator's lock held, after
    /// `externalChangeCount()` reported a change).
    ///
    /// The store guarantees: every object another connection inserted, updated or deleted since the last call,
    /// or `isIncomplete` when it cannot list them all.
    ///
    /// - Throws: the store's error; the coordinator then posts the notification without object IDs.
    ///
    /// Conformance: `save/remote-change-notification` (the notification); the lists are proven by the
    /// PostgreSQL store's tests (`PostgreSQLManyServersTests`), not yet by a conformance case.
    func takeExternalChanges() throws -> ExternalChanges
}

/// The objects other connections' saves changed, by key.
public struct ExternalChanges {
    /// The keys of the objects other connections inserted.
    public var inserted: [ObjectKey] = []
    /// The keys of the objects other connections updated.
    public var updated: [ObjectKey] = []
    /// The keys of the objects other connections deleted.
    public var deleted: [ObjectKey] = []
    /// Whether some save did not list its objects (too many to announce): then the lists are incomplete.
    public var isIncomplete = false

    /// No changes: empty lists, complete.
    public init() {}
}

import CoreDataStoreKit

/// Remote changes through PostgreSQL's `LISTEN`/`NOTIFY`: every save announces itself on the store's channel
/// (`coredata_<schema>`) in the same transaction, so the notification is delivered exactly when the save
/// commits and never for a save that rolled back. A store added with
/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` listens on the channel; the coordinator polls it
/// and posts `NSPersistentStoreRemoteChange` with the changed object IDs.
///
/// The payload is `<connection> <store uuid> i<ent>.<pk>,… u… d…`: the saving store instance's identity (so a
/// store skips its own saves), the store's UUID, then the inserted, updated and deleted keys. A save whose
/// keys do not fit in PostgreSQL's 8,000-byte payload sends `*` instead of keys, which listeners report as a
/// change without a list of objects; so does a batch request that does not know every row it changed (a `*`
/// after its keys). Batch deletes, updates and inserts announce themselves too, in their transactions.
extension PostgreSQLStore: ExternalChangeListing {
    /// The channel saves are announced on.
    var channel: String { "coredata_" + location.schema }

    /// The largest payload PostgreSQL accepts, less room for the UUID.
    private static let payloadLimit = 7_900

    /// Queues the notification of a save, inside its transaction.
    func announce(_ changes: StoreChangeSet) throws {
        try announce(inserted: changes.inserted.map(\.key), updated: changes.updated.map(\.row.key) + changes.toManyChanges.map(\.owner),
                     deleted: changes.deleted.map(\.key))
    }

    /// Queues the notification of changed rows, inside the transaction that changed them; `complete` false when
    /// other rows changed too, whose keys are not known (listeners then report a change without a list).
    func announce(inserted: [ObjectKey] = [], updated: [ObjectKey] = [], deleted: [ObjectKey] = [], complete: Bool = true) throws {
        let identity = (metadata[NSStoreUUIDKey] as? String) ?? ""
        var parts: [String] = []
        func add(_ tag: String, _ keys: [ObjectKey]) {
            guard !keys.isEmpty else { return }
            parts.append(tag + keys.map { "\($0.entityNumber).\($0.primaryKey)" }.joined(separator: ","))
        }
        add("i", inserted)
        add("u", updated)
        add("d", deleted)
        if !complete { parts.append("*") }
        var payload = parts.joined(separator: " ")
        if payload.utf8.count > Self.payloadLimit { payload = "*" }
        try connection.query("SELECT pg_notify($1, $2)", [channel, connectionIdentity + " " + identity + " " + payload])
    }

    /// Starts listening when the store was added with the remote-change option.
    func listenIfAsked(_ options: [AnyHashable: Any]) throws {
        guard storeOptionIsSet(options, NSPersistentStoreRemoteChangeNotificationPostOptionKey) else { return }
        let listen = "LISTEN \"\(channel)\""
        try connection.execute(listen)
        connection.sessionStatements.append(listen)
        listening = true
    }

    /// How many saves by other connections have been announced since the store was added.
    public func externalChangeCount() throws -> Int64 {
        try collectNotifications()
        return remoteChanges.count
    }

    /// The keys that other connections' saves changed since the last call (inserted, updated, deleted);
    /// `isIncomplete` when some save announced too many to list.
    public func takeExternalChanges() throws -> ExternalChanges {
        try collectNotifications()
        defer { remoteChanges.pending = ExternalChanges() }
        return remoteChanges.pending
    }

    private func collectNotifications() throws {
        guard listening else { return }
        let arrived = try run("read notifications", writes: false) { try connection.pendingNotifications() }
        for notification in arrived where notification.channel == channel {
            let fields = notification.payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2, fields[0] != connectionIdentity else { continue }
            remoteChanges.count += 1
            remoteChanges.pending.merge(payload: fields.count == 3 ? fields[2] : "")
        }
    }
}

extension ExternalChanges {
    /// Adds the keys of one announcement's payload (see the extension above for its form).
    mutating func merge(payload: Substring) {
        if payload == "*" { isIncomplete = true; return }
        for part in payload.split(separator: " ") {
            guard let tag = part.first else { continue }
            let keys = part.dropFirst().split(separator: ",").compactMap { item -> ObjectKey? in
                let pieces = item.split(separator: ".")
                guard pieces.count == 2, let entity = Int32(pieces[0]), let key = Int64(pieces[1]) else { return nil }
                return ObjectKey(entityNumber: entity, primaryKey: key)
            }
            switch tag {
            case "i": inserted += keys
            case "u": updated += keys
            case "d": deleted += keys
            default: isIncomplete = true
            }
        }
    }
}

/// The remote changes a store has heard of.
struct RemoteChangeLog {
    var count: Int64 = 0
    var pending = ExternalChanges()
}

/// Everything one save asks a store to write, applied all together or not at all.
///
/// Keys are permanent (the coordinator allocates them before the save). Every relationship change appears on
/// both sides: a to-one as the new value in the owner's row, a to-many as the full new list of destination
/// keys in `toManyChanges` (in order for an ordered relationship). A store keeps what it needs: the SQLite
/// store ignores to-many lists that the inverse's foreign key already records.
public struct StoreChangeSet {
    /// New objects; their `version` is ignored (it becomes 1).
    public var inserted: [StoreRow] = []
    /// Changed objects, with all their values and the version they were read at.
    public var updated: [StoreRowUpdate] = []
    /// Deleted objects, with the version they were read at.
    public var deleted: [StoreRowDeletion] = []
    /// New full lists of destinations for changed to-many relationships.
    public var toManyChanges: [ToManyChange] = []
    /// Metadata to write with the save, when it changed (`setMetadata(_:for:)`); nil leaves it alone.
    public var metadata: [String: Any]?
    /// Who made the save, for stores that record persistent history (`PersistentHistoryBackend`).
    public var transaction: StoreTransactionInfo?

    /// An empty change set: nothing inserted, updated or deleted, metadata left alone.
    public init() {}

    /// Whether the change set writes nothing.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && toManyChanges.isEmpty && metadata == nil
    }
}

/// An update of one object.
///
/// A store may write the whole `row` or only `changedSlots`: the result is the same, because when the version
/// check passes the other slots equal the stored values, and when there is no check every stored slot is
/// listed as changed. An update whose row is gone is a conflict (`current` nil) with or without a check, and
/// the save writes nothing (conformance: `save/update-deleted-row`).
public struct StoreRowUpdate {
    /// The new values (every slot, as in `StoreRow.values`).
    public var row: StoreRow
    /// The version the values were read at; the save fails with a conflict if the store has another.
    /// Nil skips the check; the row must still exist. (Contexts always send a version: the overwrite merge
    /// policy writes at the store's current version, learnt from a conflict.)
    public var expectedVersion: Int64?
    /// The slots that changed: every stored slot when `expectedVersion` is nil.
    public var changedSlots: [Int]

    /// An update writing `row`, checked against `expectedVersion` when it is not nil.
    public init(row: StoreRow, expectedVersion: Int64?, changedSlots: [Int]) {
        self.row = row
        self.expectedVersion = expectedVersion
        self.changedSlots = changedSlots
    }
}

/// The deletion of one object.
public struct StoreRowDeletion {
    /// The object to delete.
    public var key: ObjectKey
    /// The version it was read at; nil skips the check.
    public var expectedVersion: Int64?

    /// A deletion of `key`, checked against `expectedVersion` when it is not nil.
    public init(key: ObjectKey, expectedVersion: Int64?) {
        self.key = key
        self.expectedVersion = expectedVersion
    }
}

/// The new destinations of one to-many relationship of one object.
public struct ToManyChange {
    /// The object that owns the relationship.
    public var owner: ObjectKey
    /// The relationship (declared on the owner's entity or an ancestor).
    public var relationship: NSRelationshipDescription
    /// Every destination after the save, in order when the relationship is ordered.
    public var destinations: [ObjectKey]

    /// The new destinations of `owner`'s `relationship`.
    public init(owner: ObjectKey, relationship: NSRelationshipDescription, destinations: [ObjectKey]) {
        self.owner = owner
        self.relationship = relationship
        self.destinations = destinations
    }
}

/// What a store reports after a save: the versions callers cannot predict.
///
/// A store must give an inserted row version 1 and a checked update its expected version plus one, and must
/// not report those; it reports the new version of every update written without a check, which only the
/// store knows. So large saves build no table of versions.
/// Conformance: `save/repeated-updates`.
public struct StoreSaveResult {
    /// The new version of each object updated without a version check, and of nothing else.
    public var versions: [ObjectKey: Int64]
    /// The derived attribute values (`NSDerivedAttributeDescription`, by attribute name) the save computed, for
    /// every object whose derived values it set or changed, saved or not (a book whose page was inserted); a
    /// name mapped to nil is a value that became nil. The context gives these values to its objects and lists
    /// the objects as updated in its save notification. Conformance: `derived/…` cases.
    public var derivedValues: [ObjectKey: [String: Any?]]

    /// A result reporting these versions (by default none: every update was checked) and derived values.
    public init(versions: [ObjectKey: Int64] = [:], derivedValues: [ObjectKey: [String: Any?]] = [:]) {
        self.versions = versions
        self.derivedValues = derivedValues
    }
}

/// Thrown by a store when a save finds objects changed or deleted since they were read.
/// The coordinator turns it into Apple's merge error (133020) or resolves it with the merge policy.
public struct StoreVersionConflict: Error {
    /// One stale object.
    ///
    /// `@unchecked Sendable` (an error must be): the row is a copy the store made for this error, and its values
    /// are attribute values and object keys that nothing changes after the error is thrown.
    public struct Conflict: @unchecked Sendable {
        /// The object.
        public var key: ObjectKey
        /// The version the save expected; 0 when the change was not checked (its row is gone).
        public var expectedVersion: Int64
        /// The object as the store has it now; nil when it was deleted.
        public var current: StoreRow?

        /// A conflict for `key`: the version the save expected, and the row as the store has it (nil when deleted).
        public init(key: ObjectKey, expectedVersion: Int64, current: StoreRow?) {
            self.key = key
            self.expectedVersion = expectedVersion
            self.current = current
        }
    }

    /// Every stale object found.
    public var conflicts: [Conflict]

    /// The error for these stale objects.
    public init(conflicts: [Conflict]) { self.conflicts = conflicts }
}

/// The rows whose derived attributes Apple's `Z_DA_…` triggers changed, as the triggers report them through
/// `NSCoreDataDATriggerUpdatedAffectedObjectValue` and `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`.
///
/// One per connection. A save empties it before it writes and reads it after, inside its transaction, to tell
/// the context which objects' derived values changed (`SQLiteStore+Saving.swift`).
///
/// `@unchecked Sendable` is not claimed: it is used only on the thread that runs the connection's statements,
/// which the store's single caller (the coordinator, under its lock) guarantees.
final class SQLiteDerivedChanges {
    /// One reported change: the row (its `Z_ENT` in the file, and `Z_PK`) and the derived attribute's name.
    struct Change: Hashable {
        let storedEntity: Int64
        let primaryKey: Int64
        let attribute: String
    }

    private(set) var changes: [Change] = []
    private var seen = Set<Change>()

    func record(_ change: Change) {
        if seen.insert(change).inserted { changes.append(change) }
    }

    func removeAll() {
        changes.removeAll()
        seen.removeAll()
    }
}

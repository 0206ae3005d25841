import Foundation

/// A store that records persistent history: an optional refinement of the store contract; adopting it is the
/// capability (Apple records history in SQLite stores only; so does this package).
///
/// A store records a transaction for each save that changes rows when it was added with
/// `NSPersistentHistoryTrackingKey` (and reads the history a file already holds either way): its number
/// (increasing), time, the `StoreTransactionInfo` of the change set, and one change per inserted, updated and
/// deleted row, with the slots an update changed. History outlives the store's coordinator as its rows do.
///
/// For a store whose type does not adopt it, `NSPersistentHistoryChangeRequest` finds no transactions and
/// deletes none, and `currentPersistentHistoryToken(fromStores:)` is nil.
public protocol PersistentHistoryBackend: PersistentStoreBackend {
    /// Whether saves are recorded: true when the store was added with `NSPersistentHistoryTrackingKey`.
    var recordsHistory: Bool { get }

    /// The number of the newest transaction recorded, even when deleted since (0 when none was); nil when the
    /// store keeps no history. The history token after a save (`currentPersistentHistoryToken(fromStores:)`)
    /// holds it; a store with history and no transaction yet gives a token too, as Apple's does, so that fetching
    /// after it returns the first transactions.
    ///
    /// - Throws: the store's read error (134070 when not an `NSCocoaErrorDomain` error).
    ///
    /// Conformance: `history/fetch-after-a-token-a-transaction-or-a-date`.
    func newestHistoryTransactionNumber() throws -> Int64?

    /// The transactions after `position`, oldest first, with their changes.
    ///
    /// The store guarantees: one transaction per recorded save, with a number greater than every earlier one's,
    /// a timestamp, the saving context's `transactionAuthor` and `name`; one change per inserted, updated and
    /// deleted row, with a change number greater than every earlier one's and, for an update, the slots that
    /// changed. After `.transaction(n)`: the transactions numbered above `n`; after `.date(d)`: those recorded
    /// after `d`; after `.start`: every one.
    ///
    /// - Throws: the store's read error (134070 when not an `NSCocoaErrorDomain` error).
    ///
    /// Conformance: `history/transactions-and-changes-per-save`, `history/fetch-after-a-token-a-transaction-or-a-date`.
    func historyTransactions(after position: StoreHistoryPosition) throws -> [StoreHistoryTransaction]

    /// Deletes the transactions before `position`, and their changes, and returns how many transactions went.
    ///
    /// The store guarantees: `.transaction(n)` deletes the transactions numbered up to and including `n`;
    /// `.date(d)` those recorded before `d`; nothing else (no row of the store) changes; all at once or nothing.
    ///
    /// - Throws: 134030 when the history cannot be written (a read-only store).
    ///
    /// Conformance: `history/delete-before-a-token-or-a-date`.
    func deleteHistory(before position: StoreHistoryPosition) throws -> Int
}

/// A point in a store's history.
public enum StoreHistoryPosition: Equatable, Sendable {
    /// Before every transaction.
    case start
    /// A time: transactions after it, or before it.
    case date(Date)
    /// A transaction number: transactions after it, or before it.
    case transaction(Int64)
}

/// Who made a save: what a recorded transaction says about its origin.
public struct StoreTransactionInfo: Equatable, Sendable {
    /// The saving context's `transactionAuthor`, if it had one (Apple's `NSPersistentHistoryTransaction.author`).
    public var author: String?
    /// The saving context's `name`, if it had one (`NSPersistentHistoryTransaction.contextName`).
    public var contextName: String?
    /// The saving process's bundle identifier, or its process name when the main bundle has none (usual on Linux).
    public var bundleID: String
    /// The saving process's identifier, as text (`NSPersistentHistoryTransaction.processID`).
    public var processID: String

    /// Origin information with these values.
    public init(author: String?, contextName: String?, bundleID: String, processID: String) {
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
    }
}

/// One recorded save.
public struct StoreHistoryTransaction: Sendable {
    /// The transaction's number in the store: greater than that of every transaction recorded before it.
    public var number: Int64
    /// When the save was recorded.
    public var timestamp: Date
    /// Who made the save.
    public var info: StoreTransactionInfo
    /// One change per row the save inserted, updated or deleted.
    public var changes: [StoreHistoryChange]

    /// A transaction with these values.
    public init(number: Int64, timestamp: Date, info: StoreTransactionInfo, changes: [StoreHistoryChange]) {
        self.number = number
        self.timestamp = timestamp
        self.info = info
        self.changes = changes
    }
}

/// One row's change in a recorded save.
public struct StoreHistoryChange: Sendable {
    /// What happened to the row, with the raw values of Apple's `NSPersistentHistoryChangeType`.
    public enum Kind: Int, Sendable {
        /// The row was inserted.
        case insert = 0
        /// The row's values changed.
        case update = 1
        /// The row was deleted.
        case delete = 2
    }
    /// The change's number in the store (Apple's `changeID`): greater than that of every change recorded before it.
    public var number: Int64
    /// The changed row's key.
    public var key: ObjectKey
    /// Whether the row was inserted, updated or deleted.
    public var kind: Kind
    /// For an update, the slots (of the entity's layout) that changed; nil otherwise or when unknown.
    public var updatedSlots: [Int]?

    /// A change with these values.
    public init(number: Int64, key: ObjectKey, kind: Kind, updatedSlots: [Int]?) {
        self.number = number
        self.key = key
        self.kind = kind
        self.updatedSlots = updatedSlots
    }
}

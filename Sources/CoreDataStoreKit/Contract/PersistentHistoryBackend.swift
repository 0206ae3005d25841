import Foundation

/// What a store that records persistent history implements on top of the store contract (Apple records
/// history in SQLite stores only; so does this package).
///
/// A store records a transaction for each save that changes rows when it was added with
/// `NSPersistentHistoryTrackingKey` (and reads the history a file already holds either way): its number
/// (increasing), time, the `StoreTransactionInfo` of the change set, and one change per inserted, updated and
/// deleted row, with the slots an update changed.
public protocol PersistentHistoryBackend: PersistentStoreBackend {
    /// Whether saves are recorded.
    var recordsHistory: Bool { get }
    /// The number of the newest recorded transaction, or nil when there is none.
    func newestHistoryTransactionNumber() throws -> Int64?
    /// The transactions after `position`, oldest first, with their changes.
    func historyTransactions(after position: StoreHistoryPosition) throws -> [StoreHistoryTransaction]
    /// Deletes the transactions before `position` (a transaction position: up to and including it) and their
    /// changes; returns how many transactions went.
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
    public var author: String?
    public var contextName: String?
    public var bundleID: String
    public var processID: String

    public init(author: String?, contextName: String?, bundleID: String, processID: String) {
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
    }
}

/// One recorded save.
public struct StoreHistoryTransaction: Sendable {
    public var number: Int64
    public var timestamp: Date
    public var info: StoreTransactionInfo
    public var changes: [StoreHistoryChange]

    public init(number: Int64, timestamp: Date, info: StoreTransactionInfo, changes: [StoreHistoryChange]) {
        self.number = number
        self.timestamp = timestamp
        self.info = info
        self.changes = changes
    }
}

/// One row's change in a recorded save.
public struct StoreHistoryChange: Sendable {
    public enum Kind: Int, Sendable { case insert = 0, update = 1, delete = 2 }
    public var number: Int64
    public var key: ObjectKey
    public var kind: Kind
    /// For an update, the slots (of the entity's layout) that changed; nil otherwise or when unknown.
    public var updatedSlots: [Int]?

    public init(number: Int64, key: ObjectKey, kind: Kind, updatedSlots: [Int]?) {
        self.number = number
        self.key = key
        self.kind = kind
        self.updatedSlots = updatedSlots
    }
}

/// What a persistent-history request returns, with Apple's raw values.
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// `true` when the request ran.
    case statusOnly = 0
    /// The IDs of the changed objects.
    case objectIDs = 1
    /// The number of transactions fetched or deleted.
    case count = 2
    /// The transactions, without their changes.
    case transactionsOnly = 3
    /// The changes, without their transactions.
    case changesOnly = 4
    /// The transactions with their changes.
    case transactionsAndChanges = 5
}

/// Fetches or deletes persistent history, executed with `NSManagedObjectContext.execute(_:)` (Apple's class of
/// the same name). History is recorded by SQLite stores added with `NSPersistentHistoryTrackingKey`.
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest, @unchecked Sendable {
    enum Operation {
        case fetch
        case delete
    }

    enum Position {
        case start
        case date(Date)
        case token(NSPersistentHistoryToken)
    }

    let operation: Operation
    let position: Position
    /// What executing the request returns (transactions with their changes by default).
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// Which transactions or changes a fetch returns: `NSPersistentHistoryTransaction.fetchRequest` or
    /// `NSPersistentHistoryChange.fetchRequest` with a predicate (see `fetchHistory(withFetch:)`); nil for all.
    /// Deleting history with one throws 134091.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    init(_ operation: Operation, _ position: Position) {
        self.operation = operation
        self.position = position
        super.init()
    }

    /// The token the request starts from (or deletes up to), when it was made from one.
    open var token: NSPersistentHistoryToken? {
        if case .token(let token) = position { return token }
        return nil
    }

    /// The transactions saved after `date`.
    open class func fetchHistory(after date: Date) -> NSPersistentHistoryChangeRequest { .init(.fetch, .date(date)) }

    /// The transactions after `token`; every transaction for nil.
    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest {
        .init(.fetch, token.map { .token($0) } ?? .start)
    }

    /// The transactions after `transaction`; every transaction for nil.
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
        .init(.fetch, transaction.map { .token($0.token) } ?? .start)
    }

    /// Deletes the transactions saved before `date`.
    open class func deleteHistory(before date: Date) -> NSPersistentHistoryChangeRequest { .init(.delete, .date(date)) }

    /// Deletes the transactions up to `token`, the ones a fetch after it leaves out (nothing for nil).
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest {
        .init(.delete, token.map { .token($0) } ?? .start)
    }

    /// Deletes `transaction` and the transactions before it (nothing for nil).
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
        .init(.delete, transaction.map { .token($0.token) } ?? .start)
    }
}

/// The result of a persistent-history request (Apple's class of the same name).
open class NSPersistentHistoryResult: NSPersistentStoreResult, @unchecked Sendable {
    /// By `resultType`: `true`, `[NSManagedObjectID]`, an `NSNumber`, `[NSPersistentHistoryTransaction]` or
    /// `[NSPersistentHistoryChange]`.
    public let result: Any?
    /// The form the request asked for, which says what `result` holds.
    public let resultType: NSPersistentHistoryResultType

    init(result: Any?, resultType: NSPersistentHistoryResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}

extension NSManagedObjectContext {
    /// Runs a persistent-history request on the coordinator's stores that record history.
    func executeHistoryRequest(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.operation("The context has no persistent store coordinator.")
        }
        if request.operation == .delete, request.fetchRequest != nil {
            throw CoreDataError.unsupported("Deleting persistent history selected by a fetch request is not supported; delete before a date, token or transaction.")
        }
        var transactions: [NSPersistentHistoryTransaction] = []
        var deleted = 0
        for store in coordinator.stores(among: request.affectedStores) where coordinator.keepsHistory(store) {
            let position: StoreHistoryPosition
            switch request.position {
            case .start: position = .start
            case .date(let date): position = .date(date)
            case .token(let token):
                guard let number = token.transactionNumbers[store.identifier] else {
                    position = .start
                    break
                }
                position = .transaction(number)
            }
            switch request.operation {
            case .delete:
                if case .start = request.position { continue }
                if case .token(let token) = request.position, token.transactionNumbers[store.identifier] == nil { continue }
                deleted += try coordinator.deleteHistory(before: position, in: store)
            case .fetch:
                let records = try coordinator.historyTransactions(after: position, in: store)
                transactions += records.map { record in transaction(record, store: store) }
            }
        }
        if request.operation == .delete {
            return NSPersistentHistoryResult(result: request.resultType == .count ? NSNumber(value: deleted) : NSNumber(value: true),
                                             resultType: request.resultType == .count ? .count : .statusOnly)
        }
        transactions.sort { ($0.timestamp, $0.transactionNumber) < ($1.timestamp, $1.transactionNumber) }
        transactions = try request.filter(transactions)
        switch request.resultType {
        case .statusOnly: return NSPersistentHistoryResult(result: NSNumber(value: true), resultType: .statusOnly)
        case .count: return NSPersistentHistoryResult(result: NSNumber(value: transactions.count), resultType: .count)
        case .objectIDs:
            var seen = Set<NSManagedObjectID>()
            let ids = transactions.flatMap { $0.changes ?? [] }.map(\.changedObjectID).filter { seen.insert($0).inserted }
            return NSPersistentHistoryResult(result: ids, resultType: .objectIDs)
        case .changesOnly:
            return NSPersistentHistoryResult(result: transactions.flatMap { $0.changes ?? [] }, resultType: .changesOnly)
        case .transactionsOnly:
            for transaction in transactions { transaction.changes = nil }
            return NSPersistentHistoryResult(result: transactions, resultType: .transactionsOnly)
        case .transactionsAndChanges:
            return NSPersistentHistoryResult(result: transactions, resultType: .transactionsAndChanges)
        }
    }

    private func transaction(_ record: StoreHistoryTransaction, store: NSPersistentStore) -> NSPersistentHistoryTransaction {
        let transaction = NSPersistentHistoryTransaction(record: record, storeID: store.identifier)
        transaction.changes = record.changes.compactMap { change in
            guard let id = store.objectID(for: change.key) else { return nil }
            let properties = change.updatedSlots.map { slots in
                Set(slots.compactMap { slot in slot < id.entity.layout.allProperties.count ? id.entity.layout.allProperties[slot] : nil })
            }
            let item = NSPersistentHistoryChange(changeID: change.number, object: id, type: NSPersistentHistoryChangeType(rawValue: change.kind.rawValue) ?? .update,
                                                 updatedProperties: properties)
            item.transaction = transaction
            return item
        }
        return transaction
    }
}

extension NSPersistentStoreCoordinator {
    /// The position after the newest recorded transaction of each store (of `stores`, or all) that records
    /// history; nil when none has any. Apple's method cannot throw: a store whose history cannot be read is
    /// left out of the token, as one without history is.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        var numbers: [String: Int64] = [:]
        for store in persistentStores where stores == nil || stores?.contains(where: { ($0 as AnyObject) === store }) == true {
            guard let number = try? newestHistoryTransactionNumber(in: store) else { continue }
            numbers[store.identifier] = number
        }
        return numbers.isEmpty ? nil : NSPersistentHistoryToken(transactionNumbers: numbers)
    }
}

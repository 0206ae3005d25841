/// Fetch requests that filter persistent history, as Apple's `NSPersistentHistoryTransaction.fetchRequest` and
/// `NSPersistentHistoryChange.fetchRequest` make them: set a predicate (and a fetch limit) and pass the request
/// to `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)` or the change request's `fetchRequest`.
///
/// A transaction request filters transactions by `author`, `bundleID`, `processID`, `contextName`, `timestamp`,
/// `transactionNumber` and `storeID`; a change request filters the changes of each transaction by `changeID`,
/// `changeType` (the raw value), `changedObjectID` and `changedEntity` (the entity: `changedEntity == %@` with
/// `Item.entity()`, or `changedEntity.name == "Item"`), and keeps the transactions that have a change left. The predicate is evaluated on the transactions
/// and changes the store gives back.
extension NSPersistentHistoryTransaction: PredicateKeyValueReading {
    /// The description of history transactions, named after the class (Apple's is not part of any model).
    public class var entityDescription: NSEntityDescription? { HistoryEntities.transaction }

    /// The same description; the context is not needed here.
    public class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }

    /// A request for transactions, for `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`.
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? { HistoryEntities.request(for: HistoryEntities.transaction) }

    public func predicateValue(forKey key: String) -> Any? {
        switch key {
        case "author": author
        case "bundleID": bundleID
        case "processID": processID
        case "contextName": contextName
        case "timestamp": timestamp
        case "transactionNumber": transactionNumber
        case "storeID": storeID
        case "token": token
        case "changes": changes
        default: nil
        }
    }
}

extension NSPersistentHistoryChange: PredicateKeyValueReading {
    /// The description of history changes, named after the class.
    public class var entityDescription: NSEntityDescription? { HistoryEntities.change }

    /// The same description; the context is not needed here.
    public class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }

    /// A request for changes, for `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`.
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? { HistoryEntities.request(for: HistoryEntities.change) }

    public func predicateValue(forKey key: String) -> Any? {
        switch key {
        case "changeID": changeID
        case "changeType": Int64(changeType.rawValue)
        case "changedObjectID": changedObjectID
        case "changedEntity": changedObjectID.entity
        case "transaction": transaction
        default: nil
        }
    }
}

extension NSPersistentHistoryChangeRequest {
    /// The transactions, or changes, that `fetchRequest` selects (Apple's `fetchHistory(withFetch:)`).
    public class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> NSPersistentHistoryChangeRequest {
        let request = NSPersistentHistoryChangeRequest(.fetch, .start)
        request.fetchRequest = fetchRequest
        return request
    }

    /// Keeps the transactions (or their changes) that the request's `fetchRequest` selects, then its fetch
    /// limit; all of them without one.
    /// - Throws: 134060 for a fetch request of another entity or a predicate that names an unknown key.
    func filter(_ transactions: [NSPersistentHistoryTransaction]) throws -> [NSPersistentHistoryTransaction] {
        guard let fetchRequest else { return transactions }
        let predicate = fetchRequest.predicate
        var kept: [NSPersistentHistoryTransaction]
        switch fetchRequest.entityName {
        case HistoryEntities.transaction.name:
            kept = transactions.filter { predicate?.evaluate(with: $0) ?? true }
        case HistoryEntities.change.name:
            kept = transactions.filter { transaction in
                transaction.changes = transaction.changes?.filter { predicate?.evaluate(with: $0) ?? true }
                return transaction.changes?.isEmpty == false
            }
        default:
            throw CoreDataError.make(NSCoreDataError, "A history fetch request must be NSPersistentHistoryTransaction.fetchRequest or "
                + "NSPersistentHistoryChange.fetchRequest, not a request for \(fetchRequest.entityName ?? "no entity").")
        }
        if fetchRequest.fetchLimit > 0 { kept = Array(kept.prefix(fetchRequest.fetchLimit)) }
        return kept
    }
}

/// The two history entities, made once.
enum HistoryEntities {
    static let transaction = entity("NSPersistentHistoryTransaction", ["author", "bundleID", "processID", "contextName", "storeID"],
                                    dates: ["timestamp"], numbers: ["transactionNumber"])
    static let change = entity("NSPersistentHistoryChange", ["changedEntity"], dates: [], numbers: ["changeID", "changeType"])

    static func request(for entity: NSEntityDescription) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name ?? "")
        request.entity = entity
        return request
    }

    private static func entity(_ name: String, _ strings: [String], dates: [String], numbers: [String]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = name
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        entity.properties = strings.map { attribute($0, .stringAttributeType) } + dates.map { attribute($0, .dateAttributeType) }
            + numbers.map { attribute($0, .integer64AttributeType) }
        return entity
    }
}

/// One save recorded in a store's persistent history (Apple's class of the same name).
open class NSPersistentHistoryTransaction: NSObject, @unchecked Sendable {
    /// When the save happened.
    public let timestamp: Date
    /// The changes, in the order they were recorded; nil when the request asked for transactions only.
    open internal(set) var changes: [NSPersistentHistoryChange]?
    /// The transaction's number in its store, increasing.
    public let transactionNumber: Int64
    /// The identifier of the store the transaction belongs to.
    public let storeID: String
    /// The bundle identifier of the process that saved (its name when it has none).
    public let bundleID: String
    /// The process identifier that saved.
    public let processID: String
    /// The name of the context that saved.
    public let contextName: String?
    /// The `transactionAuthor` of the context that saved.
    public let author: String?
    /// The position just after this transaction.
    public let token: NSPersistentHistoryToken

    init(record: StoreHistoryTransaction, storeID: String) {
        timestamp = record.timestamp
        transactionNumber = record.number
        self.storeID = storeID
        bundleID = record.info.bundleID
        processID = record.info.processID
        contextName = record.info.contextName
        author = record.info.author
        token = NSPersistentHistoryToken(transactionNumbers: [storeID: record.number])
        super.init()
    }

    /// A did-save notification carrying the IDs of the objects the transaction inserted, updated and deleted,
    /// for `NSManagedObjectContext.mergeChanges(fromContextDidSave:)`.
    open func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        return Notification(name: .NSManagedObjectContextDidSave, object: nil, userInfo: [
            NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted,
        ])
    }
}

/// The kinds of change, with Apple's raw values.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    /// The object was inserted.
    case insert = 0
    /// The object's values changed (`updatedProperties` says which).
    case update = 1
    /// The object was deleted.
    case delete = 2
}

/// One object's change in a recorded save (Apple's class of the same name).
open class NSPersistentHistoryChange: NSObject, @unchecked Sendable {
    /// The change's number in its store.
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: NSManagedObjectID
    /// What happened to it.
    public let changeType: NSPersistentHistoryChangeType
    /// Values kept for a deleted object (not recorded here: always nil).
    public let tombstone: [AnyHashable: Any]?
    /// For an update, the properties that changed; nil otherwise.
    public let updatedProperties: Set<NSPropertyDescription>?
    /// The transaction the change belongs to.
    open internal(set) weak var transaction: NSPersistentHistoryTransaction?

    init(changeID: Int64, object: NSManagedObjectID, type: NSPersistentHistoryChangeType, updatedProperties: Set<NSPropertyDescription>?) {
        self.changeID = changeID
        changedObjectID = object
        changeType = type
        tombstone = nil
        self.updatedProperties = updatedProperties
        super.init()
    }
}

/// The IDs of the objects inserted (a collection of `NSManagedObjectID`), in notifications that carry IDs: a
/// history transaction's `objectIDNotification()`, `didSaveObjectIDsNotification`,
/// `didMergeChangesObjectIDsNotification` and a PostgreSQL store's remote-change notification. This key and
/// those below have Apple's values.
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// The IDs of the objects updated.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// The IDs of the objects deleted.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// The IDs of the objects refreshed (Apple's key; this package's notifications do not use it).
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// The IDs of the objects invalidated (Apple's key; this package's notifications do not use it).
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"

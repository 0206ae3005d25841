/// What a batch delete returns, with Apple's raw values.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// A Boolean: whether the delete succeeded.
    case resultTypeStatusOnly = 0
    /// The IDs of the deleted objects.
    case resultTypeObjectIDs = 1
    /// The number of deleted objects.
    case resultTypeCount = 2
}

/// Deletes the objects a fetch request matches, or a list of objects, directly in the stores, without loading
/// them into a context (Apple's class of the same name).
///
/// Delete rules are applied in the store: nullify clears the inverse references, cascade deletes the
/// destinations, and deny makes the whole request fail. Contexts do not see the deletions until they merge
/// them (`NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`) or refetch. Unlike Apple's, every
/// built-in store supports it, not only SQLite.
///
/// `@unchecked Sendable`: configured before it is executed, then only read (`fetchRequest` has a private setter,
/// `objectIDs` is a `let`).
open class NSBatchDeleteRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The fetch that selects the objects to delete (its entity, predicate, sort, limit and offset count).
    open private(set) var fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// The objects to delete, when the request was made from IDs.
    public let objectIDs: [NSManagedObjectID]?
    /// What the request returns.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

    /// Deletes what `fetchRequest` matches.
    public init(fetchRequest: NSFetchRequest<NSFetchRequestResult>) {
        self.fetchRequest = fetchRequest
        self.objectIDs = nil
        super.init()
    }

    /// Deletes these objects. As Apple documents, they must be of one entity type: executing a request whose IDs
    /// come from unrelated entities throws 134060 and deletes nothing (IDs of an entity and its subentities may
    /// be mixed, as a fetch of the entity would return them together).
    public init(objectIDs: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = objectIDs.first?.entity
        self.fetchRequest = request
        self.objectIDs = objectIDs
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }
}

/// The result of a store request (Apple's class of the same name).
///
/// `@unchecked Sendable`: it has no state; each subclass says what protects its own.
open class NSPersistentStoreResult: NSObject, @unchecked Sendable {}

/// The result of a batch delete: a status, a count or object IDs, by the request's result type.
///
/// `@unchecked Sendable`: immutable: `result` (a number or object IDs) and `resultType` are `let`s.
open class NSBatchDeleteResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `true` (as `NSNumber`), the count, or `[NSManagedObjectID]`, as the request asked.
    public let result: Any?
    /// The type the request asked for.
    public let resultType: NSBatchDeleteRequestResultType

    /// A result holding `result` in the form `resultType` names; contexts make these when they execute a request.
    public init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}

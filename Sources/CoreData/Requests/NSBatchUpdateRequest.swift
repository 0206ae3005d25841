/// What a batch update returns, with Apple's raw values.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// A Boolean: whether the update succeeded.
    case statusOnlyResultType = 0
    /// The IDs of the updated objects.
    case updatedObjectIDsResultType = 1
    /// The number of updated objects.
    case updatedObjectsCountResultType = 2
}

/// Sets attributes of every object a predicate matches directly in the stores, without loading the objects
/// into a context (Apple's class of the same name).
///
/// `propertiesToUpdate` maps attribute names (or `NSAttributeDescription`s) to new values: plain values, or
/// `NSNull` for nil, or constant expressions (`NSExpression(forConstantValue:)`, `CoreData`'s class).
/// Expressions that are not constants (key paths, arithmetic), relationships and transient or derived
/// attributes make the request throw 134091. Values are converted to the attribute's type as a save converts them; one
/// that cannot be converted throws 1550, and nil for a required attribute throws 1570 (Apple does not check
/// this; we do, so a store never holds a row that cannot be saved again). Each updated row's version
/// (`Z_OPT`) goes up by one. Contexts do not see the changes until they merge the updated IDs
/// (`NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)` with `NSUpdatedObjectsKey`) or refetch.
///
/// `@unchecked Sendable`: configured before it is executed, then only read.
open class NSBatchUpdateRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The name of the entity whose objects are updated.
    public let entityName: String
    /// The entity, when the request was made from one; otherwise it is looked up by name in the context's model.
    public let entity: NSEntityDescription?
    /// Which objects to update; nil updates every object of the entity.
    open var predicate: NSPredicate?
    /// Whether objects of subentities are updated too (the default).
    open var includesSubentities: Bool = true
    /// The new values, by attribute name or `NSPropertyDescription`.
    open var propertiesToUpdate: [AnyHashable: Any]?
    /// What the request returns.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType

    /// Updates objects of the entity with this name.
    public init(entityName: String) {
        self.entityName = entityName
        self.entity = nil
        super.init()
    }

    /// Updates objects of this entity.
    public init(entity: NSEntityDescription) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }
}

/// The result of a batch update: a status, a count or object IDs, by the request's result type.
///
/// `@unchecked Sendable`: immutable: `result` (a number or object IDs) and `resultType` are `let`s.
open class NSBatchUpdateResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `true` (as `NSNumber`), the count (as `NSNumber`), or `[NSManagedObjectID]`, as the request asked.
    public let result: Any?
    /// The type the request asked for.
    public let resultType: NSBatchUpdateRequestResultType

    /// A result holding `result` in the form `resultType` names; contexts make these when they execute a request.
    public init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}

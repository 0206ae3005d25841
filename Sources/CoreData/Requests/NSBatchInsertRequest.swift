/// What a batch insert returns, with Apple's raw values.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// A Boolean: whether the insert succeeded.
    case statusOnly = 0
    /// The IDs of the inserted objects.
    case objectIDs = 1
    /// The number of inserted objects.
    case count = 2
}

/// Inserts objects of one entity directly into a store, from dictionaries of attribute values, without
/// making managed objects in a context (Apple's class of the same name).
///
/// The objects come from `objectsToInsert`, or from a handler called once per object until it returns
/// `true` (the object filled in by that last call is not inserted): `dictionaryHandler` fills a dictionary,
/// and the `managedObjectHandler` form (declared in the `CoreData` module) sets values on a managed object
/// that is in no context. Keys are attribute names; values are converted to the attribute's type as a save
/// converts them, and missing attributes get their default values. Nothing is inserted when any object is
/// bad: an unknown key or a value of the wrong type throws 1550, a required attribute without a value or
/// default throws 1570, and relationships or transient attributes throw 134091. Validation rules beyond
/// these (ranges, patterns) are not applied, as on Apple's platforms. Contexts do not see the new objects
/// until they fetch.
///
/// `@unchecked Sendable`: configured before it is executed, then only read; its handlers run only on the queue of the
/// context that executes it.
open class NSBatchInsertRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The name of the entity whose objects are inserted.
    public let entityName: String
    /// The entity, when the request was made from one; otherwise it is looked up by name in the context's model.
    public let entity: NSEntityDescription?
    /// The objects to insert, as attribute values by name.
    open var objectsToInsert: [[String: Any]]?
    /// Called once per object with an empty dictionary to fill; returns `true` to stop (that dictionary is
    /// not inserted).
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// The managed-object handler, untyped; `CoreData` exposes it as `managedObjectHandler`.
    public var _managedObjectHandler: ((AnyObject) -> Bool)?
    /// What the request returns.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// Inserts these objects into the entity with this name.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.entity = nil
        self.objectsToInsert = objects
        super.init()
    }

    /// Inserts these objects into this entity.
    public init(entity: NSEntityDescription, objects: [[String: Any]]) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.objectsToInsert = objects
        super.init()
    }

    /// Inserts the objects `handler` fills in, into the entity with this name.
    public init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entityName
        self.entity = nil
        self.dictionaryHandler = handler
        super.init()
    }

    /// Inserts the objects `handler` fills in, into this entity.
    public init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.dictionaryHandler = handler
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }
}

/// The result of a batch insert: a status, a count or object IDs, by the request's result type.
///
/// `@unchecked Sendable`: immutable: `result` (a number or object IDs) and `resultType` are `let`s.
open class NSBatchInsertResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `true` (as `NSNumber`), the count (as `NSNumber`), or `[NSManagedObjectID]`, as the request asked.
    public let result: Any?
    /// The type the request asked for.
    public let resultType: NSBatchInsertRequestResultType

    /// A result holding `result` in the form `resultType` names; contexts make these when they execute a request.
    public init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}

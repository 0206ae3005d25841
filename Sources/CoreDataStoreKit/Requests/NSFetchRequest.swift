/// What a fetch returns, with Apple's raw values.
public struct NSFetchRequestResultType: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Object IDs.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of `propertiesToFetch`.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// One `NSNumber`: the number of matching objects.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// A description of a fetch: which entity, which objects, in what order, how many, and in what form
/// (Apple's class of the same name).
///
/// The result type parameter is unconstrained (see `NSFetchRequestResult`): write `NSFetchRequest<Person>`,
/// `NSFetchRequest<NSFetchRequestResult>`, `NSFetchRequest<NSDictionary>` or `NSFetchRequest<NSManagedObjectID>`
/// as on Apple's platforms.
///
/// `@unchecked Sendable`: configured before it is shared, then only read, as Apple's SDK treats requests; the one
/// field a fetch writes, `sortDescriptors` (naming key-path sorts), is read and written only under `sortLock`.
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// The entity to fetch; set directly or found from `entityName` by the context.
    open var entity: NSEntityDescription?
    private var storedEntityName: String?
    /// The name of the entity to fetch.
    open var entityName: String? {
        get { storedEntityName ?? entity?.name }
        set { storedEntityName = newValue }
    }
    /// Which objects to fetch; nil fetches all.
    open var predicate: NSPredicate?
    /// The order of the results; nil leaves it to the store. A descriptor made from a Swift key path
    /// (`NSSortDescriptor(keyPath: \Book.title, ascending: true)`) sorts by the properties the key path reads,
    /// which a context finds when it fetches and puts in its place (a descriptor with that `key`, as Apple's
    /// has from the start). Contexts on several queues may fetch with one request at once.
    open var sortDescriptors: [NSSortDescriptor]? {
        get {
            sortLock.lock()
            defer { sortLock.unlock() }
            return storedSortDescriptors
        }
        set {
            sortLock.lock()
            defer { sortLock.unlock() }
            storedSortDescriptors = newValue
        }
    }
    private var storedSortDescriptors: [NSSortDescriptor]?
    /// Guards `storedSortDescriptors`, which a fetch on any context's queue may replace.
    private let sortLock = NSLock()
    /// The most objects to return; 0 means no limit.
    open var fetchLimit: Int = 0
    /// How many matching objects to skip first.
    open var fetchOffset: Int = 0
    /// How many objects to load at a time (recorded; results are loaded at once).
    open var fetchBatchSize: Int = 0
    /// What the fetch returns.
    open var resultType: NSFetchRequestResultType = .managedObjectResultType
    /// Whether objects of subentities match too.
    open var includesSubentities: Bool = true
    /// Whether the context's unsaved inserts, updates and deletes are taken into account.
    open var includesPendingChanges: Bool = true
    /// Whether objects come back as faults whose values load on first access.
    open var returnsObjectsAsFaults: Bool = true
    /// Whether objects come back with their values (when false, as faults).
    open var includesPropertyValues: Bool = true
    /// For dictionary results: the properties to return, as names or `NSPropertyDescription`s.
    open var propertiesToFetch: [Any]?
    /// For dictionary results: whether duplicate dictionaries are dropped.
    open var returnsDistinctResults: Bool = false
    /// Relationships whose destinations are loaded with the results: key paths of relationships (`"owner"`,
    /// `"owner.chapters"`), each step read for all the objects of the step before with one store request.
    open var relationshipKeyPathsForPrefetching: [String]?
    /// Whether fetched objects that are already registered get their values refreshed.
    open var shouldRefreshRefetchedObjects: Bool = false
    /// For dictionary results: the properties to group by.
    open var propertiesToGroupBy: [Any]?
    /// For grouped dictionary results: which groups to keep, naming result values by key or as `$variables`.
    open var havingPredicate: NSPredicate?

    public override init() { super.init() }

    /// A request for the named entity.
    public convenience init(entityName: String) {
        self.init()
        self.entityName = entityName
    }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchRequest<ResultType>()
        copy.copyFields(from: self)
        return copy
    }

    /// Copies every field of `other` into this request (an addition to Apple's API, for typed copies).
    public func copyFields<Other>(from other: NSFetchRequest<Other>) {
        entity = other.entity
        entityName = other.entityName
        predicate = other.predicate
        sortDescriptors = other.sortDescriptors
        fetchLimit = other.fetchLimit
        fetchOffset = other.fetchOffset
        fetchBatchSize = other.fetchBatchSize
        resultType = other.resultType
        includesSubentities = other.includesSubentities
        includesPendingChanges = other.includesPendingChanges
        returnsObjectsAsFaults = other.returnsObjectsAsFaults
        includesPropertyValues = other.includesPropertyValues
        propertiesToFetch = other.propertiesToFetch
        returnsDistinctResults = other.returnsDistinctResults
        relationshipKeyPathsForPrefetching = other.relationshipKeyPathsForPrefetching
        shouldRefreshRefetchedObjects = other.shouldRefreshRefetchedObjects
        propertiesToGroupBy = other.propertiesToGroupBy
        havingPredicate = other.havingPredicate
        _affectedStoreHandles = other._affectedStoreHandles
    }

    open override var description: String {
        "<NSFetchRequest entity: \(entityName ?? "nil"), predicate: \(predicate.map { "\($0)" } ?? "nil"), limit: \(fetchLimit), offset: \(fetchOffset)>"
    }
}

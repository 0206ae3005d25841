/// A fetched property: a weak, one-way relationship computed by a fetch (Apple's class of the same name).
///
/// The fetch is described by the destination entity's name and a predicate; `$FETCH_SOURCE` in the predicate
/// stands for the object the property is read on. Fetched properties are never stored.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    /// The name of the entity the fetch returns.
    open var destinationEntityName: String? {
        willSet { willChange("destinationEntityName") }
    }
    /// The predicate of the fetch.
    open var fetchPredicate: NSPredicate? {
        willSet { willChange("fetchPredicate") }
    }
    /// An addition to Apple's API: the fetch's predicate as a model file writes it (predicate format text).
    open var fetchPredicateFormat: String? {
        willSet { willChange("fetchPredicateFormat") }
    }

    /// The fetch (Apple's property): its entity name and predicate are the description's
    /// `destinationEntityName` and `fetchPredicate`, and its sort descriptors order the results. Setting it
    /// sets those too.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        get {
            if let storedRequest { return storedRequest }
            guard let destinationEntityName else { return nil }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: destinationEntityName)
            request.predicate = fetchPredicate
            return request
        }
        set {
            storedRequest = newValue
            destinationEntityName = newValue?.entityName ?? newValue?.entity?.name
            fetchPredicate = newValue?.predicate
        }
    }
    private var storedRequest: NSFetchRequest<NSFetchRequestResult>?

    public override init() { super.init(); isTransient = true }

    required public init(copying other: NSPropertyDescription) {
        if let other = other as? NSFetchedPropertyDescription {
            destinationEntityName = other.destinationEntityName
            fetchPredicate = other.fetchPredicate
            fetchPredicateFormat = other.fetchPredicateFormat
            storedRequest = other.storedRequest
        }
        super.init(copying: other)
    }
}

/// The kinds of store request, with Apple's raw values.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    /// An `NSFetchRequest`.
    case fetchRequestType = 1
    /// A save (Apple's `NSSaveChangesRequest`, which this package does not declare: contexts save through the store
    /// contract).
    case saveRequestType = 2
    /// An `NSBatchInsertRequest`.
    case batchInsertRequestType = 5
    /// An `NSBatchUpdateRequest`.
    case batchUpdateRequestType = 6
    /// An `NSBatchDeleteRequest`.
    case batchDeleteRequestType = 7
}

/// A request sent to stores (Apple's class of the same name).
open class NSPersistentStoreRequest: NSObject, NSCopying, @unchecked Sendable {
    /// The stores the request goes to, as `NSPersistentStore` objects (typed as `affectedStores` in `CoreData`);
    /// nil means every store that holds the entity.
    public var _affectedStoreHandles: [AnyObject]?

    public override init() { super.init() }

    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreRequest()
        copy._affectedStoreHandles = _affectedStoreHandles
        return copy
    }
}

/// What a fetch returns, and the base of what batch requests return (Apple's protocol of the same name).
///
/// On Apple's platforms this is an Objective-C protocol; here `NSFetchRequest`'s result type is left
/// unconstrained, so `NSFetchRequest<NSFetchRequestResult>` compiles as it does there.
public protocol NSFetchRequestResult: AnyObject {}

extension NSManagedObjectID: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}

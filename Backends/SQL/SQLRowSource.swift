import CoreDataStoreKit

/// Where `SQLCompiledFetch.completeInMemory(_:for:reading:)` reads what the in-memory evaluator asks of a
/// fetched row beyond its own values: the model that says what each slot holds, and the rows behind its
/// relationships. An SQL store adopts it with the methods it already has as a `PersistentStoreBackend`.
public protocol SQLRowSource: AnyObject {
    /// The model the store's rows follow (`StoreRow.values` in each entity's slot layout).
    var model: NSManagedObjectModel { get }
    /// The rows of `keys` that exist, as `PersistentStoreBackend.rows(for:)`.
    func rows(for keys: [ObjectKey]) throws -> [StoreRow]
    /// The keys a to-many relationship of `key` holds, as `PersistentStoreBackend.relatedKeys(of:through:)`.
    func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey]
}

/// The objects a context has registered, found by the identity of their IDs, in about 12 bytes an object.
///
/// A `TaggedTable` of objects keyed by `NSManagedObject.assignedIdentity` (open addressing with linear probing, a
/// tag byte and the object per position, the identity read off the object where the tag matches, no more than
/// three quarters full). A `[Identity: NSManagedObject]` dictionary takes about 67 bytes an object for a million
/// objects (a 24-byte key and the object in 2²¹ buckets); this table, sized for the objects a fetch brings, about
/// 12.
///
/// Guarantees: the table holds its objects strongly; an object is found by the identity it has now, so an
/// object whose ID changes while it is in the table must be removed first and inserted again
/// (`NSManagedObjectContext.reregister(_:as:)` does both). An object without an identity (a new object whose ID
/// nobody asked for) is not registered. Used on its context's queue only, like the rest of the context.
typealias RegistrationTable = TaggedTable<NSManagedObject>

extension NSManagedObject: TaggedTableElement {
    var tableKey: NSManagedObjectID.Identity? { assignedIdentity }

    static func tableHash(of key: NSManagedObjectID.Identity) -> UInt64 { key.tableHash }

    func hasTableKey(_ key: NSManagedObjectID.Identity) -> Bool { assignedIdentity == key }
}

extension TaggedTable where Element == NSManagedObject {
    /// Every registered object, in no particular order (a copy: the table may change while it is used).
    var allObjects: [NSManagedObject] { allElements }
}

import Dispatch

/// The identity of a managed object (Apple's class of the same name).
///
/// A temporary ID is given to an object when it is inserted; saving (or `obtainPermanentIDs(for:)`)
/// replaces it with a permanent ID, made of the store, the entity and a primary key, which stays the same
/// across saves, reopens and processes. Two IDs are equal when they name the same object.
///
/// `@unchecked Sendable`: immutable: every field is a `let` (obtaining a permanent ID makes a new ID, it never
/// changes a temporary one), and the counter of temporary numbers is touched only under `counterLock`; the model is
/// frozen once a coordinator uses it (`NSManagedObjectModel`), so from then on `entity` is only read.
open class NSManagedObjectID: NSObject, NSCopying, StoredObjectReference, @unchecked Sendable {
    /// The entity of the object.
    public let entity: NSEntityDescription
    /// The store the object is saved in; nil for a temporary ID.
    public let storeIdentity: StoreIdentity?
    /// The object's key in its store; nil for a temporary ID.
    public let key: ObjectKey?
    /// For a temporary ID, its number, unique in the process; 0 for a permanent ID.
    private let temporaryNumber: UInt64

    private static let processToken = UUID().uuidString
    private static let counterLock = NSLock()
    nonisolated(unsafe) private static var counter: UInt64 = 0

    /// A permanent ID (an addition to Apple's API, for stores and coordinators).
    public init(entity: NSEntityDescription, key: ObjectKey, store: StoreIdentity) {
        self.entity = entity
        self.key = key
        self.storeIdentity = store
        self.temporaryNumber = 0
        super.init()
    }

    /// A new temporary ID, unique in the process (an addition to Apple's API).
    public init(temporaryFor entity: NSEntityDescription) {
        NSManagedObjectID.counterLock.lock()
        NSManagedObjectID.counter &+= 1
        let number = NSManagedObjectID.counter
        NSManagedObjectID.counterLock.unlock()
        self.entity = entity
        self.key = nil
        self.storeIdentity = nil
        self.temporaryNumber = number
        super.init()
    }

    /// Whether the ID is temporary: the object has not been saved and has not obtained a permanent ID.
    open var isTemporaryID: Bool { key == nil }

    /// The object's key in its store, for predicates that compare objects.
    public var storedObjectKey: ObjectKey? { key }

    /// The URI of the ID, in Apple's form: `x-coredata://<store UUID>/<Entity>/p<key>` for a permanent ID,
    /// `x-coredata:///<Entity>/t<token>` for a temporary one.
    open func uriRepresentation() -> URL {
        let entityName = entity.name ?? ""
        let text: String
        if let key, let storeIdentity {
            text = "x-coredata://\(storeIdentity.identifier)/\(entityName)/p\(key.primaryKey)"
        } else {
            text = "x-coredata:///\(entityName)/t\(NSManagedObjectID.processToken)\(temporaryNumber)"
        }
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// A value that is equal for equal IDs and cheap to hash (an addition to Apple's API, for registries).
    public var identity: Identity {
        if let storeIdentity, let key { return Identity(store: storeIdentity, key: key) }
        return Identity(temporaryNumber: temporaryNumber)
    }

    /// What makes two IDs equal: the store and key of a permanent ID, the number of a temporary one.
    ///
    /// 24 bytes (a registry of a million objects keeps a million of them): the store's identity as bits (0 for a
    /// temporary ID), the key's entity number (0 for a temporary ID) and its primary key, or the temporary ID's
    /// number.
    public struct Identity: Hashable, Sendable {
        let store: UInt
        let entityNumber: Int32
        let number: Int64

        /// The identity of the permanent ID of `key` in the store `store`, so a registry can look an object up
        /// without making its ID.
        public init(store: StoreIdentity, key: ObjectKey) {
            self.store = UInt(bitPattern: ObjectIdentifier(store))
            entityNumber = key.entityNumber
            number = key.primaryKey
        }

        /// Whether this is the identity of a temporary ID.
        package var isTemporary: Bool { store == 0 }

        /// A hash of every field for open-addressing tables (the contexts' registration tables): the fields
        /// combined, then multiplied by 2⁶⁴ divided by the golden ratio (Fibonacci hashing), so that the high
        /// bits spread consecutive primary keys evenly over a table and the middle bits vary too.
        package var tableHash: UInt64 {
            let fields = UInt64(bitPattern: number) ^ (UInt64(UInt32(bitPattern: entityNumber)) << 44) ^ (UInt64(store) << 16)
            return fields &* 0x9E37_79B9_7F4A_7C15
        }

        /// The identity of a temporary ID.
        init(temporaryNumber: UInt64) {
            store = 0
            entityNumber = 0
            number = Int64(bitPattern: temporaryNumber)
        }

        /// Hashes one word: the primary key of a permanent ID (keys rarely repeat across stores and entity
        /// hierarchies), the number of a temporary one. Equality still compares every field.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(number)
        }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        return other === self || identity == other.identity
    }

    /// Equal for equal IDs, since it is made of what `isEqual(_:)` compares (the identity's `tableHash`, its high half
    /// folded into the low one), and cheap: a multiplication and a shift, no `Hasher` run. A `Set` or `Dictionary` of
    /// IDs runs its own seeded `Hasher` over this value (`NSObject`'s `hash(into:)`), so it was hashed twice before.
    open override var hash: Int {
        let mixed = identity.tableHash
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
    }

    /// IDs are immutable; the copy is the ID itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String { "<\(type(of: self)) \(uriRepresentation().absoluteString)>" }
}

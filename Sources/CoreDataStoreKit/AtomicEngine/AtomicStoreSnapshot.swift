/// The whole contents of an atomic store, by entity and property name, as a file format reads and writes it.
///
/// Names rather than slots make a file independent of the model's layout: a file is loaded into whatever
/// model the coordinator has, matching entities and properties by name (which is also how atomic stores
/// perform a lightweight migration).
public struct AtomicStoreSnapshot {
    /// A reference to a stored object.
    public struct Reference: Hashable {
        /// The name of the object's entity, as the model names it.
        public var entityName: String
        /// The object's primary key within its entity hierarchy (greater than 0).
        public var primaryKey: Int64
        /// A reference to the object of `entityName` with `primaryKey`.
        public init(entityName: String, primaryKey: Int64) {
            self.entityName = entityName
            self.primaryKey = primaryKey
        }
    }

    /// One stored object.
    public struct Object {
        /// The object's entity and key.
        public var reference: Reference
        /// The optimistic-locking version (1 when the format does not record one).
        public var version: Int64
        /// Attribute values by name, in the attributes' storage types (see `StoreRow`); nil values are absent.
        public var attributes: [String: Any]
        /// To-one destinations by relationship name; nil destinations are absent.
        public var toOne: [String: Reference]
        /// To-many destinations by relationship name, in order for ordered relationships.
        public var toMany: [String: [Reference]]

        /// An object with these values; by default version 1, with no values.
        public init(reference: Reference, version: Int64 = 1, attributes: [String: Any] = [:],
                    toOne: [String: Reference] = [:], toMany: [String: [Reference]] = [:]) {
            self.reference = reference
            self.version = version
            self.attributes = attributes
            self.toOne = toOne
            self.toMany = toMany
        }
    }

    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, version hashes, user keys).
    public var metadata: [String: Any]
    /// Every object.
    public var objects: [Object]
    /// The highest primary key ever given out, by root entity name (keys of deleted objects are not reused).
    public var primaryKeyHighWater: [String: Int64]

    /// A store's contents: its metadata, its objects, and the highest keys given out.
    public init(metadata: [String: Any], objects: [Object] = [], primaryKeyHighWater: [String: Int64] = [:]) {
        self.metadata = metadata
        self.objects = objects
        self.primaryKeyHighWater = primaryKeyHighWater
    }
}

/// The identity of one stored object inside one store: its concrete entity's number and its primary key.
///
/// An addition to Apple's API, used by the store contract. Entity numbers are the model's own
/// (`NSEntityDescription.entityNumber`, Apple's `Z_ENT`), and a whole entity hierarchy shares one primary-key
/// sequence, so `(entityNumber, primaryKey)` is unique within a store.
public struct ObjectKey: Hashable, Sendable, CustomStringConvertible {
    /// The concrete entity's number in its model (1-based, Apple's `Z_ENT`).
    public var entityNumber: Int32
    /// The primary key (Apple's `Z_PK`); always greater than zero.
    public var primaryKey: Int64

    /// The key of the object of entity number `entityNumber` (the entity's `entityNumber` in the model) with
    /// `primaryKey`.
    public init(entityNumber: Int32, primaryKey: Int64) {
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
    }

    public var description: String { "\(entityNumber):\(primaryKey)" }
}

/// Something that stands for one stored object: an object ID, a managed object, or a row inside a store.
///
/// The predicate evaluator compares two references by identity: equal when both have keys and the keys are
/// equal, or when they are the same instance.
public protocol StoredObjectReference: AnyObject {
    /// The object's key in its store, or nil when it has not been saved yet.
    var storedObjectKey: ObjectKey? { get }
}

/// An object whose keys the in-memory predicate evaluator can read.
///
/// Managed objects, the atomic engine's row views and test doubles conform. `Dictionary<String, Any>` is read
/// by the evaluator directly.
public protocol PredicateKeyValueReading {
    /// The value for one key (never a dotted path). Attributes come back as Swift values (`Int64`, `Double`,
    /// `String`, `Date`, …, or `NSNumber`), a to-one relationship as another reading object or nil, and a
    /// to-many as an `Array` or `Set` of reading objects. An unknown key returns nil.
    func predicateValue(forKey key: String) -> Any?
}

import Foundation

/// Makes the `NSDictionary`s of a dictionary-result fetch, one per row, straight from the row's values.
///
/// Each key is made an `NSString` once per fetch and shared by every dictionary, and each dictionary is made
/// with `NSDictionary(objects:forKeys:count:)` from the values present, without a Swift dictionary in between.
/// What the caller gets is what `NSDictionary(dictionary:)` of a `[String: Any]` with the same values gives: a plain
/// `NSDictionary` (so `as? [String: Any]`, `==`, `allKeys` and `description` behave as for any other), keys that
/// bridge to `String`, and each value in the object form Foundation stores it in (`objectForm(_:)`). A key
/// without a value is left out, as Apple's dictionary results leave out nil.
///
/// On swift-corelibs-foundation, building through a `[String: Any]` bridged each key to a new `NSString` and cast
/// each value again for every row: most of the cost of a dictionary fetch (Docs/Performance.md). A subclass of
/// `NSDictionary` over a shared key table would be cheaper still, but corelibs bridges only `NSDictionary` itself
/// to a Swift dictionary (`as? [String: Any]` of a subclass is empty), so results stay plain `NSDictionary`s.
struct DictionaryResultBuilder {
    /// The keys, made once; `dictionary(_:)` asks for the value of each by its index here.
    private let keys: [NSObject]
    /// The keys and values of the row being built, kept to reuse their storage from row to row.
    private var rowKeys: [NSObject] = []
    private var rowObjects: [AnyObject] = []

    /// A builder for dictionaries with these keys, in this order.
    init(keys names: [String]) {
        keys = names.map { NSString(string: $0) }
        rowKeys.reserveCapacity(names.count)
        rowObjects.reserveCapacity(names.count)
    }

    /// The dictionary of one row: `value(index)` gives the value of the key at `index` (in the order of
    /// `init(keys:)`), or nil to leave the key out.
    mutating func dictionary(_ value: (Int) -> Any?) -> NSDictionary {
        rowKeys.removeAll(keepingCapacity: true)
        rowObjects.removeAll(keepingCapacity: true)
        for index in keys.indices {
            guard let present = value(index) else { continue }
            rowKeys.append(keys[index])
            rowObjects.append(Self.objectForm(present))
        }
        return rowObjects.withUnsafeBufferPointer { objects in
            rowKeys.withUnsafeBufferPointer { keys in
                NSDictionary(objects: objects.baseAddress, forKeys: keys.baseAddress, count: keys.count)
            }
        }
    }

    /// The object an `NSDictionary` holds for `value`, as `NSDictionary(dictionary:)` stores it: a Foundation
    /// object as it is, a value that bridges (`String`, `Int64`, `Date`, a Swift dictionary) as its bridged
    /// object, any other value in Foundation's box, which gives the value back when read.
    static func objectForm(_ value: Any) -> AnyObject {
        if let object = value as? NSObject { return object }
        return value as AnyObject
    }
}

/// How a stored value of one property becomes the value a dictionary result gives, worked out once per fetch.
enum DictionaryValueForm {
    /// A to-one relationship: its destination's `NSManagedObjectID`.
    case toOne
    /// A transformable attribute: its archived value unarchived.
    case transformable(NSAttributeDescription)
    /// Any other attribute: numbers as `NSNumber`, decimals as `NSDecimalNumber`, other values as they are.
    case attribute(NSAttributeType)
    /// A property whose values dictionary results do not give (none reaches a plain dictionary fetch).
    case omitted

    /// The form of `property`'s values.
    init(_ property: NSPropertyDescription) {
        if let relationship = property as? NSRelationshipDescription {
            self = relationship.isToMany ? .omitted : .toOne
        } else if let attribute = property as? NSAttributeDescription {
            self = attribute.attributeType == .transformableAttributeType ? .transformable(attribute) : .attribute(attribute.attributeType)
        } else {
            self = .omitted
        }
    }

    /// The value a dictionary result gives for `value`, stored in `store`; nil for a to-one the store has no
    /// ID for.
    func publicValue(_ value: Any, in store: NSPersistentStore) -> Any? {
        switch self {
        case .attribute(let type): return AttributeValueCoercion.publicForm(value, type)
        case .toOne: return (value as? ObjectKey).flatMap { store.objectID(for: $0) }
        case .transformable(let attribute):
            guard let data = value as? Data else { return value }
            return TransformableStorage.value(from: data, attribute: attribute)
        case .omitted: return nil
        }
    }
}

/// Converts between slot values and the Swift types of `@Managed` properties.
@usableFromInline
enum ManagedValueConversion {
    @usableFromInline
    static func read<Value>(_ object: NSManagedObject, slot: Int?, as type: Value.Type) -> Value {
        guard let slot else { return emptyValue(Value.self) }
        object.fireFaultIfNeeded()
        let kind = object.layout.slotKinds[slot]
        let raw: Any?
        switch kind {
        case .toMany:
            let objects = object.toManyObjects(slot: slot)
            if let collection = Value.self as? ManagedRelationshipCollection.Type,
               let value = collection.init(managedObjects: objects) as? Value {
                return value
            }
            let ordered = (object.layout.allProperties[slot] as? NSRelationshipDescription)?.isOrdered ?? false
            // `NSSet?` (what Xcode declares for a to-many) gets an `NSSet`; other types the Swift set.
            if !ordered, let set = NSSet(array: objects) as? Value { return set }
            raw = ordered ? NSOrderedSet(array: objects) : Set(objects)
        case .toOne:
            raw = object.toOneObject(slot: slot)
        case .attribute, .other:
            raw = object.slots[slot]
        }
        guard let raw else { return emptyValue(Value.self) }
        if let value = raw as? Value { return value }
        if let scalar = Value.self as? ManagedScalar.Type, let value = scalar.init(managedStorage: raw) as? Value { return value }
        if case .attribute(let attributeType) = kind, let value = NSManagedObject.publicForm(raw, attributeType) as? Value {
            return value
        }
        return emptyValue(Value.self)
    }

    @usableFromInline
    static func write<Value>(_ value: Value, to object: NSManagedObject, slot: Int?) {
        guard let slot else { return }
        let any: Any = value
        if case .attribute(let type) = object.layout.slotKinds[slot], AttributeValueCoercion.isStorageValue(any, for: type),
           type != .transformableAttributeType {
            object.setValue(any, slot: slot)  // already the stored type: no optional to unwrap
        } else {
            object.setValue(flatten(value), slot: slot)
        }
    }

    /// The value of an optional, or the value itself; nil for an empty optional.
    static func flatten(_ value: Any) -> Any? {
        if let optional = value as? AnyOptional { return optional.wrappedAny.flatMap(flatten) }
        return value
    }

    /// nil for optionals, zero, false or empty for the types that have one.
    static func emptyValue<Value>(_ type: Value.Type) -> Value {
        if let optional = Value.self as? AnyOptional.Type, let none = optional.noneValue as? Value { return none }
        if let empty = Value.self as? ManagedEmptyValue.Type, let value = empty.managedEmptyValue as? Value { return value }
        preconditionFailure("A @Managed property of type \(Value.self) is nil; declare it optional.")
    }

    /// The managed object class a property type names: `Person?`, `Set<Person>` or `[Person]`.
    static func destinationClass(of type: Any.Type) -> NSManagedObject.Type? {
        if let objectClass = type as? NSManagedObject.Type { return objectClass }
        if let optional = type as? AnyOptional.Type { return destinationClass(of: optional.wrappedType) }
        if let collection = type as? ManagedRelationshipCollection.Type { return collection.elementClass }
        return nil
    }
}

/// Optional, seen without its generic parameter.
protocol AnyOptional {
    var wrappedAny: Any? { get }
    static var noneValue: Any { get }
    static var wrappedType: Any.Type { get }
}

extension Optional: AnyOptional {
    var wrappedAny: Any? { self.map { $0 as Any } }
    static var noneValue: Any { Wrapped?.none as Any }
    static var wrappedType: Any.Type { Wrapped.self }
}

/// A collection type a to-many `@Managed` property may have.
protocol ManagedRelationshipCollection {
    init?(managedObjects: [NSManagedObject])
    static var elementClass: NSManagedObject.Type? { get }
}

extension Set: ManagedRelationshipCollection where Element: NSManagedObject {
    init?(managedObjects: [NSManagedObject]) { self.init(managedObjects.compactMap { $0 as? Element }) }
    static var elementClass: NSManagedObject.Type? { Element.self }
}

extension Array: ManagedRelationshipCollection where Element: NSManagedObject {
    init?(managedObjects: [NSManagedObject]) { self.init(managedObjects.compactMap { $0 as? Element }) }
    static var elementClass: NSManagedObject.Type? { Element.self }
}

/// A number or Boolean type read from any stored number.
protocol ManagedScalar {
    init?(managedStorage: Any)
}

extension Int: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.integer(managedStorage), let x = Int(exactly: v) else { return nil }; self = x } }
extension Int16: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.integer(managedStorage), let x = Int16(exactly: v) else { return nil }; self = x } }
extension Int32: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.integer(managedStorage), let x = Int32(exactly: v) else { return nil }; self = x } }
extension Int64: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.integer(managedStorage) else { return nil }; self = v } }
extension Double: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.double(managedStorage) else { return nil }; self = v } }
extension Float: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.double(managedStorage) else { return nil }; self = Float(v) } }
extension Bool: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.boolean(managedStorage) else { return nil }; self = v } }
extension Decimal: ManagedScalar { init?(managedStorage: Any) { guard let v = AttributeValueCoercion.decimal(managedStorage) else { return nil }; self = v } }
extension Optional: ManagedScalar where Wrapped: ManagedScalar {
    init?(managedStorage: Any) { guard let v = Wrapped(managedStorage: managedStorage) else { return nil }; self = .some(v) }
}

/// A type with an empty value for a non-optional property whose value is nil.
protocol ManagedEmptyValue { static var managedEmptyValue: Any { get } }

extension Int: ManagedEmptyValue { static var managedEmptyValue: Any { Int(0) } }
extension Int16: ManagedEmptyValue { static var managedEmptyValue: Any { Int16(0) } }
extension Int32: ManagedEmptyValue { static var managedEmptyValue: Any { Int32(0) } }
extension Int64: ManagedEmptyValue { static var managedEmptyValue: Any { Int64(0) } }
extension Double: ManagedEmptyValue { static var managedEmptyValue: Any { Double(0) } }
extension Float: ManagedEmptyValue { static var managedEmptyValue: Any { Float(0) } }
extension Bool: ManagedEmptyValue { static var managedEmptyValue: Any { false } }
extension Decimal: ManagedEmptyValue { static var managedEmptyValue: Any { Decimal(0) } }
extension String: ManagedEmptyValue { static var managedEmptyValue: Any { "" } }
extension Data: ManagedEmptyValue { static var managedEmptyValue: Any { Data() } }
extension Date: ManagedEmptyValue { static var managedEmptyValue: Any { Date(timeIntervalSinceReferenceDate: 0) } }
extension URL: ManagedEmptyValue { static var managedEmptyValue: Any { URL(string: "about:blank") ?? URL(fileURLWithPath: "/") } }
extension UUID: ManagedEmptyValue { static var managedEmptyValue: Any { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) } }
extension Set: ManagedEmptyValue { static var managedEmptyValue: Any { Set<Element>() } }
extension Array: ManagedEmptyValue { static var managedEmptyValue: Any { [Element]() } }
extension NSOrderedSet: ManagedEmptyValue { static var managedEmptyValue: Any { NSOrderedSet() } }
extension NSSet: ManagedEmptyValue { static var managedEmptyValue: Any { NSSet() } }

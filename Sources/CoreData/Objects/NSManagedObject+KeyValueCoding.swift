/// The key-value coding conveniences that Apple's `NSObject` gives managed objects, which Foundation on Linux
/// does not: key paths, several keys at once, and relationship fault state.
extension NSManagedObject {
    /// The value at a dotted key path (`author.name`): each key is read with `value(forKey:)`; a nil on the way
    /// gives nil, and a to-many on the way gives the values of each destination, as a set (an array for an
    /// ordered relationship). A collection operator after a to-many (`items.@count`, `items.@sum.price`,
    /// `items.@distinctUnionOfObjects.name`) works on its destinations as key-value coding's does
    /// (`KeyValueCollectionOperator`), the rest of the path read from each.
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: Any? = self
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false)
        for (index, key) in keys.enumerated() {
            if key.hasPrefix("@"), let (elements, ordered) = KeyValueCollectionOperator.collection(current) {
                let rest = keys.dropFirst(index + 1).joined(separator: ".")
                return KeyValueCollectionOperator.apply(key.dropFirst(), to: elements, ordered: ordered,
                                                        rightKeyPath: rest.isEmpty ? nil : rest)
            }
            let key = String(key)
            switch current {
            case let object as NSManagedObject:
                current = object.value(forKey: key)
            case let set as Set<NSManagedObject>:
                current = NSSet(array: set.compactMap { $0.value(forKey: key) })
            case let ordered as NSOrderedSet:
                current = ordered.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: key) }
            case let composite as [String: Any]:
                current = composite[key]  // an element of a composite attribute's value
            default:
                return nil
            }
        }
        return current
    }

    /// Sets the value at a dotted key path: the last key is set on the object the rest of the path leads to;
    /// nothing happens when that is not a managed object.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        var keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if keys.count > 1, let composite = layout.attributesByName[keys[0]] as? NSCompositeAttributeDescription {
            setElement(value, at: keys.dropFirst(), of: composite)
            return
        }
        guard let last = keys.popLast() else { return }
        let owner = keys.isEmpty ? self : self.value(forKeyPath: keys.joined(separator: "."))
        (owner as? NSManagedObject)?.setValue(value, forKey: last)
    }

    /// Sets one element of a composite attribute's value (`location.latitude`), keeping the others: the
    /// composite is set to its value with that element changed (converted when it can be, as
    /// `setValue(_:forKey:)` converts). A path that names no element does nothing.
    private func setElement(_ value: Any?, at path: ArraySlice<String>, of composite: NSCompositeAttributeDescription) {
        guard CompositeAttributeValue.element(at: path, in: composite) != nil else { return }
        var whole = self.value(forKey: composite.name).flatMap(CompositeAttributeValue.entries(of:)) ?? [:]
        func replace(_ dictionary: inout [String: Any], _ path: ArraySlice<String>) {
            guard let first = path.first else { return }
            let rest = path.dropFirst()
            if rest.isEmpty {
                dictionary[first] = value is NSNull ? nil : value
            } else {
                var nested = dictionary[first].flatMap(CompositeAttributeValue.entries(of:)) ?? [:]
                replace(&nested, rest)
                dictionary[first] = nested.isEmpty ? nil : nested
            }
        }
        replace(&whole, path)
        setValue(whole.isEmpty ? nil : whole, forKey: composite.name)
    }

    /// The values of `keys`, with `NSNull` for nil, as key-value coding gives them.
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        var values: [String: Any] = [:]
        for key in keys { values[key] = value(forKey: key) ?? NSNull() }
        return values
    }

    /// Sets several values; `NSNull` sets nil. Keys that name no property are ignored, as `setValue(_:forKey:)`
    /// ignores them.
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues { setValue(value is NSNull ? nil : value, forKey: key) }
    }

    /// Whether the relationship `key` has not been loaded: the object is a fault, a to-many's destinations were
    /// never read, or a to-one's destination is known only by its ID or is itself a fault.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let slot = layout.slotByName[key], layout.allProperties[slot] is NSRelationshipDescription else { return false }
        if faulted { return true }
        switch slots[slot] {
        case is ToManyStorage: return false
        case let object as NSManagedObject: return object.faulted
        case is ObjectKey: return true
        default: return layout.slotKinds[slot] == .toMany
        }
    }

    /// 0 when the object is not changing state, 1 while it is being filled from a fault (during
    /// `awakeFromFetch`) or turned into one (during `willTurnIntoFault` and `didTurnIntoFault`), as Apple
    /// documents: "0 if the object is fully initialized as a managed object and not transitioning to or from
    /// another state". A fault at rest reports 0; `isFault` tells faults apart.
    public var faultingState: Int { changesFaultState ? 1 : 0 }
}

extension NSEntityDescription {
    /// The direct subentities by name.
    public var subentitiesByName: [String: NSEntityDescription] {
        var byName: [String: NSEntityDescription] = [:]
        for entity in subentities { if let name = entity.name { byName[name] = entity } }
        return byName
    }
}

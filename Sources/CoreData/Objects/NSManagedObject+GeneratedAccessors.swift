/// ➕ What generated `@NSManaged` accessors call (`coredata accessors`, run by the build plugin; see
/// Docs/Decisions.md, "@NSManaged on Linux"). They read and write as `@Managed` does: faults load, inverses stay
/// in step, changes are recorded, and values convert to the declared type (`NSNumber`, `NSDecimalNumber`,
/// `NSSet`, `NSOrderedSet`, Swift numbers, …).
extension NSManagedObject {
    /// The value of the property `key` as the accessor's declared type: nil for an optional type when the value
    /// is nil, zero, false or empty for a number, Boolean, string or collection type; a to-many relationship as
    /// `NSSet` (`NSOrderedSet` when ordered), `Set<T>` or `[T]`.
    public func managedAccessorValue<Value>(forKey key: String) -> Value {
        checkQueue("@NSManaged \(key)")
        return ManagedValueConversion.read(self, slot: accessorSlot(key), as: Value.self)
    }

    /// Sets the property `key` to `value`, converted to the property's type. A primitive accessor
    /// (`primitivePublishDate` for `publishDate`, see `accessorSlot(_:)`) sets it as `setPrimitiveValue(_:forKey:)`
    /// does: without keeping a relationship's inverse in step.
    public func setManagedAccessorValue<Value>(_ value: Value, forKey key: String) {
        checkQueue("@NSManaged \(key)")
        let slot = accessorSlot(key)
        if layout.slotByName[key] == nil, let property = Self.propertyOfPrimitiveAccessor(key) {
            setPrimitiveValue(ManagedValueConversion.flatten(value), forKey: property)
        } else {
            ManagedValueConversion.write(value, to: self, slot: slot)
        }
    }

    /// The to-many relationship that an Xcode-generated method such as `addToBooks(_:)` names by its capitalized
    /// name (`"Books"`): the relationship named with the first letter in lower case, or as given, or the only one
    /// whose name matches ignoring case.
    public func toManyAccessor(named capitalized: String) -> ManagedToManyAccessor {
        checkQueue("@NSManaged relationship method of \(capitalized)")
        let relationships = entity.relationshipsByName
        let lowered = capitalized.prefix(1).lowercased() + capitalized.dropFirst()
        let matches = relationships.keys.filter { $0.caseInsensitiveCompare(capitalized) == .orderedSame }
        guard let name = [lowered, capitalized].first(where: { relationships[$0] != nil }) ?? (matches.count == 1 ? matches.first : nil),
              relationships[name]?.isToMany == true else {
            preconditionFailure("@NSManaged relationship method of \(type(of: self)): entity \(entity.name ?? "?") has no to-many relationship named \(lowered)")
        }
        return ManagedToManyAccessor(target: ToManyViewTarget(owner: self, key: name))
    }

    /// The slot of `key`: the property of that name, or, for Apple's primitive accessors (`@NSManaged var
    /// primitivePublishDate: Date?`, which Core Data provides for every modeled property), the property they
    /// name (`publishDate`). A key the entity does not have stops the program, as Apple's accessors raise for it.
    private func accessorSlot(_ key: String) -> Int {
        if let slot = layout.slotByName[key] { return slot }
        if let property = Self.propertyOfPrimitiveAccessor(key), let slot = layout.slotByName[property] { return slot }
        preconditionFailure("@NSManaged \(type(of: self)).\(key): entity \(entity.name ?? "?") has no property named \(key)")
    }

    /// The property a primitive accessor's name names: `primitivePublishDate` → `publishDate`; nil for a name
    /// that is not `primitive` followed by a capitalized name.
    private static func propertyOfPrimitiveAccessor(_ key: String) -> String? {
        guard key.hasPrefix("primitive") else { return nil }
        let rest = key.dropFirst("primitive".count)
        guard let first = rest.first, first.isUppercase else { return nil }
        return first.lowercased() + rest.dropFirst()
    }
}

/// ➕ A to-many relationship as Xcode's generated relationship methods change it (`addTo…`, `removeFrom…`,
/// `insertInto…`, `replace…`). Each argument may be one managed object, or several as `NSSet`, `NSOrderedSet`,
/// `Set` or `Array`; an index an `Int`, several an `IndexSet` or `NSIndexSet`. Inverses are kept in step and
/// changes recorded; indexes out of range change nothing (Apple's raise).
public struct ManagedToManyAccessor {
    let target: ToManyViewTarget

    /// Adds one object, or every object of a collection (at the end, for an ordered relationship).
    public func add(_ value: Any) {
        for object in Self.objects(in: value) { target.add(object) }
    }

    /// Removes one object, or every object of a collection.
    public func remove(_ value: Any) {
        for object in Self.objects(in: value) { target.remove(object) }
    }

    /// Inserts one object at an index, or objects at the indexes of an index set (each index counted in the
    /// relationship as it is after the earlier insertions, as `insertObjects(_:at:)` does).
    public func insert(_ value: Any, at index: Any) {
        let objects = Self.objects(in: value)
        let indexes = Self.indexes(in: index)
        guard objects.count == indexes.count else { return }
        for (object, position) in zip(objects, indexes) where position <= target.objects.count {
            target.add(object, at: position)
        }
    }

    /// Removes the object at an index, or the objects at the indexes of an index set.
    public func remove(at index: Any) {
        let current = target.objects
        for position in Self.indexes(in: index) where current.indices.contains(position) {
            target.remove(current[position])
        }
    }

    /// Replaces the object at an index, or the objects at the indexes of an index set, with the given ones.
    public func replace(at index: Any, with value: Any) {
        let objects = Self.objects(in: value)
        let indexes = Self.indexes(in: index)
        guard objects.count == indexes.count else { return }
        for (position, object) in zip(indexes, objects) {
            let current = target.objects
            guard current.indices.contains(position) else { continue }
            target.remove(current[position])
            target.add(object, at: position)
        }
    }

    private static func objects(in value: Any) -> [Any] {
        switch value {
        case let object as NSManagedObject: return [object]
        case let set as NSOrderedSet: return set.array
        case let set as NSSet: return set.allObjects
        case let array as [Any]: return array
        case let set as Set<NSManagedObject>: return Array(set)
        default: return [value]
        }
    }

    private static func indexes(in value: Any) -> [Int] {
        switch value {
        case let index as Int: return [index]
        case let set as IndexSet: return Array(set)
        case let set as NSIndexSet: return Array(set as IndexSet)
        default: return []
        }
    }
}

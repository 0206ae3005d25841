/// Live views of one to-many relationship of one object, as Apple's `mutableSetValue(forKey:)` and
/// `mutableOrderedSetValue(forKey:)` return them: reading shows the current destinations, and adding or removing
/// changes the relationship (inverses and change tracking included). A key that names no to-many relationship
/// gives an empty view whose changes do nothing.
/// The object, relationship and slot a relationship view works on; empty for a key that names no to-many.
struct ToManyViewTarget {
    let owner: NSManagedObject?
    let relationship: NSRelationshipDescription?
    let slot: Int

    static let none = ToManyViewTarget(owner: nil, relationship: nil, slot: -1)

    init(owner: NSManagedObject?, relationship: NSRelationshipDescription?, slot: Int) {
        self.owner = owner
        self.relationship = relationship
        self.slot = slot
    }

    init(owner: NSManagedObject, key: String) {
        let slot = owner.layout.slotByName[key]
        let relationship = slot.flatMap { owner.layout.allProperties[$0] as? NSRelationshipDescription }
        self.init(owner: relationship?.isToMany == true ? owner : nil, relationship: relationship, slot: slot ?? -1)
    }

    /// The current destinations (loaded if needed).
    var objects: [NSManagedObject] {
        guard let owner else { return [] }
        owner.fireFaultIfNeeded()
        return owner.toManyObjects(slot: slot)
    }

    /// Adds `object` (at `index`, for ordered views) when it is a destination the relationship accepts.
    func add(_ object: Any, at index: Int? = nil) {
        guard let owner, let relationship, let target = object as? NSManagedObject, owner.fits([target], relationship) else { return }
        owner.fireFaultIfNeeded()
        owner.relate(relationship, slot: slot, to: target, at: index)
    }

    /// Removes `object` from the relationship.
    func remove(_ object: Any) {
        guard let owner, let relationship, let target = object as? NSManagedObject else { return }
        owner.fireFaultIfNeeded()
        owner.unrelate(relationship, slot: slot, from: target)
    }
}

final class ManagedToManySet: NSMutableSet {
    private let target: ToManyViewTarget

    init(owner: NSManagedObject, key: String) {
        target = ToManyViewTarget(owner: owner, key: key)
        super.init(capacity: 0)
    }

    required init(capacity numItems: Int) {
        target = .none
        super.init(capacity: numItems)
    }

    required convenience init(arrayLiteral elements: Any...) { self.init(capacity: 0) }
    required init?(coder: NSCoder) { nil }

    override var count: Int { target.objects.count }
    override func member(_ object: Any) -> Any? {
        guard let candidate = object as? NSManagedObject else { return nil }
        return target.objects.contains { $0 === candidate } ? candidate : nil
    }
    override func objectEnumerator() -> NSEnumerator { NSArray(array: target.objects).objectEnumerator() }
    override func add(_ object: Any) { target.add(object) }
    override func remove(_ object: Any) { target.remove(object) }
}

/// The ordered form of `ManagedToManySet`, for ordered relationships.
final class ManagedToManyOrderedSet: NSMutableOrderedSet {
    private let target: ToManyViewTarget

    init(owner: NSManagedObject, key: String) {
        target = ToManyViewTarget(owner: owner, key: key)
        super.init(capacity: 0)
    }

    override init(capacity numItems: Int) {
        target = .none
        super.init(capacity: numItems)
    }

    required convenience init(arrayLiteral elements: Any...) { self.init(capacity: 0) }
    required init?(coder: NSCoder) { nil }

    override var count: Int { target.objects.count }
    override func object(at idx: Int) -> Any { target.objects[idx] }
    override func index(of object: Any) -> Int {
        guard let candidate = object as? NSManagedObject else { return NSNotFound }
        return target.objects.firstIndex { $0 === candidate } ?? NSNotFound
    }
    override func add(_ object: Any) { target.add(object) }
    override func insert(_ object: Any, at idx: Int) {
        guard idx >= 0, idx <= target.objects.count else { return }
        target.add(object, at: idx)
    }
    override func remove(_ object: Any) { target.remove(object) }
    override func removeObject(at idx: Int) {
        let current = target.objects
        guard current.indices.contains(idx) else { return }
        target.remove(current[idx])
    }
    override func replaceObject(at idx: Int, with object: Any) {
        guard target.objects.indices.contains(idx) else { return }
        removeObject(at: idx)
        insert(object, at: idx)
    }
}

extension NSManagedObject {
    /// A live, mutable view of a to-many relationship (Apple's `mutableSetValue(forKey:)`).
    public func mutableSetValue(forKey key: String) -> NSMutableSet { ManagedToManySet(owner: self, key: key) }

    /// A live, mutable view of an ordered to-many relationship (Apple's `mutableOrderedSetValue(forKey:)`).
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet { ManagedToManyOrderedSet(owner: self, key: key) }
}

/// Live views of one to-many relationship of one object, as Apple's `mutableSetValue(forKey:)` and
/// `mutableOrderedSetValue(forKey:)` return them: reading shows the current destinations, and adding or removing
/// changes the relationship (inverses and change tracking included). A key that names no to-many relationship
/// gives an empty view whose changes do nothing.
final class ManagedToManySet: NSMutableSet {
    private let owner: NSManagedObject?
    private let relationship: NSRelationshipDescription?
    private let slot: Int

    init(owner: NSManagedObject, key: String) {
        let slot = owner.layout.slotByName[key]
        let relationship = slot.flatMap { owner.layout.allProperties[$0] as? NSRelationshipDescription }
        self.owner = relationship?.isToMany == true ? owner : nil
        self.relationship = relationship
        self.slot = slot ?? -1
        super.init(capacity: 0)
    }

    required init(capacity numItems: Int) {
        owner = nil
        relationship = nil
        slot = -1
        super.init(capacity: numItems)
    }

    required convenience init(arrayLiteral elements: Any...) { self.init(capacity: 0) }
    required init?(coder: NSCoder) { nil }

    private var objects: [NSManagedObject] {
        guard let owner else { return [] }
        owner.fireFaultIfNeeded()
        return owner.toManyObjects(slot: slot)
    }

    override var count: Int { objects.count }
    override func member(_ object: Any) -> Any? {
        guard let target = object as? NSManagedObject else { return nil }
        return objects.contains { $0 === target } ? target : nil
    }
    override func objectEnumerator() -> NSEnumerator { NSArray(array: objects).objectEnumerator() }

    override func add(_ object: Any) {
        guard let owner, let relationship, let target = object as? NSManagedObject, owner.fits([target], relationship) else { return }
        owner.fireFaultIfNeeded()
        owner.relate(relationship, slot: slot, to: target)
    }

    override func remove(_ object: Any) {
        guard let owner, let relationship, let target = object as? NSManagedObject else { return }
        owner.fireFaultIfNeeded()
        owner.unrelate(relationship, slot: slot, from: target)
    }
}

/// The ordered form of `ManagedToManySet`, for ordered relationships.
final class ManagedToManyOrderedSet: NSMutableOrderedSet {
    private let owner: NSManagedObject?
    private let relationship: NSRelationshipDescription?
    private let slot: Int

    init(owner: NSManagedObject, key: String) {
        let slot = owner.layout.slotByName[key]
        let relationship = slot.flatMap { owner.layout.allProperties[$0] as? NSRelationshipDescription }
        self.owner = relationship?.isToMany == true ? owner : nil
        self.relationship = relationship
        self.slot = slot ?? -1
        super.init(capacity: 0)
    }

    override init(capacity numItems: Int) {
        owner = nil
        relationship = nil
        slot = -1
        super.init(capacity: numItems)
    }

    required convenience init(arrayLiteral elements: Any...) { self.init(capacity: 0) }
    required init?(coder: NSCoder) { nil }

    private var objects: [NSManagedObject] {
        guard let owner else { return [] }
        owner.fireFaultIfNeeded()
        return owner.toManyObjects(slot: slot)
    }

    override var count: Int { objects.count }
    override func object(at idx: Int) -> Any { objects[idx] }
    override func index(of object: Any) -> Int {
        guard let target = object as? NSManagedObject else { return NSNotFound }
        return objects.firstIndex { $0 === target } ?? NSNotFound
    }

    override func insert(_ object: Any, at idx: Int) {
        guard let owner, let relationship, let target = object as? NSManagedObject, owner.fits([target], relationship),
              idx >= 0, idx <= objects.count else { return }
        owner.relate(relationship, slot: slot, to: target, at: idx)
    }

    override func add(_ object: Any) { insert(object, at: objects.count) }

    override func remove(_ object: Any) {
        let position = index(of: object)
        if position != NSNotFound { removeObject(at: position) }
    }

    override func removeObject(at idx: Int) {
        let current = objects
        guard let owner, let relationship, current.indices.contains(idx) else { return }
        owner.unrelate(relationship, slot: slot, from: current[idx])
    }

    override func replaceObject(at idx: Int, with object: Any) {
        guard objects.indices.contains(idx) else { return }
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

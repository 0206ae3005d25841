/// Live views of one to-many relationship of one object, as Apple's `mutableSetValue(forKey:)` and
/// `mutableOrderedSetValue(forKey:)` return them: reading shows the current destinations, and adding or removing
/// changes the relationship (inverses and change tracking included). A key that names no to-many relationship
/// gives an empty view whose changes do nothing.
/// The object, relationship and slot a relationship view works on; empty for a key that names no to-many.
struct ToManyViewTarget {
    let owner: NSManagedObject?
    let relationship: NSRelationshipDescription?
    let slot: Int

    static var none: ToManyViewTarget { ToManyViewTarget(owner: nil, relationship: nil, slot: -1) }

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

    // Foundation's own versions of these change the set's private storage, not the relationship.
    override func addObjects(from array: [Any]) { for object in array { target.add(object) } }
    override func union(_ otherSet: Set<AnyHashable>) { for object in otherSet { target.add(object) } }
    override func minus(_ otherSet: Set<AnyHashable>) { for object in otherSet { target.remove(object) } }
    override func intersect(_ otherSet: Set<AnyHashable>) {
        for object in target.objects where !otherSet.contains(object) { target.remove(object) }
    }
    override func setSet(_ otherSet: Set<AnyHashable>) {
        intersect(otherSet)
        union(otherSet)
    }
    override func removeAllObjects() { for object in target.objects { target.remove(object) } }
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

    // Foundation's own versions of these change the set's private storage, not the relationship; each is
    // written with the primitives above.
    override func addObjects(from array: [Any]) { for object in array { target.add(object) } }
    override func insert(_ objects: [Any], at indexes: IndexSet) {
        for (object, index) in zip(objects, indexes) { insert(object, at: index) }
    }
    override func removeObjects(at indexes: IndexSet) {
        for index in indexes.reversed() { removeObject(at: index) }
    }
    override func removeObjects(in range: NSRange) {
        guard let indexes = Range(range) else { return }
        removeObjects(at: IndexSet(integersIn: indexes))
    }
    override func removeObjects(in array: [Any]) { for object in array { target.remove(object) } }
    override func replaceObjects(at indexes: IndexSet, with objects: [Any]) {
        for (index, object) in zip(indexes, objects) { replaceObject(at: index, with: object) }
    }
    override func setObject(_ obj: Any, at idx: Int) {
        idx == target.objects.count ? insert(obj, at: idx) : replaceObject(at: idx, with: obj)
    }
    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) {
        let current = target.objects
        guard current.indices.contains(idx1), current.indices.contains(idx2), idx1 != idx2 else { return }
        let (low, high) = (Swift.min(idx1, idx2), Swift.max(idx1, idx2))
        let (first, second) = (current[low], current[high])
        removeObject(at: high)
        removeObject(at: low)
        insert(second, at: low)
        insert(first, at: high)
    }
    override func moveObjects(at indexes: IndexSet, to idx: Int) {
        let current = target.objects
        let moving = indexes.filter { current.indices.contains($0) }.map { current[$0] }
        removeObjects(at: IndexSet(indexes.filter { current.indices.contains($0) }))
        insert(moving, at: IndexSet(integersIn: idx..<(idx + moving.count)))
    }
    override func removeAllObjects() { for object in target.objects { target.remove(object) } }
    override func union(_ other: NSOrderedSet) { addObjects(from: other.array) }
    override func minus(_ other: NSOrderedSet) { removeObjects(in: other.array) }
    override func intersect(_ other: NSOrderedSet) {
        for object in target.objects where !other.contains(object) { target.remove(object) }
    }
    override func unionSet(_ other: Set<AnyHashable>) { addObjects(from: Array(other)) }
    override func minusSet(_ other: Set<AnyHashable>) { removeObjects(in: Array(other)) }
    override func intersectSet(_ other: Set<AnyHashable>) {
        for object in target.objects where !other.contains(object) { target.remove(object) }
    }
}

extension NSManagedObject {
    /// A live, mutable view of a to-many relationship (Apple's `mutableSetValue(forKey:)`).
    public func mutableSetValue(forKey key: String) -> NSMutableSet { ManagedToManySet(owner: self, key: key) }

    /// A live, mutable view of an ordered to-many relationship (Apple's `mutableOrderedSetValue(forKey:)`).
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet { ManagedToManyOrderedSet(owner: self, key: key) }
}

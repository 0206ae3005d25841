/// The objects a context has registered, found by the identity of their IDs, in about 12 bytes an object.
///
/// An open-addressing table with linear probing. Each position holds an object (8 bytes) and a one-byte tag
/// made from its identity's hash (0 marks an empty position). Keys are not stored: a look-up reads the identity
/// off an object (`NSManagedObject.assignedIdentity`) only where the tag matches, so a miss rarely touches an
/// object. At most three quarters of the positions are used; a removal shifts the entries after it back, so
/// there are no tombstones. A `[Identity: NSManagedObject]` dictionary takes about 67 bytes an object for a
/// million objects (a 24-byte key and the object in 2²¹ buckets); this table, sized for the objects a fetch
/// brings, about 12.
///
/// Guarantees: the table holds its objects strongly; an object is found by the identity it has now, so an
/// object whose ID changes while it is in the table must be removed first and inserted again
/// (`NSManagedObjectContext.reregister(_:as:)` does both). Used on its context's queue only, like the rest of the
/// context.
final class RegistrationTable {
    /// The tag of each position: 0 when empty, else 0x80 and seven bits of the hash of its object's identity.
    private var tags: UnsafeMutablePointer<UInt8>
    /// The object at each position, nil where the position is empty.
    private var objects: UnsafeMutablePointer<NSManagedObject?>
    /// The number of positions (any number from 8 up, not only powers of two).
    private var capacity: Int
    /// The number of objects in the table.
    private(set) var count = 0

    /// An empty table with room for a few objects.
    init() {
        capacity = Self.smallestCapacity
        (tags, objects) = Self.allocate(capacity)
    }

    deinit {
        Self.free(tags, objects, capacity)
    }

    /// Whether the table holds no object.
    var isEmpty: Bool { count == 0 }

    /// The object registered with `identity`, or nil.
    subscript(identity: NSManagedObjectID.Identity) -> NSManagedObject? {
        let hash = identity.tableHash
        let tag = Self.tag(of: hash)
        var position = home(of: hash)
        while tags[position] != 0 {
            if tags[position] == tag, let object = objects[position], object.assignedIdentity == identity { return object }
            position = next(position)
        }
        return nil
    }

    /// Registers `object` by its identity, in place of any object registered with the same identity. An
    /// object without an identity (a new object whose ID nobody asked for) is not registered.
    func insert(_ object: NSManagedObject) {
        guard let identity = object.assignedIdentity else { return }
        if (count + 1) * 4 > capacity * 3 { resize(to: capacity * 2) }
        let hash = identity.tableHash
        let tag = Self.tag(of: hash)
        var position = home(of: hash)
        while tags[position] != 0 {
            if tags[position] == tag, let other = objects[position], other.assignedIdentity == identity {
                objects[position] = object
                return
            }
            position = next(position)
        }
        tags[position] = tag
        objects[position] = object
        count += 1
    }

    /// Removes and returns the object registered with `identity`, if any.
    @discardableResult
    func remove(_ identity: NSManagedObjectID.Identity) -> NSManagedObject? {
        let hash = identity.tableHash
        let tag = Self.tag(of: hash)
        var position = home(of: hash)
        while tags[position] != 0 {
            if tags[position] == tag, let object = objects[position], object.assignedIdentity == identity {
                removeEntry(at: position)
                return object
            }
            position = next(position)
        }
        return nil
    }

    /// Makes room for `minimumCount` objects without growing again.
    func reserveCapacity(_ minimumCount: Int) {
        guard minimumCount * 4 > capacity * 3 else { return }
        resize(to: minimumCount + minimumCount / 3 + 1)
    }

    /// Removes every object and gives back the table's memory.
    func removeAll() {
        Self.free(tags, objects, capacity)
        capacity = Self.smallestCapacity
        (tags, objects) = Self.allocate(capacity)
        count = 0
    }

    /// Every registered object, in no particular order (a copy: the table may change while it is used).
    var allObjects: [NSManagedObject] {
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        for position in 0..<capacity { if let object = objects[position] { result.append(object) } }
        return result
    }

    /// Removes every object that only the table holds (`isKnownUniquelyReferenced`) and that `isReleasable`
    /// accepts, and returns them. A few leave one by one; when many leave, the rest are put back in one pass
    /// (shifting entries back once per removal would cost more), in fewer positions when the table is mostly
    /// empty, so its memory follows the objects alive.
    func removeUnreferenced(where isReleasable: (NSManagedObject) -> Bool) -> [NSManagedObject] {
        var positions: [Int] = []
        for position in 0..<capacity where tags[position] != 0 {
            if isKnownUniquelyReferenced(&objects[position]), let object = objects[position], isReleasable(object) {
                positions.append(position)
            }
        }
        var removed: [NSManagedObject] = []
        removed.reserveCapacity(positions.count)
        for position in positions {
            if let object = objects[position] { removed.append(object) }
        }
        if positions.count <= count / 16 {
            for object in removed {
                if let identity = object.assignedIdentity { remove(identity) }
            }
        } else {
            for position in positions {
                objects[position] = nil
                tags[position] = 0
            }
            count -= positions.count
            // Entries after a freed position may be out of probing's reach: every entry is placed again.
            resize(to: count * 8 < capacity ? count + count / 3 + 1 : capacity)
        }
        return removed
    }

    // MARK: Positions

    static let smallestCapacity = 8

    /// The position where probing for `hash` starts: the hash scaled to the capacity (its high bits decide).
    private func home(of hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash.multipliedFullWidth(by: UInt64(capacity)).high)
    }

    private func next(_ position: Int) -> Int {
        position + 1 == capacity ? 0 : position + 1
    }

    /// The tag of a hash: seven of its middle bits (the high bits choose the position), with the top bit set.
    private static func tag(of hash: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: hash >> 24) | 0x80
    }

    /// Empties `position` and shifts back the entries after it that probing would no longer reach.
    private func removeEntry(at position: Int) {
        objects[position] = nil
        tags[position] = 0
        count -= 1
        var hole = position
        var candidate = next(position)
        while tags[candidate] != 0 {
            // An entry whose probing starts at or before the hole (cyclically) moves into it.
            let start = objects[candidate]?.assignedIdentity.map { home(of: $0.tableHash) } ?? candidate
            if distance(from: start, to: candidate) >= distance(from: hole, to: candidate) {
                tags[hole] = tags[candidate]
                objects[hole] = objects[candidate].take()
                tags[candidate] = 0
                hole = candidate
            }
            candidate = next(candidate)
        }
    }

    /// How many steps probing takes from `start` to `end`, wrapping around.
    private func distance(from start: Int, to end: Int) -> Int {
        end >= start ? end - start : end + capacity - start
    }

    /// Moves every entry into a table of `newCapacity` positions.
    private func resize(to newCapacity: Int) {
        let (oldTags, oldObjects, oldCapacity) = (tags, objects, capacity)
        capacity = max(Self.smallestCapacity, newCapacity)
        (tags, objects) = Self.allocate(capacity)
        count = 0
        for position in 0..<oldCapacity {
            guard oldTags[position] != 0, let object = oldObjects[position].take(), let identity = object.assignedIdentity else { continue }
            let hash = identity.tableHash
            var target = home(of: hash)
            while tags[target] != 0 { target = next(target) }
            tags[target] = Self.tag(of: hash)
            objects[target] = object
            count += 1
        }
        Self.free(oldTags, oldObjects, oldCapacity)
    }

    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<NSManagedObject?>) {
        let tags = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        tags.initialize(repeating: 0, count: capacity)
        let objects = UnsafeMutablePointer<NSManagedObject?>.allocate(capacity: capacity)
        objects.initialize(repeating: nil, count: capacity)
        return (tags, objects)
    }

    private static func free(_ tags: UnsafeMutablePointer<UInt8>, _ objects: UnsafeMutablePointer<NSManagedObject?>, _ capacity: Int) {
        objects.deinitialize(count: capacity)
        objects.deallocate()
        tags.deallocate()
    }
}

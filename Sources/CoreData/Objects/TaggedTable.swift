/// What a `TaggedTable` holds: objects that carry the key they are found by, so the table need not store keys.
protocol TaggedTableElement: AnyObject {
    associatedtype TableKey
    /// The key the element is found by; nil for an element that cannot be in a table.
    var tableKey: TableKey? { get }
    /// The key's hash: its high bits choose the home position, seven middle bits make the tag.
    static func tableHash(of key: TableKey) -> UInt64
    /// Whether the element's key is `key`.
    func hasTableKey(_ key: TableKey) -> Bool
}

/// Objects found by a key they carry, in about 9 bytes an object: the storage of the contexts' registration
/// tables (`RegistrationTable`) and the row cache's tables of snapshots (`RowSnapshotTable`).
///
/// An open-addressing table with linear probing. Each position holds an element (8 bytes) and a one-byte tag made
/// from its key's hash (0 marks an empty position). Keys are not stored: a look-up reads the key off an element
/// (`TaggedTableElement.hasTableKey`) only where the tag matches, so a miss rarely touches an element. At most three
/// quarters of the positions are used; a removal shifts the entries after it back, so there are no tombstones.
///
/// Guarantees: the table holds its elements strongly, at most one per key, and a position is the table's one
/// reference to its element (so `isKnownUniquelyReferenced` on it is exact); an element is found by the key it has
/// now, so an element whose key changes while it is in the table must be removed first and inserted again. Not
/// thread-safe: each user says which queue or lock guards it.
final class TaggedTable<Element: TaggedTableElement> {
    /// The tag of each position: 0 when empty, else 0x80 and seven bits of the hash of its element's key.
    private var tags: UnsafeMutablePointer<UInt8>
    /// The element at each position, nil where the position is empty.
    private var elements: UnsafeMutablePointer<Element?>
    /// The number of positions (any number from 8 up, not only powers of two).
    private(set) var capacity: Int
    /// The number of elements in the table.
    private(set) var count = 0

    /// An empty table with room for a few elements.
    init() {
        capacity = Self.smallestCapacity
        (tags, elements) = Self.allocate(capacity)
    }

    deinit {
        Self.free(tags, elements, capacity)
    }

    /// Whether the table holds no element.
    var isEmpty: Bool { count == 0 }

    // MARK: Reading

    /// The position of the element with `key`, or nil.
    func position(of key: Element.TableKey) -> Int? {
        let hash = Element.tableHash(of: key)
        let tag = Self.tag(of: hash)
        var position = home(of: hash)
        while tags[position] != 0 {
            if tags[position] == tag, let element = elements[position], element.hasTableKey(key) { return position }
            position = next(position)
        }
        return nil
    }

    /// The element with `key`, or nil.
    subscript(key: Element.TableKey) -> Element? {
        position(of: key).flatMap { elements[$0] }
    }

    /// The element at a position `position(of:)` gave, the table unchanged since.
    func element(at position: Int) -> Element? { elements[position] }

    /// Whether only the table holds the element at `position`.
    func isOnlyHolder(at position: Int) -> Bool { isKnownUniquelyReferenced(&elements[position]) }

    /// Every element, in no particular order (a copy: the table may change while it is used).
    var allElements: [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        for position in 0..<capacity { if let element = elements[position] { result.append(element) } }
        return result
    }

    // MARK: Changing

    /// Puts `element` in the table under its key, in place of any element with the same key, which it returns. An
    /// element without a key is not put in the table. Only an element with a new key can make the table grow, so
    /// replacing the elements of a full table (a row read again) never moves the others.
    @discardableResult
    func insert(_ element: Element) -> Element? {
        guard let key = element.tableKey else { return nil }
        let hash = Element.tableHash(of: key)
        let tag = Self.tag(of: hash)
        var position = home(of: hash)
        while tags[position] != 0 {
            if tags[position] == tag, let other = elements[position], other.hasTableKey(key) {
                elements[position] = element
                return other
            }
            position = next(position)
        }
        if (count + 1) * 4 > capacity * 3 {
            resize(to: capacity * 2)
            position = home(of: hash)
            while tags[position] != 0 { position = next(position) }
        }
        tags[position] = tag
        elements[position] = element
        count += 1
        return nil
    }

    /// Removes and returns the element with `key`, if any.
    @discardableResult
    func remove(_ key: Element.TableKey) -> Element? {
        guard let position = position(of: key) else { return nil }
        return remove(at: position)
    }

    /// Removes and returns the element at `position`, and shifts back the entries after it that probing would no
    /// longer reach.
    @discardableResult
    func remove(at position: Int) -> Element? {
        let removed = elements[position].take()
        tags[position] = 0
        count -= 1
        var hole = position
        var candidate = next(position)
        while tags[candidate] != 0 {
            // An entry whose probing starts at or before the hole (cyclically) moves into it.
            let start = elements[candidate]?.tableKey.map { home(of: Element.tableHash(of: $0)) } ?? candidate
            if distance(from: start, to: candidate) >= distance(from: hole, to: candidate) {
                tags[hole] = tags[candidate]
                elements[hole] = elements[candidate].take()
                tags[candidate] = 0
                hole = candidate
            }
            candidate = next(candidate)
        }
        return removed
    }

    /// Makes room for `minimumCount` elements without growing again.
    func reserveCapacity(_ minimumCount: Int) {
        guard minimumCount * 4 > capacity * 3 else { return }
        resize(to: minimumCount + minimumCount / 3 + 1)
    }

    /// Removes every element, handing each to `body` as it leaves (in no particular order), and gives back the
    /// table's memory. Each element is let go right after `body` has seen it, while it is still in the CPU's
    /// cache (one pass over the elements, not one to look at them and another to release them).
    func removeAll(handingEachTo body: (Element) -> Void) {
        for position in 0..<capacity where tags[position] != 0 {
            if let element = elements[position] { body(element) }
            elements[position] = nil
        }
        removeAll()
    }

    /// Removes every element and gives back the table's memory.
    func removeAll() {
        Self.free(tags, elements, capacity)
        capacity = Self.smallestCapacity
        (tags, elements) = Self.allocate(capacity)
        count = 0
    }

    /// Removes every element that only the table holds (`isKnownUniquelyReferenced`) and that `isReleasable`
    /// accepts, and returns them. A few leave one by one; when many leave, the rest are put back in one pass
    /// (shifting entries back once per removal would cost more), in fewer positions when the table is mostly
    /// empty, so its memory follows the elements alive.
    @discardableResult
    func removeUnreferenced(where isReleasable: (Element) -> Bool = { _ in true }) -> [Element] {
        var positions: [Int] = []
        for position in 0..<capacity where tags[position] != 0 {
            if isKnownUniquelyReferenced(&elements[position]), let element = elements[position], isReleasable(element) {
                positions.append(position)
            }
        }
        var removed: [Element] = []
        removed.reserveCapacity(positions.count)
        for position in positions {
            if let element = elements[position] { removed.append(element) }
        }
        if positions.count <= count / 16 {
            for element in removed {
                if let key = element.tableKey { remove(key) }
            }
        } else {
            for position in positions {
                elements[position] = nil
                tags[position] = 0
            }
            count -= positions.count
            // Entries after a freed position may be out of probing's reach: every entry is placed again.
            resize(to: count * 8 < capacity ? count + count / 3 + 1 : capacity)
        }
        return removed
    }

    // MARK: Positions

    static var smallestCapacity: Int { 8 }

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

    /// How many steps probing takes from `start` to `end`, wrapping around.
    private func distance(from start: Int, to end: Int) -> Int {
        end >= start ? end - start : end + capacity - start
    }

    /// Moves every entry into a table of `newCapacity` positions.
    private func resize(to newCapacity: Int) {
        let (oldTags, oldElements, oldCapacity) = (tags, elements, capacity)
        capacity = max(Self.smallestCapacity, newCapacity)
        (tags, elements) = Self.allocate(capacity)
        count = 0
        for position in 0..<oldCapacity {
            guard oldTags[position] != 0, let element = oldElements[position].take(), let key = element.tableKey else { continue }
            let hash = Element.tableHash(of: key)
            var target = home(of: hash)
            while tags[target] != 0 { target = next(target) }
            tags[target] = Self.tag(of: hash)
            elements[target] = element
            count += 1
        }
        Self.free(oldTags, oldElements, oldCapacity)
    }

    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<Element?>) {
        let tags = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        tags.initialize(repeating: 0, count: capacity)
        let elements = UnsafeMutablePointer<Element?>.allocate(capacity: capacity)
        elements.initialize(repeating: nil, count: capacity)
        return (tags, elements)
    }

    private static func free(_ tags: UnsafeMutablePointer<UInt8>, _ elements: UnsafeMutablePointer<Element?>, _ capacity: Int) {
        elements.deinitialize(count: capacity)
        elements.deallocate()
        tags.deallocate()
    }
}

/// One store's snapshots in the row cache (`RowCache`), found by key, in about 9 bytes a snapshot.
///
/// An open-addressing table with linear probing, as the contexts' `RegistrationTable`: each position holds a
/// snapshot (8 bytes) and a one-byte tag made from its key's hash (0 marks an empty position). Keys are not
/// stored: a look-up reads the key off a snapshot only where the tag matches. The hash is one multiplication of
/// the key's two parts (Fibonacci hashing, as `NSManagedObjectID.Identity.tableHash`), where the `[Entry:
/// RowSnapshot]` dictionary it replaces ran SipHash over the store, entity number and primary key of every row
/// a fetch recorded and kept a 24-byte key beside each snapshot. At most three quarters of the positions are
/// used; a removal shifts the entries after it back, so there are no tombstones.
///
/// Guarantees: the table holds its snapshots strongly, at most one per key; `isKnownUniquelyReferenced` on a
/// position is exact (the position is the cache's one reference). Not thread-safe: the row cache uses it under
/// its lock only.
final class RowSnapshotTable {
    /// The tag of each position: 0 when empty, else 0x80 and seven bits of the hash of its snapshot's key.
    private var tags: UnsafeMutablePointer<UInt8>
    /// The snapshot at each position, nil where the position is empty.
    private var snapshots: UnsafeMutablePointer<RowSnapshot?>
    /// The number of positions (any number from 8 up).
    private var capacity: Int
    /// The number of snapshots in the table.
    private(set) var count = 0

    /// An empty table with room for a few snapshots.
    init() {
        capacity = Self.smallestCapacity
        (tags, snapshots) = Self.allocate(capacity)
    }

    deinit {
        Self.free(tags, snapshots, capacity)
    }

    // MARK: Reading

    /// The position of the snapshot of `key`, or nil.
    func position(of key: ObjectKey) -> Int? {
        let hash = Self.hash(of: key)
        let tag = Self.tag(of: hash)
        var position = home(of: hash)
        while tags[position] != 0 {
            if tags[position] == tag, let snapshot = snapshots[position], snapshot.hasKey(key) { return position }
            position = next(position)
        }
        return nil
    }

    /// The snapshot at a position `position(of:)` gave (the table unchanged since).
    func snapshot(at position: Int) -> RowSnapshot { snapshots[position]! }

    /// Whether only the table holds the snapshot at `position` (which holds one).
    func isOnlyHolder(at position: Int) -> Bool { isKnownUniquelyReferenced(&snapshots[position]) }

    /// Calls `body` with every snapshot, in no particular order.
    func forEach(_ body: (RowSnapshot) -> Void) {
        for position in 0..<capacity { if let snapshot = snapshots[position] { body(snapshot) } }
    }

    // MARK: Changing

    /// Makes `snapshot` the table's snapshot of its key and returns the one it replaces, if any.
    @discardableResult
    func updateValue(_ snapshot: RowSnapshot) -> RowSnapshot? {
        if (count + 1) * 4 > capacity * 3 { resize(to: capacity * 2) }
        let key = snapshot.key
        let hash = Self.hash(of: key)
        let tag = Self.tag(of: hash)
        var position = home(of: hash)
        while tags[position] != 0 {
            if tags[position] == tag, let other = snapshots[position], other.hasKey(key) {
                snapshots[position] = snapshot
                return other
            }
            position = next(position)
        }
        tags[position] = tag
        snapshots[position] = snapshot
        count += 1
        return nil
    }

    /// Removes and returns the snapshot of `key`, if any.
    @discardableResult
    func remove(_ key: ObjectKey) -> RowSnapshot? {
        guard let position = position(of: key) else { return nil }
        return remove(at: position)
    }

    /// Removes and returns the snapshot at `position` (which holds one).
    @discardableResult
    func remove(at position: Int) -> RowSnapshot? {
        let removed = snapshots[position].take()
        tags[position] = 0
        count -= 1
        var hole = position
        var candidate = next(position)
        while tags[candidate] != 0 {
            // An entry whose probing starts at or before the hole (cyclically) moves into it.
            let start = snapshots[candidate].map { home(of: Self.hash(of: $0.key)) } ?? candidate
            if distance(from: start, to: candidate) >= distance(from: hole, to: candidate) {
                tags[hole] = tags[candidate]
                snapshots[hole] = snapshots[candidate].take()
                tags[candidate] = 0
                hole = candidate
            }
            candidate = next(candidate)
        }
        return removed
    }

    /// Makes room for `minimumCount` snapshots without growing again.
    func reserveCapacity(_ minimumCount: Int) {
        guard minimumCount * 4 > capacity * 3 else { return }
        resize(to: minimumCount + minimumCount / 3 + 1)
    }

    /// Removes every snapshot that only the table holds. A few leave one by one; when many leave, the rest are put
    /// back in one pass, in fewer positions when the table is mostly empty, so its memory follows the snapshots
    /// objects use.
    func removeUnreferenced() {
        var positions: [Int] = []
        for position in 0..<capacity where tags[position] != 0 {
            if isKnownUniquelyReferenced(&snapshots[position]) { positions.append(position) }
        }
        guard !positions.isEmpty else { return }
        if positions.count <= count / 16 {
            // Removing one shifts later entries back, so each is found again by its key.
            let keys = positions.compactMap { snapshots[$0]?.key }
            for key in keys { remove(key) }
        } else {
            for position in positions {
                snapshots[position] = nil
                tags[position] = 0
            }
            count -= positions.count
            // Entries after a freed position may be out of probing's reach: every entry is placed again.
            resize(to: count * 8 < capacity ? count + count / 3 + 1 : capacity)
        }
    }

    // MARK: Positions

    static let smallestCapacity = 8

    /// The key's two parts combined, then multiplied by 2⁶⁴ divided by the golden ratio (Fibonacci hashing): the
    /// high bits spread consecutive primary keys evenly over the table.
    private static func hash(of key: ObjectKey) -> UInt64 {
        (UInt64(bitPattern: key.primaryKey) ^ (UInt64(UInt32(bitPattern: key.entityNumber)) << 44)) &* 0x9E37_79B9_7F4A_7C15
    }

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
        let (oldTags, oldSnapshots, oldCapacity) = (tags, snapshots, capacity)
        capacity = max(Self.smallestCapacity, newCapacity)
        (tags, snapshots) = Self.allocate(capacity)
        count = 0
        for position in 0..<oldCapacity {
            guard oldTags[position] != 0, let snapshot = oldSnapshots[position].take() else { continue }
            let hash = Self.hash(of: snapshot.key)
            var target = home(of: hash)
            while tags[target] != 0 { target = next(target) }
            tags[target] = Self.tag(of: hash)
            snapshots[target] = snapshot
            count += 1
        }
        Self.free(oldTags, oldSnapshots, oldCapacity)
    }

    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<RowSnapshot?>) {
        let tags = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        tags.initialize(repeating: 0, count: capacity)
        let snapshots = UnsafeMutablePointer<RowSnapshot?>.allocate(capacity: capacity)
        snapshots.initialize(repeating: nil, count: capacity)
        return (tags, snapshots)
    }

    private static func free(_ tags: UnsafeMutablePointer<UInt8>, _ snapshots: UnsafeMutablePointer<RowSnapshot?>, _ capacity: Int) {
        snapshots.deinitialize(count: capacity)
        snapshots.deallocate()
        tags.deallocate()
    }
}

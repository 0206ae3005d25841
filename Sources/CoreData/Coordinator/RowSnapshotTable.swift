/// One store's snapshots in the row cache (`RowCache`), found by key, in about 9 bytes a snapshot.
///
/// A `TaggedTable` of snapshots keyed by their `ObjectKey` (open addressing with linear probing, a tag byte and
/// the snapshot per position, the key read off the snapshot where the tag matches), hashed with one multiplication
/// of the key's two parts (Fibonacci hashing, as `NSManagedObjectID.Identity.tableHash`). It replaced a
/// `[Entry: RowSnapshot]` dictionary for all stores, which ran SipHash over the store, entity number and primary key
/// of every row a fetch recorded and kept a 24-byte key beside each snapshot.
///
/// Guarantees: at most one snapshot per key; a position is the cache's one reference to its snapshot, so
/// `isOnlyHolder(at:)` is exact. Used under the row cache's lock only.
typealias RowSnapshotTable = TaggedTable<RowSnapshot>

extension RowSnapshot: TaggedTableElement {
    var tableKey: ObjectKey? { key }

    /// The key's two parts combined, then multiplied by 2⁶⁴ divided by the golden ratio: the high bits spread
    /// consecutive primary keys evenly over the table.
    static func tableHash(of key: ObjectKey) -> UInt64 {
        (UInt64(bitPattern: key.primaryKey) ^ (UInt64(UInt32(bitPattern: key.entityNumber)) << 44)) &* 0x9E37_79B9_7F4A_7C15
    }

    func hasTableKey(_ key: ObjectKey) -> Bool { hasKey(key) }
}

/// The keys a fetch returned, in its order, packed: each key's primary key (8 bytes), and one entry for each
/// run of keys of one entity, where an `[ObjectKey]` takes 16 bytes a key.
///
/// A fetch keeps its keys this way, in chunks that it frees as it makes their objects, and a batch of a batched
/// fetch keeps its own (`FaultBatch`), which go once the batch is filled.
struct PackedObjectKeys: Sequence {
    /// The primary keys, in order.
    private var primaryKeys: [Int64] = []
    /// The entity number of each run of keys, and the position of its first key, in order.
    private var runs: [(start: Int, entityNumber: Int32)] = []

    /// The keys of `keys`, in the same order.
    init<Keys: Collection>(_ keys: Keys) where Keys.Element == ObjectKey {
        primaryKeys.reserveCapacity(keys.count)
        for key in keys { append(key) }
    }

    /// No keys.
    init() {}

    /// The number of keys.
    var count: Int { primaryKeys.count }

    /// How many keys a fetch packs in one chunk (`chunks(of:size:)`): 512 kB of primary keys.
    static let chunkSize = 65_536

    /// `keys` in order, packed in chunks of `size` keys (the last one may be shorter), so a caller can free each
    /// chunk once it is done with it.
    static func chunks(of keys: [ObjectKey], size: Int) -> [PackedObjectKeys] {
        let step = Swift.max(1, size)
        return stride(from: 0, to: keys.count, by: step).map { start in
            PackedObjectKeys(keys[start..<Swift.min(start + step, keys.count)])
        }
    }

    /// The next `count` keys of `iterator` (fewer when it ends first), which moves past them.
    init(_ count: Int, from iterator: inout Iterator) {
        primaryKeys.reserveCapacity(count)
        while primaryKeys.count < count, let key = iterator.next() { append(key) }
    }

    private mutating func append(_ key: ObjectKey) {
        if runs.last?.entityNumber != key.entityNumber { runs.append((primaryKeys.count, key.entityNumber)) }
        primaryKeys.append(key.primaryKey)
    }

    func makeIterator() -> Iterator { Iterator(keys: self) }

    /// Walks the keys in order, run by run.
    struct Iterator: IteratorProtocol {
        let keys: PackedObjectKeys
        private var position = 0
        private var run = -1

        init(keys: PackedObjectKeys) { self.keys = keys }

        mutating func next() -> ObjectKey? {
            guard position < keys.primaryKeys.count else { return nil }
            while run + 1 < keys.runs.count, keys.runs[run + 1].start <= position { run += 1 }
            defer { position += 1 }
            return ObjectKey(entityNumber: keys.runs[run].entityNumber, primaryKey: keys.primaryKeys[position])
        }
    }
}

/// The bucket order of a Mac OS X 10.6 (Snow Leopard) `CFDictionary` whose keys are property names: the order
/// in which the 2009 Core Data frameworks listed an entity's attributes, and apart its relationships, and so
/// the order of their columns within each type (`SQLColumnOrder.snowLeopardHash`).
///
/// The table is CoreFoundation's `CFBasicHash` of that release, as Apple's framework still emulates it
/// (`_PF_SnowLeopard_CFBasicHash…` beside `-[NSEntityDescription
/// _newSnowLeopardStyleDictionaryContainingPropertiesOfType:]`): open addressing with linear probing in a
/// table of a prime size, a key's first bucket being its `CFString` hash (`hash(_:)`) modulo the size. Made
/// for `count` keys, the table takes the size for that count when `count` is 5 or more; each insertion that
/// would exceed the capacity of the current size moves the keys, in bucket order, to the size for one more.
/// Keys are inserted in name order. A name's bucket does not depend on the machine: the hash is computed in
/// 64 bits, as on the 64-bit Macs whose stores it reproduces (the 2009 Recipes sample store,
/// SQLiteStore.md "Column order").
enum SnowLeopardPropertyTable {
    /// Bucket counts by size index (`__CFBasicHashTableSizes`, primes).
    private static let sizes: [Int] = [
        0, 3, 7, 13, 23, 41, 71, 127, 191, 251, 383, 631, 1087, 1723, 2803, 4523, 7351, 11959, 19447, 31231,
        50683, 81919, 132607, 214519, 346607, 561109, 907759, 1468927, 2376191, 3845119,
    ]
    /// Keys a table of each size holds before it grows (`__CFBasicHashTableCapacities`).
    private static let capacities: [Int] = [
        0, 3, 6, 11, 19, 32, 52, 85, 118, 155, 237, 390, 672, 1065, 1732, 2795, 4543, 7391, 12019, 19302,
        31324, 50629, 81956, 132580, 214215, 346784, 561026, 907847, 1468567, 2376414,
    ]

    /// The positions in `names` (distinct, in name order) of the names in the table's bucket order.
    static func order(of names: [String]) -> [Int] {
        var table = Table(hashes: names.map(hash))
        if names.count >= 5 { table.resize(toHold: names.count) }
        for index in names.indices { table.insert(index) }
        return table.buckets.compactMap { $0 }
    }

    /// `CFStringHash` of Mac OS X 10.6 over a string's UTF-16 code units, in 64 bits: starting from the
    /// length, each group of four units `a b c d` gives `h * 67503105 + a * 16974593 + b * 66049 + c * 257 + d`,
    /// each remaining unit `u` gives `h * 257 + u`, and the result is `h + h << (length & 31)`. A string longer
    /// than 96 units is hashed over its first, middle and last 32 (the middle ones from `length / 2 - 16`).
    static func hash(_ string: String) -> UInt64 {
        let units = Array(string.utf16)
        let length = units.count
        let hashed: ArraySlice<UInt16>
        if length > 96 {
            let middle = length / 2 - 16
            hashed = units[0..<32] + units[middle..<(middle + 32)] + units[(length - 32)...]
        } else {
            hashed = units[...]
        }
        var result = UInt64(length)
        var position = hashed.startIndex
        while hashed.endIndex - position >= 4 {
            let a = UInt64(hashed[position]), b = UInt64(hashed[position + 1])
            let c = UInt64(hashed[position + 2]), d = UInt64(hashed[position + 3])
            result = result &* 67_503_105 &+ a &* 16_974_593 &+ b &* 66_049 &+ c &* 257 &+ d
            position += 4
        }
        for unit in hashed[position...] { result = result &* 257 &+ UInt64(unit) }
        return result &+ (result << UInt64(length & 31))
    }

    /// The table being filled: each bucket empty or holding the position of a name.
    private struct Table {
        let hashes: [UInt64]
        var sizeIndex = 0
        var buckets: [Int?] = []
        var count = 0

        /// Inserts a name, growing the table first when it is full.
        mutating func insert(_ name: Int) {
            if capacities[sizeIndex] < count + 1 || buckets.count <= count { resize(toHold: count + 1) }
            place(name)
            count += 1
        }

        /// Moves to the smallest size whose capacity is at least `keys`, re-placing the names in bucket
        /// order. (Past the sizes listed, far beyond any entity, the table just doubles.)
        mutating func resize(toHold keys: Int) {
            let bucketCount: Int
            if let index = capacities.firstIndex(where: { $0 >= keys }) {
                sizeIndex = index
                bucketCount = sizes[index]
            } else {
                sizeIndex = capacities.count - 1
                bucketCount = keys * 2 + 1
            }
            let old = buckets
            buckets = Array(repeating: nil, count: bucketCount)
            for case let name? in old { place(name) }
        }

        /// Puts a name in the first empty bucket from its hash's bucket on.
        private mutating func place(_ name: Int) {
            let size = UInt64(buckets.count)
            var bucket = Int(hashes[name] % size)
            while buckets[bucket] != nil { bucket = (bucket + 1) % buckets.count }
            buckets[bucket] = name
        }
    }
}

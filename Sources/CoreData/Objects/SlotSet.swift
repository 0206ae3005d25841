/// A set of slot numbers, as bits: no allocation for entities of up to 64 properties.
struct SlotSet: Sequence, ExpressibleByArrayLiteral, Equatable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    init() {}
    init(arrayLiteral elements: Int...) { for element in elements { insert(element) } }
    init<S: Sequence>(_ elements: S) where S.Element == Int { for element in elements { insert(element) } }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    func contains(_ slot: Int) -> Bool {
        guard slot >= 0 else { return false }
        if slot < 64 { return low & (1 << UInt64(slot)) != 0 }
        let word = slot / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(slot % 64)) != 0
    }

    mutating func insert(_ slot: Int) {
        guard slot >= 0 else { return }
        if slot < 64 { low |= 1 << UInt64(slot); return }
        let word = slot / 64 - 1
        while high.count <= word { high.append(0) }
        high[word] |= 1 << UInt64(slot % 64)
    }

    mutating func remove(_ slot: Int) {
        guard slot >= 0 else { return }
        if slot < 64 { low &= ~(1 << UInt64(slot)); return }
        let word = slot / 64 - 1
        if word < high.count { high[word] &= ~(1 << UInt64(slot % 64)) }
    }

    mutating func formUnion<S: Sequence>(_ other: S) where S.Element == Int { for slot in other { insert(slot) } }

    /// The slots in ascending order.
    func makeIterator() -> IndexingIterator<[Int]> {
        var slots: [Int] = []
        var bits = low
        while bits != 0 { let bit = bits.trailingZeroBitCount; slots.append(bit); bits &= bits - 1 }
        for (index, word) in high.enumerated() {
            var bits = word
            while bits != 0 { let bit = bits.trailingZeroBitCount; slots.append((index + 1) * 64 + bit); bits &= bits - 1 }
        }
        return slots.makeIterator()
    }

    static func == (lhs: SlotSet, rhs: SlotSet) -> Bool { Array(lhs) == Array(rhs) }
}

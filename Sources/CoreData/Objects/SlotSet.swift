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

    /// The slots in ascending order, without allocating for entities of up to 64 properties.
    func makeIterator() -> Iterator { Iterator(set: self) }

    /// Walks the set bits, word by word.
    struct Iterator: IteratorProtocol {
        private let set: SlotSet
        private var word: UInt64
        private var wordIndex = -1  // -1 is `low`, 0... index `high`

        init(set: SlotSet) {
            self.set = set
            self.word = set.low
        }

        mutating func next() -> Int? {
            while word == 0 {
                wordIndex += 1
                guard wordIndex < set.high.count else { return nil }
                word = set.high[wordIndex]
            }
            let bit = word.trailingZeroBitCount
            word &= word - 1
            return (wordIndex + 1) * 64 + bit
        }
    }

    /// Equal when the same slots are in both: word by word, without allocating (zero words at the end of
    /// `high`, left by removals, do not count).
    static func == (lhs: SlotSet, rhs: SlotSet) -> Bool {
        guard lhs.low == rhs.low else { return false }
        let common = Swift.min(lhs.high.count, rhs.high.count)
        for word in 0..<common where lhs.high[word] != rhs.high[word] { return false }
        return lhs.high[common...].allSatisfy { $0 == 0 } && rhs.high[common...].allSatisfy { $0 == 0 }
    }
}

/// A `SlotSet` in a box, for sets that are rarely not empty (an object's invalid-value marks).
final class SlotSetBox {
    var slots: SlotSet
    init(_ slots: SlotSet) { self.slots = slots }
}

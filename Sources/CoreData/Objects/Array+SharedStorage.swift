extension Array {
    /// Whether both arrays use the same element storage (one is an unmodified copy of the other), so a shared
    /// template can be recognised without comparing elements.
    func sharesStorage(with other: [Element]) -> Bool {
        withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress } }
    }
}

extension Array where Element: AnyObject {
    /// Calls `body` with each element and its index, in order, lending each reference to `body` instead of copying
    /// it: no retain and no release per element.
    ///
    /// `for object in list` takes a reference to each element and drops it again after the body (two atomic operations
    /// on the object's header, mostly cache misses when a save walks many objects). Lending is sound because the array
    /// value this is called on is held (and its buffer kept alive) for the whole call, so every element outlives its
    /// use; code in `body` that keeps an element (appends it to a list, stores it) takes its own reference as usual.
    /// The array itself cannot change during the call (it is borrowed), so a body that changes the variable or
    /// property it was read from changes a copy. Check new uses in the release binary (`objdump -d`, no
    /// `swift_retain`/`swift_release` of the element around the body), since whether the compiler copies is not
    /// visible in the source (Docs, Decisions, "A save lends the objects of its lists").
    @inline(__always)
    func forEachBorrowed(_ body: (_ index: Int, _ element: Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: Unmanaged<Element>.self) { references in
                for index in references.indices {
                    try references[index]._withUnsafeGuaranteedRef { try body(index, $0) }
                }
            }
        }
    }
}

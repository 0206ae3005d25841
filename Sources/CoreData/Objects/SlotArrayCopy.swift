/// The copy of a slot array that an object shares (with its layout's templates or its committed values), made before
/// its first write, bit for bit where every slot allows it.
///
/// A new object's slots are its layout's shared `defaultSlots` (or `emptySlots`), and a filled fault's are its
/// committed values, until the object first writes a slot; that write copies the array (copy-on-write). The array's
/// own copy copies each `Any?` through the runtime's value witnesses, a call per element: two thirds of the copy's
/// time, and 2–4% of insert + save and update + save, in a profile of the benchmark (Docs, Performance, "Saving
/// inserted and updated objects: fewer passes, references and copies"). When every element is nil or holds a value
/// of exactly its slot's storage type, and that type is trivially copyable and stored inline
/// (`EntityLayout.bitwiseCopyableTypes`: the integers, `Double`, `Float`, `Bool`, `Date`, `Decimal`, `UUID`), an
/// element's bytes are its whole value and the copy is one block copy. Anything else (a string, data, an object, a
/// value of another type kept for validation) leaves the array to copy itself, so the copy holds the same values
/// either way.
///
/// It relies on the layout of Swift's opaque existential container, as `ExistentialPayload` does, and checks it the
/// same way: where that check fails, no array is copied here.
enum SlotArrayCopy {
    /// A copy of `slots`, an object's slot array under `layout`, made bit for bit; nil when some element needs the
    /// runtime's copy.
    static func bitwiseCopy(of slots: [Any?], layout: EntityLayout) -> [Any?]? {
        guard ExistentialPayload.layoutIsAsExpected else { return nil }
        let types = layout.bitwiseCopyableTypes
        return slots.withUnsafeBufferPointer { source -> [Any?]? in
            guard let base = source.baseAddress, source.count > 0, source.count == types.count else { return nil }
            for index in 0..<source.count {
                let typeWord = UnsafeRawPointer(base + index).load(fromByteOffset: ExistentialPayload.typeWordOffset,
                                                                   as: UnsafeRawPointer?.self)
                // nil (a null type word) copies as bits; a value only when its type is its slot's copyable type.
                if let typeWord, typeWord != types[index] { return nil }
            }
            return [Any?](unsafeUninitializedCapacity: source.count) { target, count in
                guard let targetBase = target.baseAddress else { return }  // not reached: the capacity is at least 1
                UnsafeMutableRawPointer(targetBase).copyMemory(from: UnsafeRawPointer(base),
                                                                   byteCount: source.count * MemoryLayout<Any?>.stride)
                count = source.count
            }
        }
    }
}

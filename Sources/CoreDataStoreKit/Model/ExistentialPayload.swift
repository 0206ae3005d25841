import Foundation
import Synchronization

/// Reads a value of a known type where an `Any?` is stored, without the runtime's dynamic cast: the read half of
/// a `@Managed` property of an attribute whose storage type is the property's own type (an `Int64` property of an
/// Integer 64 attribute, a `String` property of a String attribute, and so on; `NSManagedObject.storedValue(slot:ofExactType:)`),
/// the bit-for-bit copy of slot arrays (`SlotArrayCopy`), and the SQLite store's binding of row values
/// (`SQLiteRowPlan.Binder`).
///
/// `value as? T` of an `Any` calls `swift_dynamicCast`, which unwraps the container, searches for a conversion
/// and copies: about a fifth of a `@Managed` read in a profile of the benchmark, the largest single cost in it
/// (Docs, Performance, "Typed reads of `@Managed` attributes"). When the container holds a value of exactly `T`, and
/// `T` is stored inline, the value is the first bytes of the container and the container's type word is `T`'s
/// metadata; the reader compares that word and, when it matches, copies the value straight out of the container
/// (in place, in the slot array: `NSManagedObject.storedValue(slot:ofExactType:)`). Any other content (another type, a subclass, an optional, a boxed value, nil)
/// does not match, and the caller casts as before, so what a reader sees never depends on this path.
///
/// It relies on the layout of Swift's opaque existential container (the Swift ABI's "TypeLayout": three words
/// of inline buffer, then the type metadata; a type of at most three words, word alignment and bitwise-takable
/// is stored in the buffer) and on `Optional<Any>` marking nil with a null type word. A check run once per
/// process (`layoutIsAsExpected`) reads a sample of each attribute storage type back this way and compares it
/// with the value stored; if any differs, no read takes this path.
@usableFromInline
package enum ExistentialPayload {
    /// Where the type metadata sits in an existential container: after its three-word buffer.
    @inlinable
    package static var typeWordOffset: Int { 3 * MemoryLayout<UnsafeRawPointer>.size }

    /// Whether an existential container holds a value of `T` in its buffer rather than in a box: a constant once
    /// the caller is specialized.
    @inlinable
    package static func isStoredInline<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= typeWordOffset && MemoryLayout<T>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment
            && _isBitwiseTakable(T.self)
    }

    /// Whether the `Any?` at `container` holds a value of exactly `type` (nil never does).
    @inlinable
    package static func holds(_ container: UnsafeRawPointer, exactly type: Any.Type) -> Bool {
        container.load(fromByteOffset: typeWordOffset, as: UnsafeRawPointer?.self) == unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    /// The value in the `Any?` at `container` when it holds exactly a `T` stored inline (a copy of it), else nil.
    /// Only when `layoutIsAsExpected`.
    @inlinable
    package static func value<T>(at container: UnsafeRawPointer, ofExactType type: T.Type) -> T? {
        guard isStoredInline(T.self), holds(container, exactly: T.self) else { return nil }
        return container.load(as: T.self)
    }

    /// Whether the container layout is the one this type reads: every sample, one of each attribute storage type,
    /// reads back as itself, and neither a value of another type nor nil reads as a sample's type. Checked on the
    /// first call, then one atomic load (`layoutCheck`): every `@Managed` read asks, and a lazily initialized
    /// `static let` made each ask a call into the runtime's `swift_once`.
    package static var layoutIsAsExpected: Bool {
        let known = layoutCheck.load(ordering: .relaxed)
        return known != 0 ? known == 2 : checkLayout()
    }

    /// The answer of `checkLayout()` once known: 0 before, 1 for false, 2 for true. A constant initial value, so
    /// the process starts with it in place and reading it needs no `swift_once`. Two threads that check at once
    /// store the same answer.
    private static let layoutCheck = Atomic<UInt8>(0)

    /// Checks the container layout (see `layoutIsAsExpected`) and records the answer.
    @inline(never)
    private static func checkLayout() -> Bool {
        let expected = layoutReadsBack()
        layoutCheck.store(expected ? 2 : 1, ordering: .relaxed)
        return expected
    }

    /// Whether every sample reads back as itself (see `layoutIsAsExpected`).
    private static func layoutReadsBack() -> Bool {
        func readsBack<T: Equatable>(_ sample: T) -> Bool {
            let container: Any? = sample
            let other: Any? = Int8(1)
            let none: Any? = nil
            return isStoredInline(T.self) && value(in: container, as: T.self) == sample
                && value(in: other, as: T.self) == nil && value(in: none, as: T.self) == nil
        }
        return readsBack(Int64(-42)) && readsBack(Int32(7)) && readsBack(Int16(-3)) && readsBack(Int(99)) && readsBack(2.5)
            && readsBack(Float(1.25)) && readsBack(true) && readsBack("a string longer than fifteen bytes")
            && readsBack(Data([1, 2, 3])) && readsBack(Date(timeIntervalSinceReferenceDate: 12))
            && readsBack(Decimal(string: "12.75") ?? 0) && readsBack(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
            && readsBack(URL(fileURLWithPath: "/tmp/sample"))
    }

    /// The value in `container` read this way, when it holds exactly a `T` (what the layout check compares).
    private static func value<T>(in container: Any?, as type: T.Type) -> T? {
        withUnsafePointer(to: container) { pointer in
            let raw = UnsafeRawPointer(pointer)
            return holds(raw, exactly: T.self) ? raw.load(as: T.self) : nil
        }
    }
}

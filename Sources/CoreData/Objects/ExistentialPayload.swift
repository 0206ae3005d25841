import Foundation

/// Reads a value of a known type out of an `Any?` without the runtime's dynamic cast: the read half of a
/// `@Managed` property of an attribute whose stored value has the property's own type (an `Int64` property of an
/// Integer 64 attribute, a `String` property of a String attribute, and so on).
///
/// `value as? T` of an `Any` calls `swift_dynamicCast`, which unwraps the container, searches for a conversion
/// and copies: 30–100 ns a read on this project's machine, the largest single cost of reading a property (Docs,
/// Performance, "Typed reads of slots"). When the container holds a value of exactly `T`, and `T` is stored
/// inline, the value is the first bytes of the container and its type is the container's type word; this reads
/// the type word, and copies the value out only when it is `T`'s metadata. Any other content (another type, a
/// subclass, an optional, a boxed value, nil) gives nil, and the caller casts as before, so what a reader sees
/// never depends on this path.
///
/// It relies on the layout of Swift's opaque existential container (the Swift ABI's "TypeLayout": three words
/// of inline buffer, then the type metadata; a type of at most three words, word alignment and bitwise-takable
/// is stored in the buffer) and on `Optional<Any>` marking nil with a null type word. A check run once per
/// process (`layoutIsAsExpected`) reads sample values of the attribute storage types back through this path and
/// compares them with the cast's answer; if any differs, every read takes the cast.
@usableFromInline
enum ExistentialPayload {
    /// The value in `container` when its dynamic type is exactly `T` and `T` is stored inline; nil otherwise.
    @inlinable
    static func value<T>(of container: Any?, as type: T.Type) -> T? {
        guard isStoredInline(T.self), layoutIsAsExpected else { return nil }
        return inlineValue(of: container, as: T.self)
    }

    /// `value(of:as:)` without the check of the layout (what that check itself uses).
    @inlinable
    static func inlineValue<T>(of container: Any?, as type: T.Type) -> T? {
        guard isStoredInline(T.self) else { return nil }
        return withUnsafePointer(to: container) { pointer in
            let raw = UnsafeRawPointer(pointer)
            let typeWord = raw.load(fromByteOffset: typeWordOffset, as: UnsafeRawPointer?.self)
            guard typeWord == metadata(of: T.self) else { return nil }
            return raw.load(as: T.self)  // a copy: references in the value are retained
        }
    }

    /// Where the type metadata sits in an existential container: after its three-word buffer.
    @inlinable
    static var typeWordOffset: Int { 3 * MemoryLayout<UnsafeRawPointer>.size }

    /// Whether an existential container holds a value of `T` in its buffer rather than in a box: a constant once
    /// the caller is specialized.
    @inlinable
    static func isStoredInline<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= typeWordOffset && MemoryLayout<T>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment
            && _isBitwiseTakable(T.self)
    }

    /// The address of `T`'s type metadata, as an existential container's type word holds it.
    @inlinable
    static func metadata<T>(of type: T.Type) -> UnsafeRawPointer {
        unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
    }

    /// Whether the container layout is the one `value(of:as:)` reads: every sample, one of each attribute storage
    /// type, reads back as itself, and a value of another type and nil read as nothing.
    @usableFromInline
    static let layoutIsAsExpected: Bool = {
        func readsBack<T: Equatable>(_ sample: T) -> Bool {
            let container: Any? = sample
            return isStoredInline(T.self) && inlineValue(of: container, as: T.self) == sample
                && inlineValue(of: container, as: Int8.self) == nil && inlineValue(of: nil, as: T.self) == nil
        }
        return readsBack(Int64(-42)) && readsBack(Int32(7)) && readsBack(Int16(-3)) && readsBack(Int(99)) && readsBack(2.5)
            && readsBack(Float(1.25)) && readsBack(true) && readsBack("a string longer than fifteen bytes")
            && readsBack(Data([1, 2, 3])) && readsBack(Date(timeIntervalSinceReferenceDate: 12))
            && readsBack(Decimal(string: "12.75") ?? 0) && readsBack(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
            && readsBack(URL(fileURLWithPath: "/tmp/sample"))
    }()
}

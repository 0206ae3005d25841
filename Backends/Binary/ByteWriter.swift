/// Appends the binary store's primitive encodings to a growing byte array.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func raw<S: Sequence>(_ values: S) where S.Element == UInt8 { bytes.append(contentsOf: values) }

    /// A fixed-width little-endian integer.
    mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { bytes.append(contentsOf: $0) }
    }

    /// An unsigned LEB128 varint (7 bits per byte, low groups first).
    mutating func varuint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func count(_ value: Int) { varuint(UInt64(value)) }

    /// A signed integer as a zigzag varint (0, -1, 1, -2 … → 0, 1, 2, 3 …).
    mutating func varint(_ value: Int64) {
        varuint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A length-prefixed byte string.
    mutating func blob<C: Collection>(_ value: C) where C.Element == UInt8 {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    /// A length-prefixed UTF-8 string.
    mutating func string(_ value: String) { blob(value.utf8) }

    /// Overwrites bytes already written, at `offset`.
    mutating func patch<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { source in
            for (index, byte) in source.enumerated() { bytes[offset + index] = byte }
        }
    }
}

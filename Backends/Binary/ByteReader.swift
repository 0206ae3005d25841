import CoreDataStoreKit

/// Reads the binary store's primitive encodings from a byte buffer, checking every read against its end.
///
/// Every method throws `ByteReader.OutOfBounds` or `ByteReader.Malformed` instead of reading past the buffer
/// or trapping; the decoder turns both into a corrupt-store error.
struct ByteReader {
    struct OutOfBounds: Error {}
    struct Malformed: Error { var reason: String }

    private let buffer: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    /// Bytes left to read.
    var remaining: Int { buffer.count - offset }

    mutating func byte() throws -> UInt8 {
        guard offset < buffer.count else { throw OutOfBounds() }
        defer { offset += 1 }
        return buffer[offset]
    }

    /// `count` bytes, as a view into the buffer.
    mutating func bytes(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw OutOfBounds() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    /// A fixed-width little-endian integer.
    mutating func fixed<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let raw = try bytes(MemoryLayout<T>.size)
        return T(littleEndian: raw.loadUnaligned(as: T.self))
    }

    /// An unsigned LEB128 varint of at most 10 bytes that fits in 64 bits.
    mutating func varuint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            let group = UInt64(next & 0x7F)
            guard shift < 64, shift < 63 || group <= 1 else { throw Malformed(reason: "a number is too large") }
            result |= group << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A zigzag varint.
    mutating func varint() throws -> Int64 {
        let raw = try varuint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count of items that each take at least `minimumSize` bytes, checked against the bytes left so a damaged
    /// count cannot make the reader reserve huge arrays.
    mutating func count(minimumSize: Int = 1) throws -> Int {
        let value = try varuint()
        guard value <= UInt64(remaining / max(minimumSize, 1)) else { throw OutOfBounds() }
        return Int(value)
    }

    /// A positive primary key or a version.
    mutating func positive() throws -> Int64 {
        let value = try varuint()
        guard value > 0, value <= UInt64(Int64.max) else { throw Malformed(reason: "a key or version is \(value)") }
        return Int64(value)
    }

    /// A length-prefixed byte string.
    mutating func blob() throws -> UnsafeRawBufferPointer {
        try bytes(count())
    }

    /// A length-prefixed string, which must be valid UTF-8.
    mutating func string() throws -> String {
        let raw = try blob()
        guard let text = String(validating: raw, as: UTF8.self) else { throw Malformed(reason: "a string is not valid UTF-8") }
        return text
    }
}

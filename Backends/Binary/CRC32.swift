/// CRC-32 as zlib, PNG and `python3 -c "import zlib; zlib.crc32(...)"` compute it (IEEE 802.3 polynomial,
/// reflected, initial value and final XOR 0xFFFFFFFF), so a binary store's checksum can be checked with
/// common tools.
///
/// Computed eight bytes at a step ("slicing by 8": eight tables, one 64-bit load per step), so a store file
/// of several megabytes costs a few milliseconds even in a debug build, where a loop over single bytes costs
/// tens of nanoseconds a byte. `update(_:with:)` continues a running checksum, so a file can be checked in
/// parts without copying it (Apple's format leaves the checksum's own bytes out).
enum CRC32 {
    /// `tables[0]` is the classic byte table; `tables[k][n]` is the CRC of byte `n` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    /// The state before any byte: pass it to `update(_:with:)`, and the result to `finish(_:)`.
    static let initial: UInt32 = 0xFFFF_FFFF

    /// The CRC-32 of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        finish(update(initial, with: bytes))
    }

    /// The final checksum of a running state.
    static func finish(_ state: UInt32) -> UInt32 { state ^ 0xFFFF_FFFF }

    /// A running state continued over `bytes`.
    static func update(_ state: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress else { return state }
        var crc = state
        var offset = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { table in
            while count - offset >= 8 {
                let word = UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(base.load(fromByteOffset: offset, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return crc
    }
}

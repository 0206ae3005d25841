import Testing
import CoreData
import StoreTestSupport
@testable import CoreDataBinary

/// The store's CRC-32 (eight bytes a step) gives zlib's checksum for every length and alignment, whole or in
/// parts, checked against the bit-by-bit `referenceCRC32` and zlib's published check value.
@Suite struct CRC32Tests {
    @Test func checkValueOfZlib() {
        let digits = Array("123456789".utf8)
        #expect(digits.withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }

    /// Every length from 0 to 80 at every start offset 0–7 (so both the 8-byte steps and the single bytes
    /// after them run from unaligned addresses), with pseudo-random contents.
    @Test func everyLengthAndAlignmentMatchesTheReference() {
        var random = SplitMix64(seed: 0xC3C3_2222)
        let bytes = (0..<96).map { _ in UInt8.random(in: 0...255, using: &random) }
        for start in 0..<8 {
            for length in 0...80 {
                let slice = bytes[start..<(start + length)]
                let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
                #expect(crc == referenceCRC32(slice), "start \(start), length \(length)")
            }
        }
    }

    /// A running checksum continued over parts equals the checksum of the whole, wherever the cut falls.
    @Test func partsGiveTheChecksumOfTheWhole() {
        let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let whole = referenceCRC32(bytes)
        for cut in [0, 1, 7, 8, 9, 60, 64, 199, 200] {
            let crc = bytes.withUnsafeBytes { buffer in
                CRC32.finish(CRC32.update(CRC32.update(CRC32.initial, with: UnsafeRawBufferPointer(rebasing: buffer[..<cut])),
                                          with: UnsafeRawBufferPointer(rebasing: buffer[cut...])))
            }
            #expect(crc == whole, "cut at \(cut)")
        }
    }

    /// Apple's format counts the checksum's own bytes (60–63) as zero, also in a file shorter than the header.
    @Test func appleFormatChecksumSkipsItsOwnBytes() {
        for length in [0, 30, 60, 62, 64, 65, 4096] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
            var zeroed = bytes
            for index in 60..<64 where index < zeroed.count { zeroed[index] = 0 }
            #expect(bytes.withUnsafeBytes { AppleBinaryStoreFormat.checksum(of: $0) } == referenceCRC32(zeroed), "length \(length)")
        }
    }
}

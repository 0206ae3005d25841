import CoreDataSQLite
import Foundation
import Testing

/// `RawDeflate.deflateStored` writes stored blocks that the decoder (and so any inflater) reads back,
/// across the 65,535-byte block boundary and for empty input.
@Suite struct RawDeflateStoringTests {
    @Test(arguments: [0, 1, 100, 65_535, 65_536, 200_000])
    func storedBlocksRoundTrip(_ size: Int) throws {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        let stream = RawDeflate.deflateStored(data)
        #expect(stream.count == size + 5 * max(1, (size + 65_534) / 65_535))
        #expect(try RawDeflate.inflate(stream, maximumSize: size) == data)
    }
}

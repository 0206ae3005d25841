import CoreDataStoreKit
import Foundation

extension RawDeflate {
    /// `data` as a raw DEFLATE stream (RFC 1951, no header) of stored blocks: uncompressed, at most 65,535 bytes
    /// each, the last one marked final. Stored blocks are valid DEFLATE, which every inflater reads (zlib with
    /// `wbits = -15`, as Apple's Core Data reads `Z_MODELCACHE`); the stream is 5 bytes per block longer than
    /// `data`. An addition to Apple's API.
    public static func deflateStored(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 5 * (bytes.count / 65_535 + 1))
        var start = 0
        repeat {
            let count = min(65_535, bytes.count - start)
            let isFinal = start + count == bytes.count
            out += [isFinal ? 1 : 0, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += bytes[start..<(start + count)]
            start += count
        } while start < bytes.count
        return Data(out)
    }
}

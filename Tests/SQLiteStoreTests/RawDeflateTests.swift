import Foundation
import Testing
import CoreDataSQLite

/// `RawDeflate.inflate` on small hand-made streams. The expected bytes were made with Python's zlib
/// (`compressobj(level, DEFLATED, -15)`) and checked against `zlib.decompress(data, -15)`; the damaged streams
/// are rejected by zlib too.
@Suite struct RawDeflateTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let stream: [UInt8]
        let expected: [UInt8]
        var testDescription: String { name }
    }

    static let valid: [Case] = [
        Case(name: "stored block", stream: [0x01, 0x09, 0x00, 0xf6, 0xff, 0x43, 0x6f, 0x72, 0x65, 0x20, 0x44, 0x61, 0x74, 0x61],
             expected: Array("Core Data".utf8)),
        Case(name: "empty stored block", stream: [0x01, 0x00, 0x00, 0xff, 0xff], expected: []),
        Case(name: "empty fixed block", stream: [0x03, 0x00], expected: []),
        Case(name: "fixed block with a match", stream: [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x15, 0x01],
             expected: Array("hello hello hello hello!".utf8)),
        Case(name: "fixed block with an overlapping match", stream: [0x4b, 0x4c, 0x1c, 0x05, 0xc4, 0x02, 0x00],
             expected: [UInt8](repeating: 0x61, count: 300)),
        // A stored block, then a fixed block whose matches reach back into the stored block's bytes.
        Case(name: "stored then fixed block", stream: [0x00, 0x02, 0x00, 0xfd, 0xff, 0x61, 0x62, 0x4b, 0x04, 0x43, 0x00],
             expected: Array("abababab".utf8)),
        // zlib with Z_HUFFMAN_ONLY: a dynamic block of literals.
        Case(name: "dynamic block", stream: [
            0x05, 0xc1, 0x01, 0x01, 0x00, 0x00, 0x08, 0xc3, 0xa0, 0xac, 0xec, 0xf6, 0xcf, 0x20, 0x68, 0x1b, 0x8c, 0x0c, 0x6e, 0xb4,
            0x89, 0x26, 0x07, 0xe5, 0x44, 0x32, 0x42, 0xc6, 0xb1, 0xeb, 0xa2, 0x46, 0xae, 0x3a, 0xed, 0x42, 0x67, 0x69, 0x68, 0x44,
            0xd7, 0x0a, 0x65, 0x1a, 0x82, 0x56, 0x89, 0x98, 0x6e, 0x91, 0xc5, 0xa9, 0x62, 0xdb, 0xd5, 0xb4, 0x60, 0x4a, 0x0c, 0xea, 0x01,
        ], expected: Array(("abcccaaaacaabacaaaadcaabccabaabcabadaaaabbadabaababacaabaaabacaadaacdbdbaabbcaabadbbbdabcdbaaabdac"
                            + "babcaaabcaabaabdbcbbaaabbacabcaaabaaaabcbbbabaabaacabdcbaabacbaadabbbbaacccdbbcabcbaaaacabbabaacaaaabb").utf8)),
    ]

    @Test(arguments: valid)
    func inflates(_ test: Case) throws {
        #expect(try RawDeflate.inflate(Data(test.stream), maximumSize: 1 << 20) == Data(test.expected))
    }

    @Test(arguments: valid)
    func bytesAfterTheFinalBlockAreIgnored(_ test: Case) throws {
        #expect(try RawDeflate.inflate(Data(test.stream + [0xde, 0xad]), maximumSize: 1 << 20) == Data(test.expected))
    }

    @Test(arguments: valid)
    func everyTruncationThrows(_ test: Case) {
        for length in 0..<test.stream.count {
            let error = thrown { _ = try RawDeflate.inflate(Data(test.stream.prefix(length)), maximumSize: 1 << 20) }
            #expect(error?.code == NSFileReadCorruptFileError, "\(length) of \(test.stream.count) bytes")
        }
    }

    static let damaged: [(String, [UInt8], String)] = [
        ("empty input", [], "ends before"),
        ("reserved block type 3", [0x07], "reserved type 3"),
        ("stored length check fails", [0x01, 0x02, 0x00, 0x00, 0x00, 0x61, 0x62], "does not match its check value"),
        ("stored bytes cut off", [0x01, 0x09, 0x00, 0xf6, 0xff, 0x43], "cut off"),
        ("no final block", [0x00, 0x00, 0x00, 0xff, 0xff], "ends before"),
        ("match before the start", [0x03, 0x02, 0x00], "refers 1 bytes back, but only 0"),
        ("match further back than the output", [0xab, 0x00, 0x42, 0x00], "refers 2 bytes back, but only 1"),
        ("length code 286", [0x1b, 0x03, 0x00], "invalid length code 286"),
        ("distance code 30", [0xab, 0x00, 0x3e, 0x00], "invalid distance code 30"),
        ("287 literal/length codes", [0xf5, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], "287 literal/length codes"),
        ("over-subscribed code lengths", [0x05, 0x00, 0x92, 0x04, 0x00, 0x00, 0x00, 0x00], "over-subscribed"),
        ("repeat with no previous length", [0x05, 0x00, 0x02, 0x24, 0x00, 0x00, 0x00, 0x00], "no previous length"),
    ]

    @Test(arguments: damaged)
    func damagedStreamThrows(_ name: String, _ stream: [UInt8], _ message: String) {
        let error = thrown { _ = try RawDeflate.inflate(Data(stream), maximumSize: 1 << 20) }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains(message) == true, "\(error?.localizedDescription ?? "no error")")
    }

    @Test func outputOverTheLimitThrows() throws {
        let overlapping = Data([0x4b, 0x4c, 0x1c, 0x05, 0xc4, 0x02, 0x00])  // 300 × "a"
        #expect(try RawDeflate.inflate(overlapping, maximumSize: 300).count == 300)
        let error = thrown { _ = try RawDeflate.inflate(overlapping, maximumSize: 299) }
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains("limit of 299 bytes") == true)
        let stored = Data([0x01, 0x09, 0x00, 0xf6, 0xff, 0x43, 0x6f, 0x72, 0x65, 0x20, 0x44, 0x61, 0x74, 0x61])
        #expect(thrown { _ = try RawDeflate.inflate(stored, maximumSize: 8) }?.code == NSFileReadCorruptFileError)
    }

    func thrown(_ body: () throws -> Void) -> NSError? {
        do {
            try body()
            return nil
        } catch {
            return error as NSError
        }
    }
}

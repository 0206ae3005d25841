import Testing
import CoreData
import StoreTestSupport

/// Files that are not binary stores, or damaged ones in this package's earlier format, give Apple's error codes
/// and are left as they were (`AppleBinaryFormatTests` damages files in Apple's format).
@Suite struct BinaryBadFileTests {
    private func openCode(_ contents: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int? {
        try DamagedStoreOpener().openCode(contents, sourceLocation: sourceLocation)
    }

    private func validStore(items: Int) throws -> Data {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        try populate(try openStore(.binary, at: url, model: everyTypeModel()), items: items)
        return try legacyCopy(of: url, model: everyTypeModel())
    }

    @Test(arguments: [
        ("empty", ""), ("plain text", "hello, world"), ("XML", "<?xml version=\"1.0\"?><database/>"),
        ("SQLite header", "SQLite format 3\u{0}"), ("almost the magic", "\u{89}CDBAN\r\n and more bytes after it, enough for a header"),
    ])
    func notAStore(_ label: String, _ text: String) throws {
        #expect(try openCode(Data(text.utf8)) == 134000, "\(label)")
    }

    @Test func xmlStoreIsNotABinaryStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        try populate(try openStore(.xml, at: url, model: everyTypeModel()), items: 3)
        #expect(try openCode(try Data(contentsOf: url)) == 134000)
    }

    /// Truncations are damage (259): every length inside the 40-byte header, every length within 40 bytes of
    /// where the body starts and where the checksum starts and ends, and every 17th length in between
    /// (`damagePositions`).
    @Test func truncationsAreDamage() throws {
        let valid = try validStore(items: 3)
        let opener = DamagedStoreOpener()
        let lengths = damagePositions(in: 1..<valid.count, headerEnd: 40, boundaries: [40, valid.count - 4, valid.count])
        for length in lengths {
            #expect(try opener.openCode(valid.prefix(length)) == 259, "truncated to \(length) of \(valid.count)")
        }
        #expect(lengths.count > 100)
    }

    /// A flipped byte is caught: in the magic number the file is no longer a binary store, anywhere else the
    /// checksum (or the length) does not match. Tried at every byte of the header, every byte within 40 of
    /// where the body starts and the checksum starts and ends, and every 17th byte in between.
    @Test func flippedBytesAreCaught() throws {
        let valid = [UInt8](try validStore(items: 2))
        let opener = DamagedStoreOpener()
        for offset in damagePositions(in: valid.indices, headerEnd: 40, boundaries: [40, valid.count - 4, valid.count]) {
            var damaged = valid
            damaged[offset] ^= 0x20
            #expect(try opener.openCode(Data(damaged)) == (offset < 8 ? 134000 : 259), "byte \(offset) of \(valid.count)")
        }
    }

    @Test func newerFormatVersionIsRefused() throws {
        var bytes = [UInt8](try validStore(items: 1))
        bytes[8] = 2
        #expect(try openCode(resealed(bytes)) == 134000)
    }

    @Test func nonZeroReservedFieldsAreDamage() throws {
        var bytes = [UInt8](try validStore(items: 1))
        bytes[12] = 1
        #expect(try openCode(resealed(bytes)) == 259)
    }

    /// Deterministic fuzzing of the decoder itself: each damaged file is resealed with a correct length and
    /// checksum, so the damage reaches the table reader, which must throw 259 (or load) and never trap.
    @Test func resealedFuzzNeverTraps() throws {
        let sources = [try validStore(items: 4), try validStore(items: 30)]
        var random = SplitMix64(seed: 0xB1_4A_27)
        var outcomes: [Int: Int] = [:]
        let opener = DamagedStoreOpener()
        for source in sources {
            for _ in 0..<250 {
                var mutated = [UInt8](mutate(source, &random))
                if mutated.count >= 44 {
                    mutated.replaceSubrange(0..<8, with: [0x89, 0x43, 0x44, 0x42, 0x49, 0x4E, 0x0D, 0x0A])
                    mutated.replaceSubrange(8..<16, with: [1, 0, 0, 0, 0, 0, 0, 0])
                }
                let code = try opener.openCode(mutated.count >= 44 ? resealed(mutated) : Data(mutated)) ?? 0
                outcomes[code, default: 0] += 1
            }
        }
        #expect(Set(outcomes.keys).isSubset(of: [0, 259, 134000, 134100]), "\(outcomes)")
        #expect((outcomes[259] ?? 0) > 100, "\(outcomes)")
    }

    @Test func rawFuzzNeverTraps() throws {
        let source = try validStore(items: 10)
        var random = SplitMix64(seed: 0xF00D)
        let opener = DamagedStoreOpener()
        for _ in 0..<200 {
            let code = try opener.openCode(mutate(source, &random))
            #expect(code == 259 || code == 134000, "\(code ?? 0)")
        }
    }
}

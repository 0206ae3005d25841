import Testing
import CoreData
import StoreTestSupport

/// A damaged store file of each type (truncated, bits flipped, bytes overwritten, inserted or removed) opens
/// and reads, or fails with a thrown error carrying one of Apple's codes; it never traps, and a failed open
/// leaves the file's bytes as they were. The number of damaged files per type is `fuzzIterations(normal:)`.
@Suite struct StoreFileDamageTests {
    static let types = [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType]
    /// What a damaged file may fail with: not a store of this type, damaged, another model, and for SQLite
    /// Apple's SQLite error and open error.
    static let allowedCodes: Set<Int> = [NSPersistentStoreInvalidTypeError, NSFileReadCorruptFileError,
                                         NSPersistentStoreIncompatibleVersionHashError, NSSQLiteError, NSPersistentStoreOpenError]

    /// A complete store of `type` with a few objects of every attribute type, as one self-contained file.
    static func validStore(_ type: NSPersistentStore.StoreType, in directory: TemporaryDirectory) throws -> (Data, [String: [String: String]]) {
        let url = directory.file("source")
        let context = try openStore(type, at: url, model: everyTypeModel())
        try populate(context, items: 12)
        let contents = try dump(context, model: everyTypeModel())
        let coordinator = try #require(context.persistentStoreCoordinator)
        // Removing the store closes its connection, which folds the SQLite log into the file.
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        return (try Data(contentsOf: url), contents)
    }

    /// One damage of `data`: a plain truncation or a single flipped bit half the time (the commonest real
    /// damage), otherwise `mutate`'s mix.
    static func damage(_ data: Data, _ random: inout SplitMix64) -> Data {
        var bytes = [UInt8](data)
        switch random.next() % 4 {
        case 0: bytes.removeLast(Int.random(in: 1..<bytes.count, using: &random))
        case 1: bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        default: return mutate(data, &random)
        }
        return Data(bytes)
    }

    @Test(arguments: types) func damagedFilesThrowApplesCodesOrReadAndAreLeftAsTheyWere(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "damage")
        let (source, contents) = try Self.validStore(type, in: directory)
        var random = SplitMix64(seed: 0xDA3A_6E00 ^ UInt64(typeName.utf8.count))
        var outcomes: [Int: Int] = [:]
        var wrongReads = 0
        let model = everyTypeModel()
        let began = Date()
        for round in 0..<fuzzIterations(normal: 120) {
            let damaged = Self.damage(source, &random)
            guard !damaged.isEmpty else { continue }
            let url = directory.file("damaged-\(round)")
            // Written without Foundation's flush: a damaged copy is scratch, and the opens are what is tested.
            try damaged.withUnsafeBytes { try AtomicFileReplacement.writeUnflushed($0, to: url) }
            defer { for file in [url.path] + ["-journal", "-wal", "-shm"].map({ url.path + $0 }) { unlink(file) } }
            do {
                let context = try openStore(type, at: url, model: model)
                outcomes[0, default: 0] += 1
                do {
                    let read = try dump(context, model: model)
                    // The binary store checks a CRC over the whole file: what it opens must be what was saved.
                    if typeName == NSBinaryStoreType, read != contents { wrongReads += 1 }
                } catch {
                    let code = (error as NSError).code
                    #expect((error as NSError).domain == NSCocoaErrorDomain && Self.allowedCodes.contains(code),
                            "round \(round): a fetch from the opened file threw \(error)")
                }
            } catch {
                let error = error as NSError
                outcomes[error.code, default: 0] += 1
                #expect(error.domain == NSCocoaErrorDomain && Self.allowedCodes.contains(error.code), "round \(round): \(error)")
                #expect(FileManager.default.contents(atPath: url.path) == damaged, "round \(round): a failed open must leave the file as it was")
            }
        }
        #expect(wrongReads == 0, "\(wrongReads) damaged binary files opened with other contents")
        #expect(outcomes.keys.contains { $0 != 0 }, "some damage must be caught: \(outcomes)")
        print("\(typeName) damage: \(outcomes.sorted { $0.key < $1.key }) in \(Int(Date().timeIntervalSince(began) * 1000)) ms")
    }
}

import Testing
@testable import CoreDataStoreKit
import StoreTestSupport

/// `BinaryPropertyListCheck` passes the property lists stores write and refuses damaged ones, so damaged
/// metadata reaches Foundation's decoder (which can crash on it) only when it is well formed.
@Suite struct BinaryPropertyListCheckTests {
    static let metadata: [String: Any] = [
        "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1344, "_NSAutoVacuumLevel": "2",
        "NSStoreModelVersionHashes": ["Item": Data(repeating: 7, count: 32), "Owner": Data(repeating: 9, count: 32)],
        "NSStoreModelVersionIdentifiers": [""], "NSStoreModelVersionHashesVersion": 3,
        "ratio": 0.5, "when": Date(timeIntervalSinceReferenceDate: 1), "flag": true, "big": Int64.max, "text": "émile",
    ]

    static func encoded(_ value: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    }

    @Test func passesWhatStoresWrite() throws {
        #expect(BinaryPropertyListCheck.isWellFormed(try Self.encoded(Self.metadata)))
        #expect(BinaryPropertyListCheck.isWellFormed(try Self.encoded([String: Any]())))
        #expect(BinaryPropertyListCheck.isWellFormed(try Self.encoded([[[1, 2], ["a": [Data()]]]])))
    }

    @Test func refusesWhatIsNotABinaryPropertyList() throws {
        #expect(!BinaryPropertyListCheck.isWellFormed(Data()))
        #expect(!BinaryPropertyListCheck.isWellFormed(Data("<?xml version=\"1.0\"?><plist><dict/></plist>".utf8)))
        let good = try Self.encoded(Self.metadata)
        for length in 0..<good.count { #expect(!BinaryPropertyListCheck.isWellFormed(good.prefix(length)), "truncated to \(length)") }
    }

    /// `bplist00`, then objects, an offset table of one-byte offsets, and the trailer.
    static func handMade(objects: [[UInt8]], top: Int = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects { offsets.append(UInt8(bytes.count)); bytes += object }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [0, 0, 0, 0, 0, 0, 0, UInt8(top)]
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return Data(bytes)
    }

    @Test func refusesCyclesSetsBadReferencesAndNonStringKeys() {
        #expect(BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0xA1, 1], [0x10, 5]])), "an array of one integer")
        #expect(!BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0xA1, 0]])), "an array that contains itself")
        #expect(!BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0xA1, 1], [0xA1, 0]])), "two arrays that contain each other")
        #expect(!BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0xC1, 1], [0x10, 5]])), "a set")
        #expect(!BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0xA1, 9], [0x10, 5]])), "a reference past the objects")
        #expect(!BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0xD1, 1, 1], [0x10, 5]])), "an integer key")
        #expect(!BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0x5F, 0x10, 200]])), "a string longer than the file")
        #expect(!BinaryPropertyListCheck.isWellFormed(Self.handMade(objects: [[0x10, 5]], top: 3)), "a top object past the objects")
    }

    /// Damaged metadata either fails the check or decodes (Foundation's decoder does not crash on it).
    @Test func damagedPropertyListsFailTheCheckOrDecode() throws {
        let source = try Self.encoded(Self.metadata)
        var random = SplitMix64(seed: 0xB91157)
        var refused = 0
        for _ in 0..<fuzzIterations(normal: 3000) {
            var bytes = [UInt8](source)
            for _ in 0...Int(random.next() % 3) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            let damaged = Data(bytes)
            guard BinaryPropertyListCheck.isWellFormed(damaged) else { refused += 1; continue }
            _ = try? PropertyListSerialization.propertyList(from: damaged, options: [], format: nil)
        }
        #expect(refused > 0)
    }
}

/// Keyed archives (model files, transformable values) hold UIDs: accepted when asked for, and damaged archives
/// are refused before Foundation sees them, whatever the damage.
@Suite struct KeyedArchiveCheckTests {
    static func archive() throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: ["name": "value", "list": [1, 2, 3]] as NSDictionary, requiringSecureCoding: true)
    }

    @Test func archivesAreWellFormedOnlyWhenUIDsAreAllowed() throws {
        let data = try Self.archive()
        #expect(BinaryPropertyListCheck.isWellFormed(data, allowingUIDs: true))
        #expect(!BinaryPropertyListCheck.isWellFormed(data), "store metadata never holds UIDs")
    }

    @Test func damagedArchivesNeverReachFoundationUnchecked() throws {
        let data = try Self.archive()
        var random = SplitMix64(seed: 31)
        let transformer = NSSecureUnarchiveFromDataTransformer()
        for _ in 0..<fuzzIterations(normal: 2_000) {
            let damaged = mutate(data, &random)
            // Either refused by the check, or decoded by Foundation (which then must not crash).
            _ = BinaryPropertyListCheck.propertyList(from: damaged, allowingUIDs: true)
            _ = transformer.transformedValue(damaged)
        }
    }
}

import Foundation
import Testing
@testable import CoreDataStoreKit
import StoreTestSupport

/// `BinaryPropertyListReader` gives the values Foundation's `PropertyListSerialization` gives (UIDs aside, which
/// it gives as `KeyedArchive.Reference`), on Apple's files and on lists with every marker and size, and refuses
/// damaged lists without trapping.
@Suite struct BinaryPropertyListReaderTests {
    // MARK: Comparing with Foundation

    /// A text that is equal for two decodings exactly when they hold the same values: UIDs by their index,
    /// dictionaries with their keys sorted, numbers by their text and what they cast to, dates by their bits.
    static func normalized(_ value: Any) -> String {
        if let index = KeyedArchive.uid(value) { return "uid(\(index))" }
        if type(of: value) == Bool.self, let flag = value as? Bool { return "bool(\(flag))" }
        if let text = value as? String { return "string(\(text.debugDescription))" }
        if let number = value as? NSNumber {
            // With the casts consumers make, so that a value of another type (a Swift `Int` for an `NSNumber`)
            // shows even when its text is the same.
            let casts = [value as? Int as Any, value as? Int64 as Any, value as? Bool as Any, value as? Double as Any]
            return "number(\(number.stringValue), casts \(casts))"
        }
        if let date = value as? Date { return "date(\(date.timeIntervalSinceReferenceDate.bitPattern))" }
        if let data = value as? Data { return "data(\(data.map { String($0, radix: 16) }.joined(separator: ".")))" }
        if value is NSNull { return "null" }
        if let array = value as? [Any] { return "[" + array.map(normalized).joined(separator: ", ") + "]" }
        if let dictionary = value as? [AnyHashable: Any] {
            let entries = dictionary.map { normalized($0.key.base) + ": " + normalized($0.value) }.sorted()
            return "{" + entries.joined(separator: ", ") + "}"
        }
        return "unknown(\(type(of: value)))"
    }

    /// Expects the reader and Foundation to decode `data` to the same values.
    static func expectSameAsFoundation(_ data: Data, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let foundation: Any
        do { foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            Issue.record("Foundation refuses \(comment)", sourceLocation: sourceLocation)
            return
        }
        let ours = try BinaryPropertyListReader.decode(data, allowingUIDs: true)
        #expect(normalized(ours) == normalized(foundation), Comment(rawValue: comment), sourceLocation: sourceLocation)
        #expect(!normalized(ours).contains("unknown("), Comment(rawValue: comment), sourceLocation: sourceLocation)
    }

    /// Every file of the shared fixtures that is a binary property list (`.mom`, `.omo`, `.cdm`, Xcode's
    /// `elements`/`layout`, `VersionInfo.plist`): read in place, never written.
    static func fixtureBinaryPropertyLists() -> [URL] {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let root = package.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var found: [URL] = []
        for case let url as URL in walker {
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            let head = (try? handle.read(upToCount: 8)) ?? Data()
            try? handle.close()
            if head == Data("bplist00".utf8) { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    @Test func readsApplesFilesAsFoundationDoes() throws {
        let files = Self.fixtureBinaryPropertyLists()
        try #require(files.count >= 10, "the shared fixtures hold Apple's .mom files and Xcode's binary models")
        var compared = 0
        for url in files {
            let data = try Data(contentsOf: url)
            // Some files Foundation refuses (`.omo` files are not property lists despite their header; two of
            // Xcode's old `layout`/`elements` files have offset tables pointing at garbage): nothing to compare.
            guard (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) != nil else {
                _ = try? BinaryPropertyListReader.decode(data, allowingUIDs: true)
                continue
            }
            try Self.expectSameAsFoundation(data, url.lastPathComponent)
            compared += 1
        }
        #expect(compared >= 10)
    }

    /// Lists written by Foundation's writer: every value kind, counts stored in the marker and in 1-, 2- and
    /// 4-byte integers, 1-, 2- and 4-byte references and offsets, negative and 16-byte integers, 4-byte reals.
    @Test func readsFoundationsBinaryWriterAsFoundationDoes() throws {
        let small: [String: Any] = [
            "text": "plain", "unicode": "émile ☃ 𝄞", "long": String(repeating: "long text ", count: 40),
            "int": 7, "byte": 200, "short": 60_000, "word": 4_000_000_000, "big": Int64.max, "min": Int64.min, "negative": -1,
            "unsigned": NSNumber(value: UInt64.max), "float": NSNumber(value: Float(1.5)), "double": 0.1, "true": true, "false": false,
            "date": Date(timeIntervalSinceReferenceDate: 123_456.789), "data": Data((0..<300).map { UInt8($0 % 256) }), "empty": Data(),
            "array": [1, "two", [3.0, ["four": 4]]], "emptyArray": [Any](), "emptyDictionary": [String: Any](),
            "shared": ["same", "same", "same"], "bigData": Data(repeating: 1, count: 70_000),
        ]
        try Self.expectSameAsFoundation(try PropertyListSerialization.data(fromPropertyList: small, format: .binary, options: 0), "every kind")
        // Over 255 and over 65,535 distinct objects: 2- and 4-byte references and offsets.
        for count in [300, 70_000] {
            let list = (0..<count).map { "item \($0)" }
            try Self.expectSameAsFoundation(try PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0), "\(count) strings")
        }
    }

    /// Lists written by this package's encoder (the binary store's and model writer's): UIDs of every size.
    @Test func readsThisPackagesEncoderAsFoundationDoes() throws {
        let value = BinaryPropertyList.Value.dictionary([
            ("$archiver", .string("NSKeyedArchiver")), ("$version", .integer(100_000)),
            ("$objects", .array([.string("$null"), .uid(1), .uid(300), .uid(70_000), .real(-2.5), .bool(true),
                                 .date(Date(timeIntervalSinceReferenceDate: -1)), .data(Data([0, 255])), .integer(-7), .string("ü")])),
            ("$top", .dictionary([("root", .uid(1))])),
        ])
        try Self.expectSameAsFoundation(BinaryPropertyList.encode(value), "package encoder")
    }

    // MARK: Hand-made lists

    /// One object of a hand-made list: bytes, or a container whose references are written at the list's size.
    enum HandMadeObject {
        case raw([UInt8])
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// `bplist00`, the objects, an offset table of `offsetSize`-byte offsets (after `padding` unused bytes, so
    /// that offsets need that size) and the trailer.
    static func handMade(_ objects: [HandMadeObject], offsetSize: Int = 1, referenceSize: Int = 1, padding: Int = 0, top: Int = 0) -> Data {
        func bigEndian(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func header(_ marker: UInt8, _ count: Int) -> [UInt8] { count < 15 ? [marker | UInt8(count)] : [marker | 0x0F, 0x10, UInt8(count)] }
        var bytes = Array("bplist00".utf8) + [UInt8](repeating: 0, count: padding)
        var offsets: [UInt8] = []
        for object in objects {
            offsets += bigEndian(bytes.count, offsetSize)
            switch object {
            case .raw(let raw): bytes += raw
            case .array(let references):
                bytes += header(0xA0, references.count) + references.flatMap { bigEndian($0, referenceSize) }
            case .dictionary(let keys, let values):
                bytes += header(0xD0, keys.count) + (keys + values).flatMap { bigEndian($0, referenceSize) }
            }
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)] + bigEndian(objects.count, 8) + bigEndian(top, 8) + bigEndian(table, 8)
        return Data(bytes)
    }

    /// An array of every leaf marker Foundation reads.
    static let everyMarker: [HandMadeObject] = [
        .array(Array(1...16)),
        .raw([0x00]), .raw([0x08]), .raw([0x09]),
        .raw([0x10, 0xFE]), .raw([0x11, 0xFF, 0xFE]), .raw([0x12, 0xFF, 0xFF, 0xFF, 0xFE]),
        .raw([0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]),
        .raw([0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)),
        .raw([0x14] + [UInt8](repeating: 0, count: 15) + [5]),
        .raw([0x22, 0x3F, 0xC0, 0, 0]), .raw([0x23, 0x3F, 0xB9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9A]),
        .raw([0x33, 0x41, 0xD0, 0, 0, 0, 0, 0, 0]),
        .raw([0x42, 1, 2]), .raw([0x5F, 0x11, 0, 2, 0x61, 0xE9]), .raw([0x62, 0, 0x61, 0xD8, 0x34]),
        .raw([0x82, 1, 0, 0]),
    ]

    @Test func readsEveryMarkerAndSizeAsFoundationDoes() throws {
        try Self.expectSameAsFoundation(Self.handMade(Self.everyMarker), "every marker")
        for size in 1...8 {
            try Self.expectSameAsFoundation(Self.handMade(Self.everyMarker, offsetSize: size, referenceSize: size), "offsets and references of \(size) bytes")
        }
        try Self.expectSameAsFoundation(Self.handMade(Self.everyMarker, offsetSize: 3, padding: 70_000), "offsets of 3 bytes that need them")
        let uids: [HandMadeObject] = [.array([1, 2, 3])] + [[0x80, 9], [0x87, 0, 0, 0, 0, 0, 0, 1, 0], [0x8F] + [UInt8](repeating: 0, count: 15) + [4]].map { .raw($0) }
        try Self.expectSameAsFoundation(Self.handMade(uids), "UIDs of 1, 8 and 16 bytes")
        let repeatedKey: [HandMadeObject] = [.dictionary(keys: [1, 1], values: [2, 3]), .raw([0x51, 0x61]), .raw([0x10, 1]), .raw([0x10, 2])]
        try Self.expectSameAsFoundation(Self.handMade(repeatedKey), "a repeated key")
        try Self.expectSameAsFoundation(Self.handMade([.raw([0x00])]), "null at the top")
    }

    @Test func decodesSharedObjectsOnce() throws {
        let list = Self.handMade([.array([1, 1, 2, 2]), .raw([0x10, 7]), .array([1])])
        let decoded = try #require(try BinaryPropertyListReader.decode(list, allowingUIDs: false) as? [Any])
        #expect(decoded.count == 4)
        #expect((decoded[0] as AnyObject) === (decoded[1] as AnyObject), "one NSNumber for both references")
        #expect((decoded[2] as? [Any])?.count == 1)
    }

    /// A UID over `UInt32.max` keeps its whole value (Foundation's keeps 32 bits, so no comparison with it).
    @Test func givesLargeUIDsWhole() throws {
        let list = Self.handMade([.array([1, 2]), .raw([0x84, 1, 0, 0, 0, 0]), .raw([0x8F] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 2, 0, 0, 0, 0])])
        let decoded = try #require(try BinaryPropertyListReader.decode(list, allowingUIDs: true) as? [Any])
        #expect(decoded.compactMap { $0 as? KeyedArchive.Reference }.map(\.index) == [1 << 32, 2 << 32])
    }

    // MARK: Refusals

    @Test func refusesWhatFoundationRefusesOrCannotDecodeSafely() {
        func refused(_ objects: [HandMadeObject], uids: Bool = true) -> Bool {
            (try? BinaryPropertyListReader.decode(Self.handMade(objects), allowingUIDs: uids)) == nil
        }
        #expect(refused([.array([1]), .raw([0x0F])]), "fill as a value")
        #expect(refused([.array([1]), .raw([0x15] + [UInt8](repeating: 0, count: 32))]), "a 32-byte integer")
        #expect(refused([.array([1]), .raw([0x14, 1] + [UInt8](repeating: 0, count: 15))]), "a 16-byte integer over UInt64.max")
        #expect(refused([.array([1]), .raw([0x21, 0, 0])]), "a 2-byte real")
        #expect(refused([.array([1]), .raw([0x80, 1])], uids: false), "a UID outside a keyed archive")
        #expect(refused([.array([1]), .raw([0x8F, 1] + [UInt8](repeating: 0, count: 15))]), "a UID over Int.max")
        #expect(refused([.raw([0xC1, 1]), .raw([0x10, 5])]), "a set")
        #expect(refused([.array([0])]), "an array that contains itself")
        #expect(refused([.dictionary(keys: [1], values: [0]), .raw([0x51, 0x61])]), "a dictionary that contains itself")
        #expect(refused([.dictionary(keys: [1], values: [1]), .raw([0x10, 1])]), "an integer key")
        #expect(refused([.array([5])]), "a reference past the objects")
        #expect(refused([.raw([0x5F, 0x10, 200])]), "a string longer than the file")
        let deep = (0...70).map { HandMadeObject.array($0 < 70 ? [$0 + 1] : []) }
        #expect(refused(deep), "nesting deeper than 64")
        #expect(!refused(Array(deep.suffix(60)).enumerated().map { $0.offset < 59 ? .array([$0.offset + 1]) : .array([]) }), "nesting of 60")
    }

    /// Damaged lists (truncated, flipped, inserted and removed bytes) are refused or decoded, never trap, and
    /// whenever the reader accepts one that Foundation decodes too, both give the same values.
    @Test func damagedListsAreRefusedOrDecodedLikeFoundation() throws {
        let sources = [
            Self.handMade(Self.everyMarker),
            try NSKeyedArchiver.archivedData(withRootObject: ["name": "value", "list": [1, 2, 3]] as NSDictionary, requiringSecureCoding: true),
        ]
        var random = SplitMix64(seed: 0xB1157)
        var refused = 0, same = 0
        for iteration in 0..<fuzzIterations(normal: 3_000) {
            let damaged = mutate(sources[iteration % sources.count], &random)
            guard let ours = try? BinaryPropertyListReader.decode(damaged, allowingUIDs: true) else { refused += 1; continue }
            guard let foundation = try? PropertyListSerialization.propertyList(from: damaged, options: [], format: nil) else { continue }
            #expect(Self.normalized(ours) == Self.normalized(foundation), "damage case \(iteration)")
            same += 1
        }
        #expect(refused > 0)
        #expect(same > 0)
    }
}

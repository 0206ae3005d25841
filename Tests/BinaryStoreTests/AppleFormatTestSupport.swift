import Testing
import CoreData
import StoreTestSupport
@testable import CoreDataBinary

/// A big-endian integer of `bytes` at `offset`.
func bigEndian<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, as: T.Type) -> T {
    bytes[offset..<(offset + MemoryLayout<T>.size)].reduce(T(0)) { $0 << 8 | T($1) }
}

/// The bytes of an Apple-format file with the header's fields set and no checksum (bytes 56–63 zero), as
/// Apple's Core Data writes them.
func appleFile(map: Data, metadata: Data, primaryKeyGeneration: UInt64) -> Data {
    func big<T: FixedWidthInteger>(_ value: T) -> [UInt8] { (0..<MemoryLayout<T>.size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    let header: [UInt8] = Array("CoreData".utf8) + big(UInt32(1)) + big(UInt32(134_481_920))
        + big(UInt64(64 + map.count)) + big(UInt64(metadata.count)) + big(UInt64(64)) + big(UInt64(map.count))
        + big(primaryKeyGeneration) + [UInt8](repeating: 0, count: 8)
    return Data(header) + map + metadata
}

/// `bytes` (an Apple-format file) with bytes 56–63 zeroed, so the reader checks no checksum and damage reaches
/// the archives.
func withoutChecksum(_ bytes: [UInt8]) -> Data {
    var copy = bytes
    if copy.count >= 64 { copy.replaceSubrange(56..<64, with: [UInt8](repeating: 0, count: 8)) }
    return Data(copy)
}

/// The bytes of the store at `url` (in Apple's format) rewritten in this package's earlier format, read and
/// written by the store's own reader and legacy encoder.
func legacyCopy(of url: URL, model: NSManagedObjectModel) throws -> Data {
    let request = StoreOpenRequest(model: model, configurationName: nil, url: url, options: [:])
    let snapshot = try BinaryStore.matchNames(in: BinaryStore.readSnapshot(from: url), to: request)
    return Data(try BinaryStoreEncoder().encode(snapshot))
}

/// An object archived by Foundation's `NSKeyedArchiver` under Apple's node class name, with Apple's keys: the
/// test's stand-in for a node Apple's Core Data writes.
final class AppleStyleNode: NSObject, NSCoding {
    let primaryKey: Int64
    let entityName: String
    let relatedNodes: [String: [Int64]]
    let attributeValues: [Any]

    init(primaryKey: Int64, entityName: String, relatedNodes: [String: [Int64]] = [:], attributeValues: [Any]) {
        self.primaryKey = primaryKey
        self.entityName = entityName
        self.relatedNodes = relatedNodes
        self.attributeValues = attributeValues
    }

    func encode(with coder: NSCoder) {
        coder.encode(primaryKey, forKey: "NSPrimaryKey64")
        coder.encode(NSString(string: entityName), forKey: "NSEntityName")
        if !relatedNodes.isEmpty {
            let related = NSMutableDictionary()
            for (name, keys) in relatedNodes { related[NSString(string: name)] = NSMutableArray(array: keys.map { NSNumber(value: $0) }) }
            coder.encode(related, forKey: "NSRelatedNodes")
        }
        // NSNull goes through a stand-in: corelibs' `NSNull.hash` differs from call to call, so an archive with
        // NSNull in it more than once can corrupt the archiver's table of objects and stop the process.
        coder.encode(NSArray(array: attributeValues.map { $0 is NSNull ? ArchivedNull() : $0 }), forKey: "NSAttributeValues")
    }

    init?(coder: NSCoder) {
        primaryKey = coder.decodeInt64(forKey: "NSPrimaryKey64")
        entityName = (coder.decodeObject(forKey: "NSEntityName") as? NSString).map { String($0) } ?? ""
        var related: [String: [Int64]] = [:]
        // swift-corelibs-foundation's unarchiver fails on a missing key rather than giving nil.
        if coder.containsValue(forKey: "NSRelatedNodes"), let dictionary = coder.decodeObject(forKey: "NSRelatedNodes") as? NSDictionary {
            for (key, value) in dictionary {
                guard let name = key as? NSString, let keys = value as? NSArray else { continue }
                related[String(name)] = keys.compactMap { ($0 as? NSNumber)?.int64Value }
            }
        }
        relatedNodes = related
        attributeValues = (coder.decodeObject(forKey: "NSAttributeValues") as? NSArray).map { $0.map { $0 } } ?? []
    }
}

/// `NSNull` as Foundation's archiver writes it (class name "NSNull", no fields), with the stable identity hash of
/// `NSObject`: swift-corelibs-foundation's `NSNull.hash` changes from one call to the next, which breaks the
/// archiver's dictionary of objects already written when NSNull occurs more than once (an intermittent "Duplicate
/// keys of type 'AnyHashable'" crash).
final class ArchivedNull: NSObject, NSCoding {
    override init() { super.init() }
    /// Archived under NSNull's own class (the archiver's `setClassName(_:for:)` is not applied to this class).
    override var classForKeyedArchiver: AnyClass? { NSNull.self }
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) { super.init() }
}

/// Archives `root` under `key` with Foundation's `NSKeyedArchiver`, nodes under Apple's class name.
func foundationArchive(_ root: Any, key: String) -> Data {
    let archiver = NSKeyedArchiver(requiringSecureCoding: false)
    archiver.setClassName("NSDictionaryMapNode", for: AppleStyleNode.self)
    archiver.encode(root, forKey: key)
    archiver.finishEncoding()
    return archiver.encodedData
}

/// An `NSUUID` or `NSDecimalNumber` decoded with the keys Apple's classes archive (their bytes inline, with
/// `encodeBytes:length:forKey:`), which swift-corelibs-foundation's own classes decode differently.
final class InlineBytesValue: NSObject, NSCoding {
    let fields: [String: Any]

    func encode(with coder: NSCoder) {}

    init?(coder: NSCoder) {
        var fields: [String: Any] = [:]
        for key in ["NS.uuidbytes", "NS.mantissa"] {
            if let bytes = coder.withDecodedUnsafeBufferPointer(forKey: key, body: { $0.map { Data(buffer: $0) } }) { fields[key] = bytes }
        }
        for key in ["NS.exponent", "NS.length", "NS.mantissa.bo"] where coder.containsValue(forKey: key) {
            fields[key] = Int(coder.decodeInt64(forKey: key))
        }
        for key in ["NS.negative", "NS.compact"] where coder.containsValue(forKey: key) { fields[key] = coder.decodeBool(forKey: key) }
        self.fields = fields
    }
}

/// Decodes an archive made by the store with Foundation's `NSKeyedUnarchiver`, nodes as `AppleStyleNode`.
func foundationUnarchive(_ data: Data, key: String) throws -> Any? {
    let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    unarchiver.requiresSecureCoding = false
    unarchiver.setClass(AppleStyleNode.self, forClassName: "NSDictionaryMapNode")
    unarchiver.setClass(InlineBytesValue.self, forClassName: "NSUUID")
    unarchiver.setClass(InlineBytesValue.self, forClassName: "NSDecimalNumber")
    defer { unarchiver.finishDecoding() }
    return unarchiver.decodeObject(forKey: key)
}

import CoreDataStoreKit

/// The constants of Apple's binary store file (`NSBinaryStoreType` on Apple's platforms), documented in
/// `Docs/BinaryStoreFormat.md` ("Apple's format"): a 64-byte big-endian header, then a keyed archive of the
/// object map, then a keyed archive of the metadata.
package enum AppleBinaryStoreFormat {
    /// The first 8 bytes of every file: "CoreData".
    package static let magic: [UInt8] = Array("CoreData".utf8)
    /// The header's size; the map archive starts right after it in the files Apple writes.
    static let headerSize = 64
    /// The header layout version Apple writes and reads (offset 8).
    static let headerVersion: UInt32 = 1
    /// The store map version Apple writes and refuses to read any other of (offset 12; 0x08040000).
    static let databaseVersion: UInt32 = 134_481_920
    /// Bytes 56–59: present when this package wrote the file and put a CRC-32 in bytes 60–63. Apple writes
    /// zeros there (reserved) and ignores them when it reads.
    static let checksumTag: [UInt8] = Array("CDCK".utf8)

    /// The `$top` key of the archive holding the object map.
    static let mapRootKey = "mapData"
    /// The `$top` key of the archive holding the metadata dictionary.
    static let metadataRootKey = "metadata"

    /// The class and keys of one archived object (`NSDictionaryMapNode`, a subclass of `NSStoreMapNode`).
    enum Node {
        static let className = "NSDictionaryMapNode"
        static let superclasses = ["NSStoreMapNode"]
        /// The object's primary key (a 64-bit integer), when its key is a number.
        static let primaryKey = "NSPrimaryKey64"
        /// The object's key as an archived object, when `NSPrimaryKey64` is absent or 0.
        static let key = "NSKey"
        /// The name of the object's entity.
        static let entityName = "NSEntityName"
        /// Relationship name → array of destination keys; only relationships with destinations.
        static let relatedNodes = "NSRelatedNodes"
        /// Attribute values by position in Apple's property order (`ApplePropertyOrder`), `NSNull` for none.
        static let attributeValues = "NSAttributeValues"
        /// Attribute values by name (the older form, which Apple's reader still accepts).
        static let attributesByName = "NSAttributes"
        /// This package's addition, ignored by Apple's reader: the property names of `NSAttributeValues`'s
        /// positions, so a file can be read by a model whose properties differ (a migration).
        static let propertyNames = "CDPropertyNames"
    }

    /// The header's fields, in file order.
    struct Header {
        var headerVersion: UInt32
        var databaseVersion: UInt32
        var metadataOffset: UInt64
        var metadataLength: UInt64
        var mapOffset: UInt64
        var mapLength: UInt64
        /// The last primary key given out (one sequence for the whole store).
        var primaryKeyGeneration: UInt64
        /// Bytes 56–63: zero in Apple's files; `checksumTag` and a CRC-32 in this package's.
        var reserved: [UInt8]

        /// The header at the start of `file` (which holds at least `headerSize` bytes).
        init(reading file: UnsafeRawBufferPointer) {
            func word32(_ offset: Int) -> UInt32 { file[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
            func word64(_ offset: Int) -> UInt64 { file[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
            headerVersion = word32(8)
            databaseVersion = word32(12)
            metadataOffset = word64(16)
            metadataLength = word64(24)
            mapOffset = word64(32)
            mapLength = word64(40)
            primaryKeyGeneration = word64(48)
            reserved = Array(file[56..<64])
        }

        /// The header of a file holding a map archive of `mapLength` bytes then a metadata archive.
        init(mapLength: Int, metadataLength: Int, primaryKeyGeneration: Int64) {
            headerVersion = AppleBinaryStoreFormat.headerVersion
            databaseVersion = AppleBinaryStoreFormat.databaseVersion
            mapOffset = UInt64(AppleBinaryStoreFormat.headerSize)
            self.mapLength = UInt64(mapLength)
            metadataOffset = UInt64(AppleBinaryStoreFormat.headerSize + mapLength)
            self.metadataLength = UInt64(metadataLength)
            self.primaryKeyGeneration = UInt64(max(primaryKeyGeneration, 0))
            reserved = [UInt8](repeating: 0, count: 8)
        }

        /// The 64 bytes, big-endian.
        var bytes: [UInt8] {
            func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
                (0..<MemoryLayout<T>.size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            }
            return AppleBinaryStoreFormat.magic + bigEndian(headerVersion) + bigEndian(databaseVersion)
                + bigEndian(metadataOffset) + bigEndian(metadataLength) + bigEndian(mapOffset) + bigEndian(mapLength)
                + bigEndian(primaryKeyGeneration) + reserved
        }
    }

    /// The CRC-32 of a whole file with its bytes 60–63 (where the checksum goes) counted as zero, computed in
    /// place (no copy of the file).
    static func checksum(of file: UnsafeRawBufferPointer) -> UInt32 {
        let checksumRange = 60..<64
        let before = UnsafeRawBufferPointer(rebasing: file[..<min(checksumRange.lowerBound, file.count)])
        var state = CRC32.update(CRC32.initial, with: before)
        let zeroCount = min(file.count, checksumRange.upperBound) - before.count
        if zeroCount > 0 {
            let zeros = [UInt8](repeating: 0, count: zeroCount)
            state = zeros.withUnsafeBytes { CRC32.update(state, with: $0) }
        }
        if file.count > checksumRange.upperBound {
            state = CRC32.update(state, with: UnsafeRawBufferPointer(rebasing: file[checksumRange.upperBound...]))
        }
        return CRC32.finish(state)
    }

    /// Puts the checksum tag and the CRC-32 (big-endian) in bytes 56–63 of `file`, a whole file of at least
    /// `headerSize` bytes.
    static func seal(_ file: inout [UInt8]) {
        file.replaceSubrange(56..<60, with: checksumTag)
        let crc = file.withUnsafeBytes { checksum(of: $0) }
        for index in 0..<4 { file[60 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(3 - index))) }
    }
}

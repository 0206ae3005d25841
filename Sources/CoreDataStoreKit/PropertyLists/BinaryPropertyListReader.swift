import Foundation

/// Decodes a binary property list (`bplist00`) into Swift values in one pass that also validates it, without
/// Foundation: the values are those swift-corelibs-foundation's `PropertyListSerialization` gives on Linux, so
/// code written against its result reads this one unchanged.
///
/// | Marker | Value |
/// | --- | --- |
/// | null (`0x00`) | `NSNull` |
/// | false, true (`0x08`, `0x09`) | `Bool` |
/// | integer of 1, 2, 4 bytes (unsigned), 8 bytes (signed) | `NSNumber` holding an `Int64` |
/// | integer of 16 bytes (Apple writes `UInt64` values above `Int64.max` so) | `NSNumber` (`UInt64` when over `Int64.max`) |
/// | real of 4 or 8 bytes | `NSNumber` holding a `Float` or `Double` |
/// | date | `Date` |
/// | data | `Data` |
/// | ASCII string (bytes over 127 read as ISO Latin 1, as Foundation does), UTF-16 string | `String` |
/// | UID of 1 to 16 bytes (keyed archives only) | `KeyedArchive.Reference` |
/// | array | `[Any]` |
/// | dictionary | `[String: Any]` (with a repeated key, the first entry wins, as in Foundation) |
///
/// Refused (the decoding throws `Damage`): a file shorter than header and trailer or with another header; a
/// trailer whose sizes or offsets are out of range; an object outside the object area, with an unknown marker
/// (including fill, `0x0F`, which Foundation refuses too) or extending past it; a reference to an object that
/// does not exist; a dictionary key that is not a string; a container that contains itself; nesting deeper
/// than `BinaryPropertyListCheck.maximumDepth`; sets and ordered sets (Foundation on Linux crashes bridging
/// them, and no store or archive this package reads holds one); UIDs unless allowed; a 16-byte integer outside
/// `0...UInt64.max` (which Apple's writer never makes; Foundation would silently keep its low 64 bits); a UID
/// over `Int.max`. No input traps: every read is bounds-checked.
///
/// An object referred to from several places (keyed archives share their keys, class descriptions and
/// strings) is decoded once and the same value given to each place.
enum BinaryPropertyListReader {
    /// Why a binary property list was refused.
    struct Damage: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The value of the top object of the binary property list `data`. With `allowingUIDs`, UIDs (the
    /// references of a keyed archive) are accepted and given as `KeyedArchive.Reference`.
    /// - Throws: `Damage` saying what is wrong, for anything listed as refused above.
    static func decode(_ data: Data, allowingUIDs: Bool) throws -> Any {
        var reader = try Reader(bytes: [UInt8](data), allowsUIDs: allowingUIDs)
        return try reader.value(of: reader.topObject, depth: 0)
    }

    /// The state of one decoding: the file, its trailer, and what has been decoded so far.
    private struct Reader {
        /// What is known of one object.
        enum Slot {
            case unvisited
            /// Being decoded: reaching it again means a container contains itself.
            case inProgress
            case decoded(Any)
        }

        let bytes: [UInt8]
        let allowsUIDs: Bool
        let offsetSize: Int
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        /// Where the offset table begins, which is also where the object area ends.
        let offsetTable: Int
        var slots: [Slot]

        /// Reads and checks the header and trailer.
        init(bytes: [UInt8], allowsUIDs: Bool) throws {
            self.bytes = bytes
            self.allowsUIDs = allowsUIDs
            guard bytes.count >= 8 + 1 + 32, bytes[0..<8].elementsEqual("bplist00".utf8) else {
                throw Damage("not a bplist00 binary property list, or shorter than its header and trailer")
            }
            let trailer = bytes.count - 32
            guard let offsetSize = Self.number(in: bytes, at: trailer + 6, size: 1),
                  let referenceSize = Self.number(in: bytes, at: trailer + 7, size: 1),
                  let objectCount = Self.number(in: bytes, at: trailer + 8, size: 8),
                  let topObject = Self.number(in: bytes, at: trailer + 16, size: 8),
                  let offsetTable = Self.number(in: bytes, at: trailer + 24, size: 8),
                  (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount >= 1, topObject < objectCount,
                  offsetTable >= 9, offsetTable <= trailer, objectCount <= (trailer - offsetTable) / offsetSize
            else { throw Damage("the trailer's sizes or offsets are out of range") }
            self.offsetSize = offsetSize
            self.referenceSize = referenceSize
            self.objectCount = objectCount
            self.topObject = topObject
            self.offsetTable = offsetTable
            slots = Array(repeating: .unvisited, count: objectCount)
        }

        /// The big-endian unsigned number of `size` (1–8) bytes at `at`; nil past the end or over `Int.max`.
        static func number(in bytes: [UInt8], at: Int, size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for index in at..<(at + size) { value = value << 8 | UInt64(bytes[index]) }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }

        /// The big-endian bits of `size` (1–8) bytes at `at`, which the caller has checked lie in the file.
        func bits(at: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in at..<(at + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        /// Whether `length` bytes from `at` lie inside the object area.
        func fits(_ at: Int, _ length: Int) -> Bool { length >= 0 && at >= 0 && at <= offsetTable && length <= offsetTable - at }

        /// The start of object `index` in the object area.
        func start(of index: Int) throws -> Int {
            guard index >= 0, index < objectCount,
                  let offset = Self.number(in: bytes, at: offsetTable + index * offsetSize, size: offsetSize),
                  offset >= 8, offset < offsetTable
            else { throw Damage("object \(index) does not exist or lies outside the object area") }
            return offset
        }

        /// The element count of the object whose marker is at `at` (in the marker, or in the integer object
        /// after it when the marker's low nibble is 15), and where its contents begin.
        func count(at: Int) throws -> (count: Int, contents: Int) {
            let low = Int(bytes[at] & 0x0F)
            guard low == 0x0F else { return (low, at + 1) }
            guard at + 1 < offsetTable, bytes[at + 1] & 0xF0 == 0x10 else { throw Damage("object at \(at) has a bad count") }
            let size = 1 << Int(bytes[at + 1] & 0x0F)
            guard size <= 8, at + 2 + size <= offsetTable, let count = Self.number(in: bytes, at: at + 2, size: size) else {
                throw Damage("object at \(at) has a bad count")
            }
            return (count, at + 2 + size)
        }

        /// The value of object `index`, decoded once and then given from `slots`.
        mutating func value(of index: Int, depth: Int) throws -> Any {
            if index >= 0, index < slots.count {
                switch slots[index] {
                case .decoded(let value): return value
                case .inProgress: throw Damage("object \(index) contains itself")
                case .unvisited: break
                }
            }
            guard depth <= BinaryPropertyListCheck.maximumDepth else { throw Damage("nesting deeper than \(BinaryPropertyListCheck.maximumDepth) levels") }
            let at = try start(of: index)
            let value: Any
            switch bytes[at] >> 4 {
            case 0xA, 0xD:
                slots[index] = .inProgress
                value = try container(at: at, depth: depth)
            default:
                value = try leaf(at: at)
            }
            slots[index] = .decoded(value)
            return value
        }

        /// The value of a leaf object (one that refers to no other) whose marker is at `at`.
        func leaf(at: Int) throws -> Any {
            let marker = bytes[at]
            let low = Int(marker & 0x0F)
            func require(_ length: Int) throws {
                guard fits(at + 1, length) else { throw Damage("object at \(at) extends past the object area") }
            }
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return NSNull()
                case 0x08: return false
                case 0x09: return true
                default: throw Damage("unknown marker \(marker) at \(at)")
                }
            case 0x1:
                guard low <= 4 else { throw Damage("an integer of \(1 << low) bytes at \(at)") }
                try require(1 << low)
                return try integer(at: at + 1, size: 1 << low)
            case 0x2:
                guard low == 2 || low == 3 else { throw Damage("a real of \(1 << low) bytes at \(at)") }
                try require(1 << low)
                if low == 2 { return NSNumber(value: Float(bitPattern: UInt32(bits(at: at + 1, size: 4)))) }
                return NSNumber(value: Double(bitPattern: bits(at: at + 1, size: 8)))
            case 0x3:
                guard marker == 0x33 else { throw Damage("unknown marker \(marker) at \(at)") }
                try require(8)
                return Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits(at: at + 1, size: 8)))
            case 0x4:
                let (count, contents) = try count(at: at)
                guard fits(contents, count) else { throw Damage("data at \(at) extends past the object area") }
                return Data(bytes[contents..<(contents + count)])
            case 0x5:
                let (count, contents) = try count(at: at)
                guard fits(contents, count) else { throw Damage("a string at \(at) extends past the object area") }
                return Self.latin1String(bytes[contents..<(contents + count)])
            case 0x6:
                let (count, contents) = try count(at: at)
                guard count <= Int.max / 2, fits(contents, count * 2) else { throw Damage("a string at \(at) extends past the object area") }
                let units = stride(from: contents, to: contents + count * 2, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                return String(decoding: units, as: UTF16.self)
            case 0x8:
                guard allowsUIDs else { throw Damage("a UID at \(at) outside a keyed archive") }
                try require(low + 1)
                let leading = low + 1 > 8 ? low + 1 - 8 : 0
                guard bytes[(at + 1)..<(at + 1 + leading)].allSatisfy({ $0 == 0 }),
                      let target = Self.number(in: bytes, at: at + 1 + leading, size: low + 1 - leading)
                else { throw Damage("a UID at \(at) over Int.max") }
                return KeyedArchive.Reference(index: target)
            default:
                throw Damage("unknown marker \(marker) at \(at)")
            }
        }

        /// An integer of `size` bytes at `at`: 1, 2 and 4 bytes unsigned, 8 bytes signed, 16 bytes signed but
        /// accepted only in `0...UInt64.max`.
        func integer(at: Int, size: Int) throws -> NSNumber {
            switch size {
            case 16:
                guard bits(at: at, size: 8) == 0 else { throw Damage("a 16-byte integer at \(at - 1) outside 0...UInt64.max") }
                let value = bits(at: at + 8, size: 8)
                return value <= UInt64(Int64.max) ? NSNumber(value: Int64(value)) : NSNumber(value: value)
            case 8: return NSNumber(value: Int64(bitPattern: bits(at: at, size: 8)))
            default: return NSNumber(value: Int64(bits(at: at, size: size)))
            }
        }

        /// An ASCII string object's bytes as text: ISO Latin 1, which is ASCII below 128.
        static func latin1String(_ bytes: ArraySlice<UInt8>) -> String {
            if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
            var text = ""
            text.unicodeScalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
            return text
        }

        /// An array or dictionary whose marker is at `at`: its references checked, then each element decoded
        /// (a dictionary's keys first, each required to be a string, then its values).
        mutating func container(at: Int, depth: Int) throws -> Any {
            let isDictionary = bytes[at] >> 4 == 0xD
            let (count, contents) = try count(at: at)
            guard count <= Int.max / 2 / referenceSize else { throw Damage("a container at \(at) is too long") }
            let referenceCount = isDictionary ? count * 2 : count
            guard fits(contents, referenceCount * referenceSize) else { throw Damage("a container at \(at) extends past the object area") }
            var elements: [Any] = []
            elements.reserveCapacity(referenceCount)
            for position in 0..<referenceCount {
                let reference = contents + position * referenceSize
                guard let child = Self.number(in: bytes, at: reference, size: referenceSize) else {
                    throw Damage("a reference at \(reference) is out of range")
                }
                if isDictionary, position < count {
                    let keyStart = try start(of: child)
                    guard [0x5, 0x6].contains(bytes[keyStart] >> 4) else { throw Damage("a dictionary key at \(keyStart) is not a string") }
                }
                elements.append(try value(of: child, depth: depth + 1))
            }
            guard isDictionary else { return elements }
            var dictionary: [String: Any] = Dictionary(minimumCapacity: count)
            // In reverse, so that the first of repeated keys is the one kept.
            for position in stride(from: count - 1, through: 0, by: -1) {
                guard let key = elements[position] as? String else { throw Damage("a dictionary key is not a string") }
                dictionary[key] = elements[count + position]
            }
            return dictionary
        }
    }
}

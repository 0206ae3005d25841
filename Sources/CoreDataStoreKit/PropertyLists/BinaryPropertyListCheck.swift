import Foundation

/// A structural check of a binary property list (`bplist00`) before Foundation decodes it.
///
/// swift-corelibs-foundation's `PropertyListSerialization` can crash (a null dereference while bridging a
/// set) on damaged binary property lists, so a store never hands it bytes read from a file without this
/// check: the trailer's sizes and offsets are in range, every object reachable from the top lies inside the
/// object area with a known marker and references objects that exist, dictionary keys are strings, no
/// container contains itself, nesting is bounded, and sets and ordered sets are refused. UIDs (which store
/// metadata never holds, and keyed archives are made of) are accepted only when asked for. An addition of this
/// package, not Apple API.
public enum BinaryPropertyListCheck {
    /// Deepest nesting accepted (metadata is a few levels deep).
    static let maximumDepth = 64

    /// Whether `data` is a well-formed binary property list that Foundation can decode safely. With
    /// `allowingUIDs`, UID objects (the references of an `NSKeyedArchiver` archive) are accepted too.
    public static func isWellFormed(_ data: Data, allowingUIDs: Bool = false) -> Bool {
        var reader = Reader(bytes: [UInt8](data), allowsUIDs: allowingUIDs)
        return reader.check()
    }

    /// Foundation's decoding of a property list read from a file, after this check when it is a binary one;
    /// nil when either refuses it.
    public static func propertyList(from data: Data, allowingUIDs: Bool = false) -> Any? {
        if data.starts(with: Array("bplist".utf8)), !isWellFormed(data, allowingUIDs: allowingUIDs) { return nil }
        return try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    private struct Reader {
        let bytes: [UInt8]
        let allowsUIDs: Bool
        var offsetSize = 0, referenceSize = 0, objectCount = 0, offsetTable = 0
        var done: Set<Int> = []
        var inProgress: Set<Int> = []

        init(bytes: [UInt8], allowsUIDs: Bool) {
            self.bytes = bytes
            self.allowsUIDs = allowsUIDs
        }

        /// The big-endian unsigned number of `size` bytes at `at`, or nil past the end or over `Int.max`.
        func number(at: Int, size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for index in at..<(at + size) { value = value << 8 | UInt64(bytes[index]) }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }

        mutating func check() -> Bool {
            guard bytes.count >= 8 + 1 + 32, bytes[0..<8].elementsEqual("bplist00".utf8) else { return false }
            let trailer = bytes.count - 32
            guard let offsetSize = number(at: trailer + 6, size: 1), let referenceSize = number(at: trailer + 7, size: 1),
                  let objectCount = number(at: trailer + 8, size: 8), let top = number(at: trailer + 16, size: 8),
                  let offsetTable = number(at: trailer + 24, size: 8),
                  (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount >= 1, top < objectCount,
                  offsetTable >= 9, objectCount <= (trailer - offsetTable) / offsetSize else { return false }
            self.offsetSize = offsetSize
            self.referenceSize = referenceSize
            self.objectCount = objectCount
            self.offsetTable = offsetTable
            return object(top, depth: 0)
        }

        /// The start of object `index` in the object area, or nil.
        func start(of index: Int) -> Int? {
            guard index >= 0, index < objectCount, let offset = number(at: offsetTable + index * offsetSize, size: offsetSize),
                  offset >= 8, offset < offsetTable else { return nil }
            return offset
        }

        /// The element count of the object whose marker is at `at`, and where its contents begin.
        func count(at: Int) -> (count: Int, contents: Int)? {
            let low = Int(bytes[at] & 0x0F)
            guard low == 0x0F else { return (low, at + 1) }
            guard at + 1 < offsetTable, bytes[at + 1] & 0xF0 == 0x10 else { return nil }
            let size = 1 << Int(bytes[at + 1] & 0x0F)
            guard size <= 8, at + 2 + size <= offsetTable, let count = number(at: at + 2, size: size) else { return nil }
            return (count, at + 2 + size)
        }

        /// Whether `length` bytes from `at` lie inside the object area.
        func fits(_ at: Int, _ length: Int) -> Bool { length >= 0 && at <= offsetTable && length <= offsetTable - at }

        mutating func object(_ index: Int, depth: Int) -> Bool {
            if done.contains(index) { return true }
            guard depth <= BinaryPropertyListCheck.maximumDepth, !inProgress.contains(index), let at = start(of: index) else { return false }
            let marker = bytes[at]
            let low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0: guard [0x00, 0x08, 0x09, 0x0F].contains(marker) else { return false }
            case 0x1: guard low <= 4, fits(at + 1, 1 << low) else { return false }
            case 0x2: guard low == 2 || low == 3, fits(at + 1, 1 << low) else { return false }
            case 0x3: guard marker == 0x33, fits(at + 1, 8) else { return false }
            case 0x4, 0x5:
                guard let (count, contents) = count(at: at), fits(contents, count) else { return false }
            case 0x6:
                guard let (count, contents) = count(at: at), count <= Int.max / 2, fits(contents, count * 2) else { return false }
            case 0x8:
                guard allowsUIDs, low < 8, fits(at + 1, low + 1) else { return false }
            case 0xA, 0xD:
                guard let (count, contents) = count(at: at) else { return false }
                guard count <= Int.max / 2 / referenceSize else { return false }
                let references = marker >> 4 == 0xD ? count * 2 : count
                guard fits(contents, references * referenceSize) else { return false }
                inProgress.insert(index)
                for position in 0..<references {
                    guard let child = number(at: contents + position * referenceSize, size: referenceSize) else { return false }
                    if marker >> 4 == 0xD, position < count {
                        guard let keyStart = start(of: child), [0x5, 0x6].contains(bytes[keyStart] >> 4) else { return false }
                    }
                    guard object(child, depth: depth + 1) else { return false }
                }
                inProgress.remove(index)
            default: return false
            }
            done.insert(index)
            return true
        }
    }
}

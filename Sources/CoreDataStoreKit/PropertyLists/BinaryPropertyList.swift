/// A property-list value that can hold keyed-archiver references (`UID`), and its binary (`bplist00`) encoding,
/// which `PropertyListSerialization` reads back on every platform (it has no public way to write a `UID`).
///
/// The encoding is the documented binary format: header `bplist00`, the objects, the offset table, the
/// 32-byte trailer. Equal leaf objects are written once; dictionaries keep their entries in the order given.
package enum BinaryPropertyList {
    package indirect enum Value {
        case string(String)
        case integer(Int64)
        case real(Double)
        case bool(Bool)
        case date(Date)
        case data(Data)
        case uid(Int)
        case array([Value])
        case dictionary([(String, Value)])
    }

    /// The binary encoding of `root`.
    ///
    /// Objects are numbered depth first (a container before its children, a dictionary's keys before its
    /// values); equal leaves (strings, numbers, dates, data, UIDs) are written once, as Apple's writer does,
    /// since a keyed archive repeats the same keys and references in every object. The work is linear in the
    /// size of the result: leaf encodings go into one growing buffer and the file into another, with no
    /// array made per object.
    static func encode(_ root: Value) -> Data {
        var encoder = Encoder()
        let top = encoder.add(root)
        return Data(encoder.file(top: top))
    }

    /// The objects of a property list being encoded, in file order.
    private struct Encoder {
        /// One object: a leaf's encoding (a range of `leafBytes`), or a container's marker and element count
        /// with the numbers of the objects it refers to (a dictionary's keys, then its values).
        enum Entry {
            case leaf(Range<Int>)
            case container(marker: UInt8, count: Int, references: [Int])
        }

        var entries: [Entry] = []
        var leafBytes: [UInt8] = []
        /// The number of the object already holding each distinct leaf encoding.
        var leafNumbers: [[UInt8]: Int] = [:]
        /// The encoding of the leaf being added.
        var scratch: [UInt8] = []

        /// Adds `value` (and, for a container, everything it holds); the object's number.
        mutating func add(_ value: Value) -> Int {
            scratch.removeAll(keepingCapacity: true)
            if BinaryPropertyList.appendLeaf(value, to: &scratch) {
                if let number = leafNumbers[scratch] { return number }
                let number = entries.count
                leafNumbers[scratch] = number
                entries.append(.leaf(leafBytes.count..<(leafBytes.count + scratch.count)))
                leafBytes.append(contentsOf: scratch)
                return number
            }
            let number = entries.count
            entries.append(.leaf(0..<0))   // the container's place, filled once its children are numbered
            switch value {
            case .string, .integer, .real, .bool, .date, .data, .uid: break
            case .array(let items):
                var references: [Int] = []
                references.reserveCapacity(items.count)
                for item in items { references.append(add(item)) }
                entries[number] = .container(marker: 0xA0, count: items.count, references: references)
            case .dictionary(let pairs):
                var references: [Int] = []
                references.reserveCapacity(pairs.count * 2)
                for pair in pairs { references.append(add(.string(pair.0))) }
                for pair in pairs { references.append(add(pair.1)) }
                entries[number] = .container(marker: 0xD0, count: pairs.count, references: references)
            }
            return number
        }

        /// The whole file: header, objects, offset table and trailer, with `top` as the top object.
        func file(top: Int) -> [UInt8] {
            let referenceSize = entries.count <= 0xFF ? 1 : entries.count <= 0xFFFF ? 2 : 4
            var out: [UInt8] = Array("bplist00".utf8)
            out.reserveCapacity(8 + leafBytes.count + entries.count * (2 + referenceSize + 4) + 32)
            var offsets: [Int] = []
            offsets.reserveCapacity(entries.count)
            for entry in entries {
                offsets.append(out.count)
                switch entry {
                case .leaf(let range):
                    out.append(contentsOf: leafBytes[range])
                case .container(let marker, let count, let references):
                    BinaryPropertyList.appendHeader(marker, count, to: &out)
                    for reference in references { BinaryPropertyList.appendBigEndian(UInt64(reference), referenceSize, to: &out) }
                }
            }
            let tableOffset = out.count
            let offsetSize = tableOffset <= 0xFF ? 1 : tableOffset <= 0xFFFF ? 2 : tableOffset <= 0xFFFF_FFFF ? 4 : 8
            for offset in offsets { BinaryPropertyList.appendBigEndian(UInt64(offset), offsetSize, to: &out) }
            out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
            BinaryPropertyList.appendBigEndian(UInt64(entries.count), 8, to: &out)
            BinaryPropertyList.appendBigEndian(UInt64(top), 8, to: &out)
            BinaryPropertyList.appendBigEndian(UInt64(tableOffset), 8, to: &out)
            return out
        }
    }

    /// Appends the encoding of a value that refers to no other object; false (nothing appended) for an array
    /// or a dictionary.
    private static func appendLeaf(_ value: Value, to out: inout [UInt8]) -> Bool {
        switch value {
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                appendHeader(0x50, text.utf8.count, to: &out)
                out.append(contentsOf: text.utf8)
            } else {
                appendHeader(0x60, text.utf16.count, to: &out)
                for unit in text.utf16 { out.append(UInt8(unit >> 8)); out.append(UInt8(unit & 0xFF)) }
            }
        case .integer(let number): appendInteger(number, to: &out)
        case .real(let number): out.append(0x23); appendBigEndian(number.bitPattern, 8, to: &out)
        case .bool(let flag): out.append(flag ? 0x09 : 0x08)
        case .date(let date): out.append(0x33); appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, 8, to: &out)
        case .data(let bytes): appendHeader(0x40, bytes.count, to: &out); out.append(contentsOf: bytes)
        case .uid(let target):
            let size = target <= 0xFF ? 1 : target <= 0xFFFF ? 2 : target <= 0xFFFF_FFFF ? 4 : 8
            out.append(0x80 | UInt8(size - 1))
            appendBigEndian(UInt64(target), size, to: &out)
        case .array, .dictionary: return false
        }
        return true
    }

    /// A marker with a count: in the low nibble below 15, else 0xF and an integer object.
    private static func appendHeader(_ marker: UInt8, _ count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            appendInteger(Int64(count), to: &out)
        }
    }

    /// An integer object: 1, 2, 4 or 8 bytes (negative numbers take 8, as Apple writes them).
    private static func appendInteger(_ number: Int64, to out: inout [UInt8]) {
        if number < 0 { out.append(0x13); appendBigEndian(UInt64(bitPattern: number), 8, to: &out) }
        else if number <= 0xFF { out.append(0x10); appendBigEndian(UInt64(number), 1, to: &out) }
        else if number <= 0xFFFF { out.append(0x11); appendBigEndian(UInt64(number), 2, to: &out) }
        else if number <= 0xFFFF_FFFF { out.append(0x12); appendBigEndian(UInt64(number), 4, to: &out) }
        else { out.append(0x13); appendBigEndian(UInt64(number), 8, to: &out) }
    }

    /// The low `size` bytes of `value`, most significant first.
    private static func appendBigEndian(_ value: UInt64, _ size: Int, to out: inout [UInt8]) {
        var shift = 8 * (size - 1)
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}

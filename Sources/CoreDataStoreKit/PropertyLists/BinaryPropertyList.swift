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
    static func encode(_ root: Value) -> Data {
        var objects: [[UInt8]] = []
        var references: [[Int]] = []   // per object: the objects it refers to, patched once the reference size is known
        var kinds: [(marker: UInt8, count: Int)?] = []
        // Equal leaves (strings, numbers, dates, data, UIDs) are written once, as Apple's writer does: a keyed
        // archive repeats the same keys and references in every object.
        var leaves: [[UInt8]: Int] = [:]
        func add(_ value: Value) -> Int {
            if let bytes = leafBytes(value) {
                if let index = leaves[bytes] { return index }
                leaves[bytes] = objects.count
                objects.append(bytes)
                references.append([])
                kinds.append(nil)
                return objects.count - 1
            }
            let index = objects.count
            objects.append([])
            references.append([])
            kinds.append(nil)
            switch value {
            case .string, .integer, .real, .bool, .date, .data, .uid: break
            case .array(let items):
                let children = items.map(add)
                references[index] = children
                kinds[index] = (0xA0, children.count)
            case .dictionary(let entries):
                let keys = entries.map { add(.string($0.0)) }
                let values = entries.map { add($0.1) }
                references[index] = keys + values
                kinds[index] = (0xD0, entries.count)
            }
            return index
        }
        let top = add(root)
        let referenceSize = objects.count <= 0xFF ? 1 : objects.count <= 0xFFFF ? 2 : 4
        for index in objects.indices {
            guard let kind = kinds[index] else { continue }
            objects[index] = header(kind.marker, kind.count) + references[index].flatMap { bigEndian(UInt64($0), referenceSize) }
        }
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let tableOffset = out.count
        let offsetSize = tableOffset <= 0xFF ? 1 : tableOffset <= 0xFFFF ? 2 : tableOffset <= 0xFFFF_FFFF ? 4 : 8
        for offset in offsets { out += bigEndian(UInt64(offset), offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out += bigEndian(UInt64(objects.count), 8) + bigEndian(UInt64(top), 8) + bigEndian(UInt64(tableOffset), 8)
        return Data(out)
    }

    /// The encoding of a value that refers to no other object, or nil for an array or a dictionary.
    private static func leafBytes(_ value: Value) -> [UInt8]? {
        switch value {
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x50, text.utf8.count) + Array(text.utf8) }
            let units = Array(text.utf16)
            return header(0x60, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .integer(let number): return integer(number)
        case .real(let number): return [0x23] + bigEndian(number.bitPattern, 8)
        case .bool(let flag): return [flag ? 0x09 : 0x08]
        case .date(let date): return [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, 8)
        case .data(let bytes): return header(0x40, bytes.count) + Array(bytes)
        case .uid(let target):
            let size = target <= 0xFF ? 1 : target <= 0xFFFF ? 2 : target <= 0xFFFF_FFFF ? 4 : 8
            return [0x80 | UInt8(size - 1)] + bigEndian(UInt64(target), size)
        case .array, .dictionary: return nil
        }
    }

    /// A marker with a count: in the low nibble below 15, else 0xF and an integer object.
    private static func header(_ marker: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [marker | UInt8(count)] : [marker | 0x0F] + integer(Int64(count))
    }

    /// An integer object: 1, 2, 4 or 8 bytes (negative numbers take 8, as Apple writes them).
    private static func integer(_ number: Int64) -> [UInt8] {
        if number < 0 { return [0x13] + bigEndian(UInt64(bitPattern: number), 8) }
        if number <= 0xFF { return [0x10] + bigEndian(UInt64(number), 1) }
        if number <= 0xFFFF { return [0x11] + bigEndian(UInt64(number), 2) }
        if number <= 0xFFFF_FFFF { return [0x12] + bigEndian(UInt64(number), 4) }
        return [0x13] + bigEndian(UInt64(number), 8)
    }

    private static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

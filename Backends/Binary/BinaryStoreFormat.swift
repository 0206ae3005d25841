/// The constants of the binary store format. `Docs/BinaryStoreFormat.md` describes the whole layout.
package enum BinaryStoreFormat {
    /// The first 8 bytes of every file: 0x89 "CDBIN" CR LF (a high byte and a line ending catch files mangled
    /// by text-mode transfers, as PNG's signature does).
    package static let magic: [UInt8] = [0x89, 0x43, 0x44, 0x42, 0x49, 0x4E, 0x0D, 0x0A]
    /// The format version this library writes and the only one it reads.
    static let version: UInt16 = 1
    /// Bytes before the body: magic (8), version (2), flags (2), reserved (4), body length (8), store UUID (16).
    static let headerSize = 40
    /// Bytes after the body: the CRC-32 of everything before it.
    static let trailerSize = 4

    /// What a table column holds.
    enum ColumnKind: UInt8 {
        case attribute = 0
        case toOne = 1
        case toMany = 2
    }

    /// The tag byte in front of every stored value, naming its type.
    enum Tag: UInt8 {
        case none = 0
        case int16 = 1
        case int32 = 2
        case int64 = 3
        case decimal = 4
        case double = 5
        case float = 6
        case string = 7
        case boolFalse = 8
        case boolTrue = 9
        case date = 10
        case data = 11
        case uuid = 12
        case url = 13
        case reference = 14
        case references = 15
    }
}

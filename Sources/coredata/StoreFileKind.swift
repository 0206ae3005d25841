import CoreData
import CoreDataBinary
import CoreDataModelCommands
import Foundation

/// What a store file holds, told by its first bytes rather than its name, so `store.wiredatabase` or a file
/// without an extension opens as what it is.
///
/// - SQLite: the 16-byte header `SQLite format 3\0`.
/// - XML (Apple's XML store): `<?xml` (after an optional byte-order mark and white space), with a `<database`
///   element in the first 4 KB (Apple's files have it on the third line).
/// - Binary (Docs/BinaryStoreFormat.md): Apple's magic `CoreData`, or the 8-byte magic `89 43 44 42 49 4E 0D 0A`
///   of this package's earlier format.
/// - A bare binary property list (`bplist00`) is no store: refused with 134091.
///
/// A PostgreSQL store is no file: it is named by its connection URI (`postgresql://…`, `postgres://…`), told
/// by that prefix (`isPostgreSQLURI(_:)`).
enum StoreFileKind: String {
    case sqlite, xml, binary, postgresql

    /// The kind in a sentence: "a SQLite store", "an XML store", "a binary store".
    var name: String {
        switch self {
        case .sqlite: return "a SQLite store"
        case .xml: return "an XML store"
        case .binary: return "a binary store"
        case .postgresql: return "a PostgreSQL store"
        }
    }

    /// How many bytes detection reads.
    static let prefixLength = 4096

    /// The store type name the coordinator knows this kind by.
    var storeType: String {
        switch self {
        case .sqlite: return NSSQLiteStoreType
        case .xml: return NSXMLStoreType
        case .binary: return NSBinaryStoreType
        case .postgresql: return NSPostgreSQLStoreType
        }
    }

    /// Whether the store argument `text` is a PostgreSQL connection URI rather than a file path.
    static func isPostgreSQLURI(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// The kind of the store the argument `text` names: a PostgreSQL store for a connection URI, else the
    /// kind of the file's content (`detect(at:)`), with the URL to open it at.
    /// - Throws: 134000 for a connection URI that is not a URL; the errors of `detect(at:)`.
    static func locate(_ text: String) throws -> (StoreFileKind, URL) {
        guard isPostgreSQLURI(text) else {
            let url = URL(fileURLWithPath: text)
            return (try detect(at: url), url)
        }
        guard let url = URL(string: text) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "\(text) is not a valid PostgreSQL connection URI.")
        }
        return (.postgresql, url)
    }

    /// The kind `--type` names (`sqlite`, `xml`, `binary`, or a store type name such as `SQLite`), or `--to`
    /// (`option`), which also takes `postgresql` (`allowsPostgreSQL`).
    /// - Throws: a `UsageError` for any other word.
    init(typeOption: String, option: String = "--type", allowsPostgreSQL: Bool = false) throws {
        switch typeOption.lowercased() {
        case "sqlite": self = .sqlite
        case "xml": self = .xml
        case "binary": self = .binary
        case "postgresql" where allowsPostgreSQL, "postgres" where allowsPostgreSQL: self = .postgresql
        default:
            throw UsageError("\(option) must be \(allowsPostgreSQL ? "sqlite, xml, binary or postgresql" : "sqlite, xml or binary"), not \(typeOption)")
        }
    }

    /// The kind of the store file at `url`, by its content.
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) when nothing is at `url`; 134000
    ///   (`NSPersistentStoreInvalidTypeError`) for a directory, an empty file, or content of no known store
    ///   type; 134091 for a bare binary property list; 257 when the file cannot be read.
    static func detect(at url: URL) throws -> StoreFileKind {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path).",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        if isDirectory.boolValue { throw directoryError(url) }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoPermissionError, "The store file at \(url.path) cannot be read.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        defer { try? handle.close() }
        let prefix = [UInt8]((try? handle.read(upToCount: prefixLength)) ?? Data())
        if let kind = kind(ofPrefix: prefix) { return kind }
        throw unknownContentError(url, prefix: prefix)
    }

    /// The kind the first bytes of a file show, or nil.
    static func kind(ofPrefix prefix: [UInt8]) -> StoreFileKind? {
        if prefix.starts(with: Array("SQLite format 3\0".utf8)) { return .sqlite }
        if prefix.starts(with: BinaryStoreFormat.magic) || prefix.starts(with: AppleBinaryStoreFormat.magic) { return .binary }
        if isXMLStore(prefix) { return .xml }
        return nil
    }

    /// Whether the bytes start an XML document (after a UTF-8 byte-order mark and white space) that has a
    /// `<database` element, the root of Apple's XML store.
    static func isXMLStore(_ prefix: [UInt8]) -> Bool {
        var body = prefix[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        body = body.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard body.starts(with: Array("<?xml".utf8)) else { return false }
        let text = String(decoding: body, as: UTF8.self)
        return ["<database>", "<database/>", "<database ", "<database\n", "<database\r", "<database\t"].contains { text.contains($0) }
    }

    /// Why the file is none of the kinds: empty, a bare binary property list, another XML document, or anything else.
    private static func unknownContentError(_ url: URL, prefix: [UInt8]) -> NSError {
        if prefix.isEmpty {
            return CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                      "The file at \(url.path) is empty: it holds no store (Core Data creates a new store in an empty file).",
                                      userInfo: [NSFilePathErrorKey: url.path])
        }
        if prefix.starts(with: Array("bplist00".utf8)) {
            return CoreDataError.unsupported("the file at \(url.path) is a binary property list on its own, which is no store "
                                             + "(Apple's binary store starts with its \"CoreData\" header, Docs/BinaryStoreFormat.md)")
        }
        let start = prefix.prefix(16).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined(separator: " ")
        let what = isXMLDocument(prefix) ? "an XML document without Apple's <database> element" : "not a store of a known type (its first bytes: \(start))"
        return CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                  "The file at \(url.path) is \(what); the tool reads SQLite, XML and binary stores, told by their content.",
                                  userInfo: [NSFilePathErrorKey: url.path])
    }

    private static func isXMLDocument(_ prefix: [UInt8]) -> Bool {
        String(decoding: prefix.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<?xml")
    }

    /// A directory is no store; a `UIManagedDocument` package (a directory whose store is
    /// `StoreContent/persistentStore`) is named as such, with the path to give instead.
    private static func directoryError(_ url: URL) -> NSError {
        let document = url.appendingPathComponent("StoreContent/persistentStore")
        let hint = FileManager.default.fileExists(atPath: document.path)
            ? " It looks like a UIManagedDocument package: its store is \(document.path)."
            : " Give the store file itself."
        return CoreDataError.make(NSPersistentStoreInvalidTypeError, "\(url.path) is a directory, not a store file.\(hint)",
                                  userInfo: [NSFilePathErrorKey: url.path])
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CoreDataStoreKit

/// Reads an XML store file into a snapshot with libxml2's streaming reader, so a large file never becomes a DOM.
///
/// The snapshot keeps the file's names (upper-case entities, lower-case properties); `XMLStore.matchNames`
/// matches them to the model. Object IDs "zN" become primary key N, and `nextObjectID` − 1 becomes the
/// high-water mark of every entity in the file.
///
/// Errors: a file that is empty, not XML, or XML whose root element is not `<database>` is not an XML store
/// (134000); a file that starts as one but is truncated, malformed, or holds values that do not parse is
/// damaged (259). libxml2's message is part of the error's description.
struct XMLStoreReader {
    let url: URL

    private struct PendingRelationship {
        var name: String
        var code: String
        var destination: String
        var targets: [Int64]
    }

    private struct PendingObject {
        var object: AtomicStoreSnapshot.Object
        var relationships: [PendingRelationship] = []
    }

    func read() throws -> AtomicStoreSnapshot {
        try checkLooksLikeXML()
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CoreDataError.openFailed(url, reason: "it could not be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        guard let reader = LibXMLStreamReader(descriptor: descriptor) else {
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "libxml2 could not start reading it")
        }
        var sawRoot = false
        do {
            return try parse(reader, sawRoot: &sawRoot)
        } catch let failure as LibXMLStreamReader.Failure {
            if sawRoot { throw corrupt("the XML is malformed (\(failure.message))") }
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "it is not well-formed XML (\(failure.message))")
        } catch let invalid as XMLAttributeValue.Invalid {
            throw corrupt(invalid.reason)
        }
    }

    /// Rejects, before libxml2 sees it, a file that is empty or does not start like an XML document.
    private func checkLooksLikeXML() throws {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw CoreDataError.openFailed(url, reason: "it could not be read (\(error.localizedDescription))")
        }
        defer { try? handle.close() }
        let prefix = (try? handle.read(upToCount: 64)) ?? Data()
        var bytes = prefix[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: prefix.isEmpty ? "the file is empty" : "the file holds only white space")
        }
        guard first == UInt8(ascii: "<") else {
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "it is not an XML document")
        }
    }

    private func corrupt(_ reason: String) -> NSError {
        CoreDataError.corruptStore(url, type: NSXMLStoreType, reason: reason)
    }

    private func parse(_ reader: LibXMLStreamReader, sawRoot: inout Bool) throws -> AtomicStoreSnapshot {
        var metadata: [String: Any] = [:]
        var uuid: String?
        var nextObjectID: Int64?
        var sawVersion = false
        var objects: [PendingObject] = []
        var entityByKey: [Int64: String] = [:]
        var current: PendingObject?
        // The <attribute> being read: its name, type and the text gathered so far.
        var attribute: (name: String, type: String, text: String)?
        // The <databaseInfo> child whose text is being gathered.
        var infoField: (name: String, text: String)?
        var inDatabaseInfo = false
        var finishedRoot = false

        func finishAttribute() throws {
            guard let (name, type, text) = attribute, current != nil else { return }
            attribute = nil
            current?.object.attributes[name] = try XMLAttributeValue.decode(type: type, text: text)
        }

        while try reader.read() {
            switch reader.kind {
            case .element:
                let name = reader.name
                let depth = reader.depth
                if depth == 0 {
                    guard name == "database" else {
                        throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "its root element is <\(name)>, not <database>")
                    }
                    sawRoot = true
                    if reader.isEmptyElement { finishedRoot = true }
                    continue
                }
                guard depth >= 1, !finishedRoot else { continue }
                if depth == 1 {
                    switch name {
                    case "databaseInfo":
                        inDatabaseInfo = !reader.isEmptyElement
                    case "object":
                        let attributes = reader.attributes()
                        guard let type = attributes["type"], !type.isEmpty else { throw corrupt("an <object> has no type") }
                        guard let id = attributes["id"], let key = XMLStoreFormat.primaryKey(id[...]) else {
                            throw corrupt("an <object> of \(type) has no valid id (\(attributes["id"] ?? "none"))")
                        }
                        guard entityByKey.updateValue(type, forKey: key) == nil else {
                            throw corrupt("two objects have the id z\(key)")
                        }
                        let pending = PendingObject(object: .init(reference: .init(entityName: type, primaryKey: key)))
                        if reader.isEmptyElement { objects.append(pending) } else { current = pending }
                    default:
                        throw corrupt("<database> holds an unexpected <\(name)>")
                    }
                } else if depth == 2, inDatabaseInfo {
                    if name == "metadata" {
                        metadata = try readMetadata(reader)
                    } else if reader.isEmptyElement {
                        if name == "UUID" { uuid = "" }
                    } else {
                        infoField = (name, "")
                    }
                } else if depth == 2, current != nil {
                    let attributes = reader.attributes()
                    guard let propertyName = attributes["name"], !propertyName.isEmpty else {
                        throw corrupt("a <\(name)> of object z\(current?.object.reference.primaryKey ?? 0) has no name")
                    }
                    switch name {
                    case "attribute":
                        guard let type = attributes["type"] else { throw corrupt("the attribute \(propertyName) has no type") }
                        attribute = (propertyName, type, "")
                        if reader.isEmptyElement { try finishAttribute() }
                    case "relationship":
                        var targets: [Int64] = []
                        for token in (attributes["idrefs"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
                            guard let key = XMLStoreFormat.primaryKey(token) else { throw corrupt("the relationship \(propertyName) refers to \"\(token.prefix(20))\"") }
                            targets.append(key)
                        }
                        current?.relationships.append(PendingRelationship(
                            name: propertyName, code: attributes["type"] ?? "0/0",
                            destination: attributes["destination"] ?? "", targets: targets))
                    default:
                        throw corrupt("an <object> holds an unexpected <\(name)>")
                    }
                } else if depth == 3, attribute != nil {
                    throw corrupt("the attribute \(attribute?.name ?? "") holds an element")
                }
            case .text:
                if attribute != nil {
                    attribute?.text += reader.value
                } else if infoField != nil {
                    infoField?.text += reader.value
                }
            case .entityReference:
                throw corrupt("the file uses an entity reference, which XML stores do not contain")
            case .endElement:
                switch reader.depth {
                case 0: finishedRoot = true
                case 1:
                    if let object = current { objects.append(object); current = nil }
                    inDatabaseInfo = false
                case 2:
                    try finishAttribute()
                    if let (name, text) = infoField {
                        infoField = nil
                        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                        switch name {
                        case "version":
                            guard trimmed == XMLStoreFormat.databaseVersion else { throw corrupt("its database version is \(trimmed.prefix(20)), not \(XMLStoreFormat.databaseVersion)") }
                            sawVersion = true
                        case "UUID": uuid = trimmed
                        case "nextObjectID":
                            guard let value = Int64(trimmed), value >= 0 else { throw corrupt("its nextObjectID \"\(trimmed.prefix(20))\" is not a number") }
                            nextObjectID = value
                        default: break
                        }
                    }
                default: break
                }
            case .other:
                break
            }
        }
        guard sawRoot else { throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "it has no <database> element") }
        guard finishedRoot else { throw corrupt("the file ends before </database>") }
        guard sawVersion else { throw corrupt("it has no <databaseInfo><version>") }

        // Resolve relationships now that every object's entity is known.
        var result: [AtomicStoreSnapshot.Object] = []
        result.reserveCapacity(objects.count)
        for pending in objects {
            var object = pending.object
            for relationship in pending.relationships {
                let references = relationship.targets.map { key in
                    AtomicStoreSnapshot.Reference(entityName: entityByKey[key] ?? relationship.destination, primaryKey: key)
                }
                if XMLStoreFormat.isToOneCode(relationship.code), references.count <= 1 {
                    if let reference = references.first { object.toOne[relationship.name] = reference }
                } else {
                    object.toMany[relationship.name] = references
                }
            }
            result.append(object)
        }
        metadata[NSStoreTypeKey] = NSXMLStoreType
        if let uuid, !uuid.isEmpty { metadata[NSStoreUUIDKey] = uuid }
        var highWater: [String: Int64] = [:]
        let last = max((nextObjectID ?? 1) - 1, entityByKey.keys.max() ?? 0)
        for name in Set(entityByKey.values) { highWater[name] = last }
        return AtomicStoreSnapshot(metadata: metadata, objects: result, primaryKeyHighWater: highWater)
    }

    /// The `<metadata>` element's property list (empty when the element is), leaving the reader past it.
    private func readMetadata(_ reader: LibXMLStreamReader) throws -> [String: Any] {
        guard !reader.isEmptyElement else { return [:] }
        // The reader stays on <metadata>; the loop then walks through its children, which it ignores.
        let inner = try reader.innerXML().trimmingCharacters(in: .whitespacesAndNewlines)
        guard !inner.isEmpty else { return [:] }
        let document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + inner
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: Data(document.utf8), options: [], format: nil)
        } catch {
            throw corrupt("its metadata is not a property list (\(error.localizedDescription))")
        }
        guard let dictionary = plist as? [String: Any] else { throw corrupt("its metadata is not a dictionary") }
        return dictionary
    }
}

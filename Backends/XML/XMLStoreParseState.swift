import CoreDataStoreKit

/// What the streaming read of an XML store has gathered so far, and what each reader event does to it.
///
/// `XMLStoreReader` feeds it libxml2's events in document order: `startElement`, `gatherText`, `endElement`;
/// then `snapshot()` checks that the document was whole and resolves relationships. Each method handles one
/// kind of event; a structure the format does not allow throws a damaged-store error (259) naming it.
struct XMLStoreParseState {
    let url: URL

    /// Whether `<database>` was seen: a failure after it means a damaged store, before it not an XML store.
    private(set) var sawRoot = false
    private var finishedRoot = false
    private var metadata: [String: Any] = [:]
    private var uuid: String?
    private var nextObjectID: Int64?
    private var sawVersion = false
    private var objects: [PendingObject] = []
    private var entityByKey: [Int64: String] = [:]
    /// The `<object>` being read.
    private var current: PendingObject?
    /// The `<attribute>` being read: its name, type and the text gathered so far.
    private var attribute: (name: String, type: String, text: String)?
    /// The `<databaseInfo>` child whose text is being gathered.
    private var infoField: (name: String, text: String)?
    private var inDatabaseInfo = false

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

    init(url: URL) {
        self.url = url
    }

    // MARK: Events

    /// An element opens: dispatched by its depth (the root, `<databaseInfo>` or `<object>`, or their children).
    mutating func startElement(_ reader: LibXMLStreamReader) throws {
        let depth = reader.depth
        if depth == 0 {
            try startRoot(named: reader.name, isEmpty: reader.isEmptyElement)
            return
        }
        guard depth >= 1, !finishedRoot else { return }
        if depth == 1 {
            try startTopLevel(reader)
        } else if depth == 2, inDatabaseInfo {
            try startDatabaseInfoField(reader)
        } else if depth == 2, current != nil {
            try startProperty(reader)
        } else if depth == 3, attribute != nil {
            throw corrupt("the attribute \(attribute?.name ?? "") holds an element")
        }
    }

    /// Text (or CDATA): added to the attribute or `<databaseInfo>` field being read; elsewhere ignored.
    mutating func gatherText(_ value: String) {
        if attribute != nil {
            attribute?.text += value
        } else if infoField != nil {
            infoField?.text += value
        }
    }

    /// An element closes at `depth`: the root, an `<object>` or `<databaseInfo>`, or one of their children.
    mutating func endElement(depth: Int) throws {
        switch depth {
        case 0:
            finishedRoot = true
        case 1:
            if let object = current {
                objects.append(object)
                current = nil
            }
            inDatabaseInfo = false
        case 2:
            try finishAttribute()
            try finishDatabaseInfoField()
        default:
            break
        }
    }

    // MARK: Opening elements

    private mutating func startRoot(named name: String, isEmpty: Bool) throws {
        guard name == "database" else {
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "its root element is <\(name)>, not <database>")
        }
        sawRoot = true
        if isEmpty { finishedRoot = true }
    }

    /// A child of `<database>`: `<databaseInfo>` or an `<object>` with a type and a unique `zN` id.
    private mutating func startTopLevel(_ reader: LibXMLStreamReader) throws {
        let name = reader.name
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
    }

    /// A child of `<databaseInfo>`: `<metadata>` (a property list, read whole) or a text field.
    private mutating func startDatabaseInfoField(_ reader: LibXMLStreamReader) throws {
        let name = reader.name
        if name == "metadata" {
            metadata = try readMetadata(reader)
        } else if reader.isEmptyElement {
            if name == "UUID" { uuid = "" }
        } else {
            infoField = (name, "")
        }
    }

    /// A child of `<object>`: an `<attribute>` (its text follows) or a `<relationship>` with its `idrefs`.
    private mutating func startProperty(_ reader: LibXMLStreamReader) throws {
        let name = reader.name
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
                guard let key = XMLStoreFormat.primaryKey(token) else {
                    throw corrupt("the relationship \(propertyName) refers to \"\(token.prefix(20))\"")
                }
                targets.append(key)
            }
            current?.relationships.append(PendingRelationship(
                name: propertyName, code: attributes["type"] ?? "0/0",
                destination: attributes["destination"] ?? "", targets: targets))
        default:
            throw corrupt("an <object> holds an unexpected <\(name)>")
        }
    }

    // MARK: Closing elements

    /// Decodes the attribute being read into the current object.
    private mutating func finishAttribute() throws {
        guard let (name, type, text) = attribute, current != nil else { return }
        attribute = nil
        current?.object.attributes[name] = try XMLAttributeValue.decode(type: type, text: text)
    }

    /// Keeps the `<databaseInfo>` field being read: the format version (which must be Apple's), the UUID or
    /// `nextObjectID`; other fields are ignored.
    private mutating func finishDatabaseInfoField() throws {
        guard let (name, text) = infoField else { return }
        infoField = nil
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "version":
            guard trimmed == XMLStoreFormat.databaseVersion else {
                throw corrupt("its database version is \(trimmed.prefix(20)), not \(XMLStoreFormat.databaseVersion)")
            }
            sawVersion = true
        case "UUID":
            uuid = trimmed
        case "nextObjectID":
            guard let value = Int64(trimmed), value >= 0 else {
                throw corrupt("its nextObjectID \"\(trimmed.prefix(20))\" is not a number")
            }
            nextObjectID = value
        default:
            break
        }
    }

    // MARK: The result

    /// The snapshot of a whole document: throws when the root, its end or the format version is missing.
    /// Relationships are resolved now that every object's entity is known; `nextObjectID` − 1 (or the largest
    /// key, if larger) is every entity's high-water mark.
    func snapshot() throws -> AtomicStoreSnapshot {
        guard sawRoot else { throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "it has no <database> element") }
        guard finishedRoot else { throw corrupt("the file ends before </database>") }
        guard sawVersion else { throw corrupt("it has no <databaseInfo><version>") }
        var metadata = self.metadata
        metadata[NSStoreTypeKey] = NSXMLStoreType
        if let uuid, !uuid.isEmpty { metadata[NSStoreUUIDKey] = uuid }
        var highWater: [String: Int64] = [:]
        let last = max((nextObjectID ?? 1) - 1, entityByKey.keys.max() ?? 0)
        for name in Set(entityByKey.values) { highWater[name] = last }
        return AtomicStoreSnapshot(metadata: metadata, objects: objects.map(resolved), primaryKeyHighWater: highWater)
    }

    /// The object with its relationships as references: a target's entity is the one its `<object>` names (the
    /// relationship's declared destination when no object has that id); a to-one code with at most one target
    /// is a to-one.
    private func resolved(_ pending: PendingObject) -> AtomicStoreSnapshot.Object {
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
        return object
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

    private func corrupt(_ reason: String) -> NSError {
        CoreDataError.corruptStore(url, type: NSXMLStoreType, reason: reason)
    }
}

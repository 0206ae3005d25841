#if canImport(Glibc)
import Glibc
#endif
import CoreDataStoreKit
import CLibXML2

/// Writes a snapshot as an XML store file in Apple's format, streaming it to disk with libxml2's text writer.
///
/// The file keeps Apple's element names, type names and ID scheme: `<object type="ENTITYUPPER" id="zN">`
/// where N is the object's primary key (unique store-wide, because XML stores share one key sequence across
/// entities), `nextObjectID` one past the highest key ever given out, attributes in the model's order with
/// nil values left out, and every stored relationship written, empty ones included, as Apple does.
///
/// The model supplies what the snapshot does not carry: relationship counts and destinations, and whether
/// `Data` is binary or transformed. Objects of entities the model lacks are written from their names alone.
struct XMLStoreWriter {
    let model: NSManagedObjectModel

    /// Writes `snapshot` to a new file at `url`.
    /// - Throws: 134030 when a value cannot be written in XML, two objects would share an ID, or libxml2 fails.
    func write(_ snapshot: AtomicStoreSnapshot, to url: URL) throws {
        let objects = snapshot.objects.sorted { $0.reference.primaryKey < $1.reference.primaryKey }
        var seen = Set<Int64>()
        for object in objects where !seen.insert(object.reference.primaryKey).inserted {
            throw CoreDataError.saveFailed("two objects would both be written with the XML id z\(object.reference.primaryKey)")
        }
        let highest = max(objects.last?.reference.primaryKey ?? 0, snapshot.primaryKeyHighWater.values.max() ?? 0)
        let metadataXML = try metadataPlist(snapshot.metadata)

        // A descriptor rather than a file name: libxml2 would treat the name as a URI and unescape "%".
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CoreDataError.saveFailed("could not create \(url.path): \(String(cString: strerror(errno)))")
        }
        var closed = false
        defer { if !closed { close(descriptor) } }
        guard let buffer = xmlOutputBufferCreateFd(descriptor, nil), let writer = xmlNewTextWriter(buffer) else {
            throw CoreDataError.saveFailed("libxml2 could not start writing \(url.path)")
        }
        var freed = false
        defer { if !freed { xmlFreeTextWriter(writer) } }
        let out = TextWriter(writer)
        try out.check(xmlTextWriterSetIndent(writer, 1))
        try out.withXMLString("    ") { try out.check(xmlTextWriterSetIndentString(writer, $0)) }
        try out.check(xmlTextWriterStartDocument(writer, "1.0", nil, nil))
        // Raw, because the indenting writer would break the DOCTYPE over two lines; Apple leaves a blank line after it.
        try out.withXMLString("<!DOCTYPE database SYSTEM \"\(XMLStoreFormat.dtdSystemID)\">\n\n") {
            try out.check(xmlTextWriterWriteRaw(writer, $0))
        }
        try out.start("database")
        try out.start("databaseInfo")
        try out.element("version", text: XMLStoreFormat.databaseVersion)
        try out.element("UUID", text: snapshot.metadata[NSStoreUUIDKey] as? String ?? "")
        try out.element("nextObjectID", text: String(min(highest, Int64.max - 1) + 1))
        try out.start("metadata")
        if let metadataXML { try out.withXMLString(metadataXML) { try out.check(xmlTextWriterWriteRaw(writer, $0)) } }
        try out.fullEnd()
        try out.end()
        for object in objects { try write(object, out) }
        try out.end()
        try out.check(xmlTextWriterEndDocument(writer))
        try out.check(xmlTextWriterFlush(writer))
        xmlFreeTextWriter(writer)
        freed = true
        closed = true
        guard close(descriptor) == 0 else {
            throw CoreDataError.saveFailed("could not finish writing \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    private func write(_ object: AtomicStoreSnapshot.Object, _ out: TextWriter) throws {
        let entityName = object.reference.entityName
        let entity = model.entitiesByName[entityName]
        try out.start("object")
        try out.attribute("type", XMLStoreFormat.entityTypeName(entityName))
        try out.attribute("id", XMLStoreFormat.objectID(object.reference.primaryKey))

        // Attributes in the model's order, then any the model does not know, by name.
        var attributeNames: [String] = []
        var relationships: [(name: String, description: NSRelationshipDescription?)] = []
        if let layout = entity?.layout {
            for property in layout.allProperties where !property.isTransient {
                if property is NSAttributeDescription { attributeNames.append(property.name) }
                else if let relationship = property as? NSRelationshipDescription { relationships.append((relationship.name, relationship)) }
            }
        }
        let known = Set(attributeNames)
        attributeNames += object.attributes.keys.filter { !known.contains($0) }.sorted()
        let knownRelationships = Set(relationships.map(\.name))
        relationships += Set(object.toOne.keys).union(object.toMany.keys).filter { !knownRelationships.contains($0) }.sorted().map { ($0, nil) }

        for name in attributeNames {
            guard let value = object.attributes[name] else { continue }
            let modelType = entity?.layout.attributesByName[name]?.attributeType
            guard let (type, text) = XMLAttributeValue.encode(value, modelType: modelType) else {
                throw CoreDataError.saveFailed("the XML store cannot write the \(Swift.type(of: value)) value of \(entityName).\(name)")
            }
            if type == "string", let bad = text.unicodeScalars.first(where: Self.isUnwritable) {
                throw CoreDataError.saveFailed("\(entityName).\(name) holds the character U+\(String(bad.value, radix: 16, uppercase: true)), which XML 1.0 cannot contain")
            }
            try out.start("attribute")
            try out.attribute("name", XMLStoreFormat.propertyName(name))
            try out.attribute("type", type)
            try out.text(text)
            try out.end()
        }
        for (name, description) in relationships {
            let references: [AtomicStoreSnapshot.Reference]
            if let one = object.toOne[name] { references = [one] } else { references = object.toMany[name] ?? [] }
            let isToMany = description?.isToMany ?? (object.toMany[name] != nil)
            let code = description.map(XMLStoreFormat.relationshipCode) ?? (isToMany ? "0/0" : "1/1")
            let destination = description?.destinationEntity?.name ?? references.first?.entityName ?? ""
            try out.start("relationship")
            try out.attribute("name", XMLStoreFormat.propertyName(name))
            try out.attribute("type", code)
            try out.attribute("destination", XMLStoreFormat.entityTypeName(destination))
            if !references.isEmpty {
                try out.attribute("idrefs", references.map { XMLStoreFormat.objectID($0.primaryKey) }.joined(separator: " "))
            }
            try out.fullEnd()
        }
        try out.end()
    }

    /// Characters XML 1.0 cannot hold, even escaped: controls other than tab, line feed and carriage return,
    /// and the non-characters U+FFFE and U+FFFF.
    static func isUnwritable(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar.value != 0x09 && scalar.value != 0x0A && scalar.value != 0x0D)
            || scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }

    /// The metadata as the `<plist>` element of an XML property list, without `NSStoreType` and `NSStoreUUID`
    /// (the format implies the type and `<UUID>` holds the UUID), or nil when nothing is left.
    private func metadataPlist(_ metadata: [String: Any]) throws -> String? {
        var stored = metadata
        stored[NSStoreTypeKey] = nil
        stored[NSStoreUUIDKey] = nil
        guard !stored.isEmpty else { return nil }
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: stored, format: .xml, options: 0)
        } catch {
            throw CoreDataError.saveFailed("the store metadata is not a property list (\(error.localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8), let start = text.range(of: "<plist") else {
            throw CoreDataError.saveFailed("the store metadata could not be written as an XML property list")
        }
        return "\n" + text[start.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
    }
}

/// Checked calls into `xmlTextWriter`: every libxml2 result below zero becomes a thrown save error.
private struct TextWriter {
    let writer: xmlTextWriterPtr
    init(_ writer: xmlTextWriterPtr) { self.writer = writer }

    func check(_ result: Int32) throws {
        guard result >= 0 else { throw CoreDataError.saveFailed("libxml2 could not write the XML store (\(String(cString: strerror(errno))))") }
    }

    func withXMLString(_ string: String, _ body: (UnsafePointer<xmlChar>) throws -> Void) throws {
        try string.withCString { pointer in
            try pointer.withMemoryRebound(to: xmlChar.self, capacity: string.utf8.count + 1, body)
        }
    }

    func start(_ name: String) throws {
        try withXMLString(name) { try check(xmlTextWriterStartElement(writer, $0)) }
    }

    func attribute(_ name: String, _ value: String) throws {
        try withXMLString(name) { name in try withXMLString(value) { try check(xmlTextWriterWriteAttribute(writer, name, $0)) } }
    }

    func text(_ text: String) throws {
        try withXMLString(text) { try check(xmlTextWriterWriteString(writer, $0)) }
    }

    func element(_ name: String, text value: String) throws {
        try start(name)
        try text(value)
        try fullEnd()
    }

    func end() throws { try check(xmlTextWriterEndElement(writer)) }
    func fullEnd() throws { try check(xmlTextWriterFullEndElement(writer)) }
}

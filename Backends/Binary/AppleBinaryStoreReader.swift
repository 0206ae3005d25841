import CoreDataStoreKit

/// Reads Apple's binary store file (see `Docs/BinaryStoreFormat.md`, "Apple's format") into a snapshot.
///
/// The file names no model, and Apple stores attribute values by position, so the snapshot this reader gives
/// keeps each position as a placeholder name (`positionalName(_:)`) unless the file lists the property names
/// (files this package writes do); relationships are all given as to-many lists. `AppleBinaryNameMatching`
/// resolves both against the model before the snapshot is loaded, and spreads the header's key generation
/// (`primaryKeyGenerationName`) over the model's entities.
///
/// Order of checks: header size (259), the checksum when this package wrote the file (259), header and map
/// versions (134000), the two archives' ranges (259), then the archives, every field checked: a damaged file
/// throws 259 naming what is wrong and never traps.
struct AppleBinaryStoreReader {
    let url: URL?

    /// The high-water entry under which the snapshot carries the header's key generation, a name no entity
    /// can have.
    static let primaryKeyGenerationName = ""

    /// The placeholder attribute name of the value at `position` of an `NSAttributeValues` array.
    static func positionalName(_ position: Int) -> String { "\u{0}\(position)" }

    /// The position a placeholder name stands for, or nil for a real name.
    static func position(ofPositionalName name: String) -> Int? {
        guard name.hasPrefix("\u{0}") else { return nil }
        return Int(name.dropFirst())
    }

    private func corrupt(_ reason: String) -> NSError {
        CoreDataError.corruptStore(url, type: NSBinaryStoreType, reason: reason)
    }

    func decode(_ data: Data) throws -> AtomicStoreSnapshot {
        let (header, map, metadata) = try data.withUnsafeBytes { file in
            let header = try checkedHeader(file)
            return (header, try slice(file, offset: header.mapOffset, length: header.mapLength, what: "object map"),
                    try slice(file, offset: header.metadataOffset, length: header.metadataLength, what: "metadata"))
        }
        guard header.primaryKeyGeneration <= UInt64(Int64.max) else { throw corrupt("its primary key generation is \(header.primaryKeyGeneration)") }
        var snapshot = AtomicStoreSnapshot(metadata: try decodeMetadata(metadata), objects: try decodeMap(map))
        snapshot.primaryKeyHighWater[Self.primaryKeyGenerationName] = Int64(header.primaryKeyGeneration)
        return snapshot
    }

    // MARK: Header

    private func checkedHeader(_ file: UnsafeRawBufferPointer) throws -> AppleBinaryStoreFormat.Header {
        guard file.count >= AppleBinaryStoreFormat.headerSize else {
            throw corrupt("the file is truncated (\(file.count) bytes, shorter than the 64-byte header)")
        }
        let header = AppleBinaryStoreFormat.Header(reading: file)
        // The checksum first, so damage anywhere after the magic is reported as damage.
        let tag = Array(header.reserved.prefix(4))
        if tag == AppleBinaryStoreFormat.checksumTag {
            let stored = header.reserved.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard AppleBinaryStoreFormat.checksum(of: file) == stored else { throw corrupt("its checksum does not match its contents") }
        } else if header.reserved != [UInt8](repeating: 0, count: 8) {
            throw corrupt("its reserved header bytes (56–63) are neither zero nor a checksum")
        }
        guard header.headerVersion == AppleBinaryStoreFormat.headerVersion else {
            throw CoreDataError.notAStore(url, type: NSBinaryStoreType, reason: "its header version is \(header.headerVersion); Apple's binary stores have 1")
        }
        guard header.databaseVersion == AppleBinaryStoreFormat.databaseVersion else {
            throw CoreDataError.notAStore(url, type: NSBinaryStoreType, reason: "its map version is \(header.databaseVersion), not \(AppleBinaryStoreFormat.databaseVersion): it was written by an incompatible version of Core Data")
        }
        return header
    }

    private func slice(_ file: UnsafeRawBufferPointer, offset: UInt64, length: UInt64, what: String) throws -> Data {
        let size = UInt64(file.count)
        guard offset >= UInt64(AppleBinaryStoreFormat.headerSize), offset <= size, length <= size - offset else {
            throw corrupt("its \(what) archive (\(length) bytes at offset \(offset)) runs past the end of the file (\(size) bytes)")
        }
        return Data(file[Int(offset)..<Int(offset + length)])
    }

    private func archive(_ data: Data, rootKey: String, what: String) throws -> KeyedArchive {
        do {
            return try KeyedArchive(data: data, rootKey: rootKey)
        } catch {
            throw corrupt("its \(what) is not a keyed archive (\(error))")
        }
    }

    // MARK: Metadata

    private func decodeMetadata(_ data: Data) throws -> [String: Any] {
        let archive = try archive(data, rootKey: AppleBinaryStoreFormat.metadataRootKey, what: "metadata")
        let value: Any?
        do { value = try archive.checkedPlainValue(archive.root) } catch { throw corrupt("its metadata is damaged (\(error))") }
        guard let dictionary = value as? [AnyHashable: Any] else { throw corrupt("its metadata is not a dictionary") }
        return Self.stringKeyed(dictionary)
    }

    /// A dictionary of plain values with string keys, nested dictionaries too (entries with other keys dropped).
    private static func stringKeyed(_ dictionary: [AnyHashable: Any]) -> [String: Any] {
        var out: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let key = key.base as? String else { continue }
            out[key] = (value as? [AnyHashable: Any]).map(stringKeyed) ?? value
        }
        return out
    }

    // MARK: The object map

    /// One archived node before its relationships are resolved.
    private struct Node {
        var object: AtomicStoreSnapshot.Object
        var related: [String: [Int64]]
    }

    private func decodeMap(_ data: Data) throws -> [AtomicStoreSnapshot.Object] {
        let archive = try archive(data, rootKey: AppleBinaryStoreFormat.mapRootKey, what: "object map")
        guard let root = archive.object(archive.root), root.className.hasSuffix("Dictionary"),
              let entries = archive.entries(archive.root) else {
            throw corrupt("its object map is not a dictionary")
        }
        var nodes: [Node] = []
        nodes.reserveCapacity(entries.count)
        var entityByKey: [Int64: String] = [:]
        for entry in entries {
            let node = try decodeNode(entry.value, in: archive)
            let key = node.object.reference.primaryKey
            if let other = entityByKey.updateValue(node.object.reference.entityName, forKey: key) {
                throw corrupt("objects of \(other) and \(node.object.reference.entityName) both have key \(key)")
            }
            nodes.append(node)
        }
        return nodes.map { node in
            var object = node.object
            for (name, keys) in node.related {
                // Apple skips destinations that are not in the map; so does this reader.
                object.toMany[name] = keys.compactMap { key in
                    entityByKey[key].map { AtomicStoreSnapshot.Reference(entityName: $0, primaryKey: key) }
                }
            }
            return object
        }
    }

    private func decodeNode(_ value: Any, in archive: KeyedArchive) throws -> Node {
        guard let node = archive.object(value) else { throw corrupt("an entry of its object map is not an object") }
        let fields = node.fields
        let key = try primaryKey(of: node, in: archive)
        guard let entityName = archive.string(fields[AppleBinaryStoreFormat.Node.entityName]), !entityName.isEmpty else {
            throw corrupt("the object with key \(key) names no entity")
        }
        var object = AtomicStoreSnapshot.Object(reference: .init(entityName: entityName, primaryKey: key))
        object.attributes = try attributes(of: node, in: archive, owner: "\(entityName) \(key)")
        return Node(object: object, related: try relatedKeys(of: node, in: archive, owner: "\(entityName) \(key)"))
    }

    /// `NSPrimaryKey64`, or the number archived under `NSKey`; between 1 and `Int64.max`.
    private func primaryKey(of node: KeyedArchive.Object, in archive: KeyedArchive) throws -> Int64 {
        let fields = node.fields
        var key = (fields[AppleBinaryStoreFormat.Node.primaryKey]).flatMap(Self.int64) ?? 0
        if key == 0, let archived = fields[AppleBinaryStoreFormat.Node.key] {
            guard let number = archive.resolve(archived).flatMap(Self.int64) else {
                throw corrupt("an object's key is not a number (Apple's binary stores written by this package and by Core Data use numbers)")
            }
            key = number
        }
        guard key > 0 else { throw corrupt("an object has key \(key)") }
        return key
    }

    private static func int64(_ value: Any) -> Int64? {
        if value is String || value is Data { return nil }
        if let number = value as? Int64 { return number }
        if let number = value as? Int { return Int64(number) }
        if let number = value as? NSNumber, Double(number.int64Value) == number.doubleValue { return number.int64Value }
        return nil
    }

    /// The node's attribute values: by position (`NSAttributeValues`, with names when the file lists them) or
    /// by name (`NSAttributes`); `NSNull` and `$null` are no value.
    private func attributes(of node: KeyedArchive.Object, in archive: KeyedArchive, owner: String) throws -> [String: Any] {
        let fields = node.fields
        var attributes: [String: Any] = [:]
        if let positional = fields[AppleBinaryStoreFormat.Node.attributeValues] {
            guard let values = archive.elements(positional) else { throw corrupt("the attribute values of \(owner) are not an array") }
            var names: [String]?
            if let listed = fields[AppleBinaryStoreFormat.Node.propertyNames] {
                guard let elements = archive.elements(listed), elements.count == values.count else {
                    throw corrupt("the property names of \(owner) do not match its values")
                }
                names = try elements.map { element in
                    guard let name = archive.string(element) else { throw corrupt("a property name of \(owner) is not a string") }
                    return name
                }
            }
            if names == nil { attributes[AppleBinaryNameMatching.positionCountName] = values.count }
            for (position, element) in values.enumerated() {
                guard let value = try attributeValue(element, in: archive, owner: owner) else { continue }
                attributes[names?[position] ?? Self.positionalName(position)] = value
            }
        } else if let named = fields[AppleBinaryStoreFormat.Node.attributesByName] {
            guard let entries = archive.entries(named) else { throw corrupt("the attributes of \(owner) are not a dictionary") }
            for entry in entries {
                guard let name = archive.string(entry.key) else { throw corrupt("an attribute name of \(owner) is not a string") }
                if let value = try attributeValue(entry.value, in: archive, owner: owner) { attributes[name] = value }
            }
        }
        return attributes
    }

    /// One archived attribute value, or nil for none.
    private func attributeValue(_ element: Any, in archive: KeyedArchive, owner: String) throws -> Any? {
        if let object = archive.object(element), object.className == "NSNull" { return nil }
        let value: Any?
        do { value = try archive.checkedPlainValue(element) } catch { throw corrupt("a value of \(owner) is damaged (\(error))") }
        if value == nil, archive.object(element) != nil {
            throw CoreDataError.unsupported("a value of \(owner) in the binary store at \(url?.path ?? "<no URL>") is an archived \(archive.object(element)?.className ?? "object") (a transformable attribute's object, as Apple's store keeps it), which this package does not read")
        }
        if let dictionary = value as? [AnyHashable: Any] { return Self.stringKeyed(dictionary) }
        return value
    }

    /// `NSRelatedNodes`: relationship name → destination keys.
    private func relatedKeys(of node: KeyedArchive.Object, in archive: KeyedArchive, owner: String) throws -> [String: [Int64]] {
        guard let field = node.fields[AppleBinaryStoreFormat.Node.relatedNodes] else { return [:] }
        guard let entries = archive.entries(field) else { throw corrupt("the relationships of \(owner) are not a dictionary") }
        var related: [String: [Int64]] = [:]
        for entry in entries {
            guard let name = archive.string(entry.key), let elements = archive.elements(entry.value) else {
                throw corrupt("a relationship of \(owner) is not a name with an array of keys")
            }
            related[name] = try elements.map { element in
                guard let key = archive.resolve(element).flatMap(Self.int64), key > 0 else {
                    throw corrupt("relationship \(name) of \(owner) holds something other than a key")
                }
                return key
            }
        }
        return related
    }
}

import CoreDataStoreKit

/// Writes a snapshot as Apple's binary store file (see `Docs/BinaryStoreFormat.md`, "Apple's format"): the
/// 64-byte header, the keyed archive of the object map (`mapData`), the keyed archive of the metadata.
///
/// Guarantees: every object becomes an `NSDictionaryMapNode` keyed by its primary key, with its attribute
/// values at Apple's positions (`ApplePropertyOrder`) and its relationships as arrays of destination keys, so
/// Apple's Core Data reads the file with the same model; the header's key generation is the highest key given
/// out; bytes 56–63 carry a CRC-32 of the file, which Apple ignores and this package's reader checks.
struct AppleBinaryStoreWriter {
    typealias Value = BinaryPropertyList.Value
    let model: NSManagedObjectModel

    /// The bytes of the whole file.
    /// - Throws: 134030 when two objects share a key, an object's entity or attribute is not in the model, or
    ///   a value (metadata included) has a type the archive cannot hold.
    func encode(_ snapshot: AtomicStoreSnapshot) throws -> [UInt8] {
        try checkKeysAreUnique(snapshot.objects)
        let map = try mapArchive(of: snapshot.objects)
        let metadata = try metadataArchive(of: snapshot.metadata)
        let lastKey = snapshot.objects.map(\.reference.primaryKey).max() ?? 0
        let generation = max(snapshot.primaryKeyHighWater.values.max() ?? 0, lastKey)
        let header = AppleBinaryStoreFormat.Header(mapLength: map.count, metadataLength: metadata.count, primaryKeyGeneration: generation)
        var file: [UInt8] = []
        file.reserveCapacity(AppleBinaryStoreFormat.headerSize + map.count + metadata.count)
        file.append(contentsOf: header.bytes)
        file.append(contentsOf: map)
        file.append(contentsOf: metadata)
        AppleBinaryStoreFormat.seal(&file)
        return file
    }

    /// Apple's map is keyed by primary key alone, so keys must be unique across entities.
    private func checkKeysAreUnique(_ objects: [AtomicStoreSnapshot.Object]) throws {
        var owners: [Int64: String] = [:]
        for object in objects {
            let reference = object.reference
            if let other = owners.updateValue(reference.entityName, forKey: reference.primaryKey) {
                throw CoreDataError.saveFailed("objects of \(other) and \(reference.entityName) share primary key \(reference.primaryKey), which Apple's binary store format cannot hold")
            }
        }
    }

    // MARK: The map archive

    /// What every node of one entity shares: its name, its property order and the archived name list.
    private struct EntityEncoding {
        let entity: NSEntityDescription
        let properties: [NSPropertyDescription]
        let positions: [String: Int]
        let nameReference: Value
        let propertyNamesReference: Value
    }

    /// The keyed archive whose root (`mapData`) is an `NSMutableDictionary` from primary key to node.
    private func mapArchive(of objects: [AtomicStoreSnapshot.Object]) throws -> Data {
        var builder = MOMArchiveWriter.Builder()
        let root = builder.reserve()
        var encodings: [String: EntityEncoding] = [:]
        var null: Value?
        var keys: [Value] = []
        var nodes: [Value] = []
        for object in objects {
            let name = object.reference.entityName
            let encoding: EntityEncoding
            if let known = encodings[name] {
                encoding = known
            } else {
                encoding = try entityEncoding(named: name, builder: &builder)
                encodings[name] = encoding
            }
            let nullReference = null ?? builder.object("NSNull", [])
            null = nullReference
            keys.append(builder.inline(.integer(object.reference.primaryKey)))
            nodes.append(try node(of: object, encoding: encoding, null: nullReference, builder: &builder))
        }
        builder.fill(root, className: "NSMutableDictionary", superclasses: ["NSDictionary"],
                     fields: [("NS.keys", .array(keys)), ("NS.objects", .array(nodes))])
        return builder.data(rootKey: AppleBinaryStoreFormat.mapRootKey)
    }

    private func entityEncoding(named name: String, builder: inout MOMArchiveWriter.Builder) throws -> EntityEncoding {
        guard let entity = model.entitiesByName[name] else {
            throw CoreDataError.saveFailed("the store holds objects of entity \(name), which the model lacks")
        }
        let properties = ApplePropertyOrder.properties(of: entity)
        var positions: [String: Int] = [:]
        for (position, property) in properties.enumerated() { positions[property.name] = position }
        let names = properties.map { builder.string($0.name) }
        return EntityEncoding(entity: entity, properties: properties, positions: positions, nameReference: builder.string(name),
                              propertyNamesReference: builder.array(names))
    }

    /// One `NSDictionaryMapNode`: key, entity name, related nodes (when any), attribute values by position.
    private func node(of object: AtomicStoreSnapshot.Object, encoding: EntityEncoding, null: Value,
                      builder: inout MOMArchiveWriter.Builder) throws -> Value {
        var values = [Value](repeating: null, count: encoding.properties.count)
        for (name, value) in Self.nestingComposites(object.attributes) {
            guard let position = encoding.positions[name], let attribute = encoding.properties[position] as? NSAttributeDescription else {
                throw CoreDataError.saveFailed("entity \(encoding.entity.name ?? "") has no attribute \(name)")
            }
            values[position] = try archived(value, of: attribute, builder: &builder)
        }
        var related: [(String, Value)] = []
        for (name, target) in object.toOne.sorted(by: { $0.key < $1.key }) {
            related.append((name, builder.array([builder.inline(.integer(target.primaryKey))])))
        }
        for (name, targets) in object.toMany.sorted(by: { $0.key < $1.key }) where !targets.isEmpty {
            let keys = targets.map { builder.inline(.integer($0.primaryKey)) }
            related.append((name, builder.array(keys, className: "NSMutableArray")))
        }
        var fields: [(String, Value)] = [
            (AppleBinaryStoreFormat.Node.primaryKey, .integer(object.reference.primaryKey)),
            (AppleBinaryStoreFormat.Node.entityName, encoding.nameReference),
        ]
        if !related.isEmpty {
            fields.append((AppleBinaryStoreFormat.Node.relatedNodes, builder.dictionary(related, className: "NSMutableDictionary")))
        }
        fields.append((AppleBinaryStoreFormat.Node.attributeValues, builder.array(values)))
        fields.append((AppleBinaryStoreFormat.Node.propertyNames, encoding.propertyNamesReference))
        return builder.object(AppleBinaryStoreFormat.Node.className, superclasses: AppleBinaryStoreFormat.Node.superclasses, fields)
    }

    /// The snapshot's attributes with each composite's dotted leaves (`location.latitude`) put back into one
    /// dictionary per composite (nested for nested composites).
    static func nestingComposites(_ attributes: [String: Any]) -> [String: Any] {
        var plain: [String: Any] = [:]
        var composites: [String: [String: Any]] = [:]
        for (name, value) in attributes {
            guard let dot = name.firstIndex(of: ".") else {
                plain[name] = value
                continue
            }
            composites[String(name[..<dot]), default: [:]][String(name[name.index(after: dot)...])] = value
        }
        for (name, leaves) in composites { plain[name] = nestingComposites(leaves) }
        return plain
    }

    /// An attribute value as the archiver stores Apple's primitive value for the attribute's type.
    private func archived(_ value: Any, of attribute: NSAttributeDescription, builder: inout MOMArchiveWriter.Builder) throws -> Value {
        func refuse(_ reason: String) -> NSError {
            CoreDataError.saveFailed("attribute \(attribute.name) of \(attribute.entity?.name ?? "") \(reason)")
        }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            guard let number = Self.integer(value) else { throw refuse("holds a \(type(of: value)), not an integer") }
            return builder.inline(.integer(number))
        case .booleanAttributeType:
            if let flag = value as? Bool { return builder.inline(.bool(flag)) }
            guard let number = Self.integer(value) else { throw refuse("holds a \(type(of: value)), not a Boolean") }
            return builder.inline(.bool(number != 0))
        case .doubleAttributeType, .floatAttributeType:
            guard let number = Self.real(value) else { throw refuse("holds a \(type(of: value)), not a number") }
            return builder.inline(.real(number))
        case .transformableAttributeType:
            return try archivedTransformable(value, of: attribute, builder: &builder, refuse: refuse)
        default:
            return try archivedPlain(value, builder: &builder, refuse: refuse)
        }
    }

    /// A transformable attribute's value as Apple keeps it, the value object itself, when its stored data turns
    /// back (through the attribute's transformer) into a plain value this archive can hold (a string, number,
    /// date, UUID, URL, decimal, or an array or dictionary of them); otherwise the data.
    private func archivedTransformable(_ value: Any, of attribute: NSAttributeDescription, builder: inout MOMArchiveWriter.Builder,
                                       refuse: (String) -> NSError) throws -> Value {
        guard let data = value as? Data else { return try archivedPlain(value, builder: &builder, refuse: refuse) }
        let object = TransformableStorage.value(from: data, attribute: attribute)
        if !(object is Data), Self.isPlain(object) {
            return try archivedPlain(object, builder: &builder, refuse: refuse)
        }
        return builder.bytes(data)
    }

    /// Whether `archivedPlain` can hold `value`.
    private static func isPlain(_ value: Any, depth: Int = 0) -> Bool {
        guard depth < 32 else { return false }
        switch value {
        case is String, is Data, is Date, is UUID, is URL, is Decimal: return true
        case let list as [Any]: return list.allSatisfy { isPlain($0, depth: depth + 1) }
        case let dictionary as [String: Any]: return dictionary.values.allSatisfy { isPlain($0, depth: depth + 1) }
        default: return plainNumber(value) != nil
        }
    }

    /// A plain value (string, number, date, data, UUID, URL, decimal, array, dictionary) as an archived object,
    /// always by reference, as `NSKeyedArchiver` stores the elements of arrays and dictionaries.
    private func archivedPlain(_ value: Any, builder: inout MOMArchiveWriter.Builder, refuse: (String) -> NSError) throws -> Value {
        switch value {
        case let text as String: return builder.string(text)
        case let data as Data: return builder.bytes(data)
        case let date as Date: return builder.date(date)
        case let uuid as UUID: return builder.uuid(uuid)
        case let url as URL: return builder.url(url)
        case let decimal as Decimal: return builder.decimalNumber(decimal)
        case let list as [Any]:
            var items: [Value] = []
            for item in list { items.append(try archivedPlain(item, builder: &builder, refuse: refuse)) }
            return builder.array(items)
        case let dictionary as [String: Any]:
            var entries: [(String, Value)] = []
            for (key, item) in dictionary.sorted(by: { $0.key < $1.key }) {
                entries.append((key, try archivedPlain(item, builder: &builder, refuse: refuse)))
            }
            return builder.dictionary(entries)
        default:
            guard let number = Self.plainNumber(value) else {
                throw refuse("holds a \(type(of: value)), which Apple's binary store format cannot hold")
            }
            return builder.inline(number)
        }
    }

    /// A number or Boolean of a metadata or transformable value, keeping its kind: a Boolean stays a Boolean,
    /// a floating-point number (2.0 too) a real, a whole number an integer; nil for anything else.
    private static func plainNumber(_ value: Any) -> Value? {
        switch value {
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let number as Double where type(of: value) == Double.self: return .real(number)
        case let number as Float where type(of: value) == Float.self: return .real(Double(number))
        case let number as NSNumber where !(type(of: value) == Int.self || type(of: value) == Int64.self
                                             || type(of: value) == Int32.self || type(of: value) == Int16.self):
            switch String(cString: number.objCType) {
            case "d", "f": return .real(number.doubleValue)
            case "c" where number.int8Value == 0 || number.int8Value == 1: return .bool(number.boolValue)
            default: return integer(number).map(Value.integer) ?? .real(number.doubleValue)
            }
        default:
            return integer(value).map(Value.integer)
        }
    }

    /// `value` as a 64-bit integer when it is a whole number of any integer type.
    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let number as Int64: return number
        case let number as Int32: return Int64(number)
        case let number as Int16: return Int64(number)
        case let number as Int: return Int64(number)
        case let number as NSNumber where !(value is Double) && !(value is Float):
            return Int64(exactly: number.doubleValue).flatMap { _ in number.int64Value }
        default: return nil
        }
    }

    private static func real(_ value: Any) -> Double? {
        switch value {
        case let number as Double: return number
        case let number as Float: return Double(number)
        case let number as NSNumber: return number.doubleValue
        default: return nil
        }
    }

    // MARK: The metadata archive

    /// The keyed archive whose root (`metadata`) is the metadata dictionary.
    private func metadataArchive(of metadata: [String: Any]) throws -> Data {
        var builder = MOMArchiveWriter.Builder()
        let root = builder.reserve()
        var keys: [Value] = []
        var values: [Value] = []
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            keys.append(builder.string(key))
            values.append(try archivedPlain(value, builder: &builder) { reason in
                CoreDataError.saveFailed("the store metadata's \(key) \(reason)")
            })
        }
        builder.fill(root, className: "NSDictionary", fields: [("NS.keys", .array(keys)), ("NS.objects", .array(values))])
        return builder.data(rootKey: AppleBinaryStoreFormat.metadataRootKey)
    }
}

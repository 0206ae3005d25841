// Part of ScratchStore (see ScratchStore.swift): the file format.
import CoreData

/// A Scratch store file: one binary property list,
///
///     ScratchStoreFormat: 1
///     metadata:     the store's metadata
///     keyHighWater: { root entity name: highest primary key given out }
///     objects:      [ { entity, key, version, values: { name: value }, toMany: { name: [reference] } } ]
///
/// where a reference (a to-one value, a to-many element) is `{ entity, key }`. Attribute values are property
/// list values: integers, reals and Booleans as numbers, dates as seconds since 2001 (exact), decimals, UUIDs
/// and URLs as strings, composites as dictionaries of their elements.
///
/// Reading goes in two steps so that each failure gets its code: `read(from:)` takes the file apart and finds
/// the metadata (134000 for a file that is not a Scratch store), the store compares the model, then
/// `contents(model:url:)` decodes the objects (259 for damage).
struct ScratchStoreFile {
    static let formatKey = "ScratchStoreFormat"
    static let formatVersion = 1

    let metadata: [String: Any]
    private let root: [String: Any]

    // MARK: Reading

    /// The file at `url` taken apart, with its metadata.
    /// - Throws: 134000 when it is not a Scratch store file, 259 when its metadata is damaged, 256 when it
    ///   cannot be read.
    static func read(from url: URL) throws -> ScratchStoreFile {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: url)
        } catch {
            throw CoreDataError.make(NSFileReadUnknownError, "The Scratch store at \(url.path) could not be read: \(error.localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        // Checked before Foundation decodes it: Foundation on Linux can crash on a damaged binary property list.
        guard bytes.starts(with: Array("bplist".utf8)), let root = BinaryPropertyListCheck.propertyList(from: bytes) as? [String: Any],
              AttributeValueCoercion.integer(root[formatKey] as Any) == Int64(formatVersion) else {
            throw CoreDataError.notAStore(url, type: ScratchStore.typeName, reason: "it is not a Scratch store file")
        }
        guard let metadata = root["metadata"] as? [String: Any] else {
            throw CoreDataError.corruptStore(url, type: ScratchStore.typeName, reason: "it has no metadata")
        }
        guard metadata[NSStoreTypeKey] as? String == ScratchStore.typeName else {
            throw CoreDataError.notAStore(url, type: ScratchStore.typeName, reason: "its metadata names another store type")
        }
        return ScratchStoreFile(metadata: metadata, root: root)
    }

    /// The objects and key high-water marks of the file, read with `model`.
    /// - Throws: 259 naming the first damage found: an unknown entity or property, a value of the wrong type,
    ///   a key or version out of range, a key given twice.
    func contents(model: NSManagedObjectModel, url: URL) throws -> ScratchContents {
        let damaged = { (reason: String) in CoreDataError.corruptStore(url, type: ScratchStore.typeName, reason: reason) }
        var contents = ScratchContents(metadata: metadata)
        guard let highWater = root["keyHighWater"] as? [String: Any], let objects = root["objects"] as? [Any] else {
            throw damaged("it has no objects or key high-water marks")
        }
        for (hierarchy, value) in highWater {
            guard let mark = AttributeValueCoercion.integer(value), (0...StoreNumberLimits.largestStoredNumber).contains(mark) else {
                throw damaged("the key high-water mark of \(hierarchy) is not a key")
            }
            contents.keyHighWater[hierarchy] = mark
        }
        for (index, item) in objects.enumerated() {
            guard let fields = item as? [String: Any] else { throw damaged("object \(index) is not a dictionary") }
            let (key, object) = try Self.object(fields, model: model) { damaged("object \(index): \($0)") }
            guard contents.objects.updateValue(object, forKey: key) == nil else { throw damaged("object \(index): key \(key) is given twice") }
            let hierarchy = object.entity.rootEntity.name ?? ""
            contents.keyHighWater[hierarchy] = max(contents.keyHighWater[hierarchy] ?? 0, key.primaryKey)
        }
        return contents
    }

    /// One object of the file.
    private static func object(_ fields: [String: Any], model: NSManagedObjectModel,
                               damaged: (String) -> NSError) throws -> (ObjectKey, ScratchObject) {
        let largest = StoreNumberLimits.largestStoredNumber
        guard let key = objectKey(fields, model: model) else { throw damaged("no entity of the model and key") }
        guard let entity = model.entity(withNumber: key.entityNumber) else { throw damaged("no entity") }
        guard let version = fields["version"].flatMap(AttributeValueCoercion.integer), (1...largest).contains(version) else {
            throw damaged("its version is not a number from 1 to \(largest)")
        }
        guard let storedValues = fields["values"] as? [String: Any], let storedLists = fields["toMany"] as? [String: Any] else {
            throw damaged("its values or to-many lists are missing")
        }
        let layout = entity.layout
        var object = ScratchObject(entity: entity, version: version, values: layout.emptySlots)
        for (name, stored) in storedValues {
            guard let slot = layout.slotByName[name], layout.isStoredSlot[slot] else { throw damaged("\(entity.name ?? "") has no stored property \(name)") }
            let value: Any?
            if layout.slotKinds[slot] == .toOne {
                value = objectKey(stored, model: model)
            } else {
                value = layout.attributesByName[name].flatMap { decode(stored, as: $0) }
            }
            guard let value else { throw damaged("\(name) does not hold a value of its type") }
            object.values[slot] = value
        }
        for (name, stored) in storedLists {
            guard layout.relationshipsByName[name]?.isToMany == true, let list = stored as? [Any] else {
                throw damaged("\(entity.name ?? "") has no to-many relationship \(name)")
            }
            let destinations = list.compactMap { objectKey($0, model: model) }
            guard destinations.count == list.count else { throw damaged("\(name) holds something that is not a reference") }
            object.toMany[name] = destinations
        }
        return (key, object)
    }

    /// A reference `{ entity, key }` as an `ObjectKey`, or nil when it names no entity of the model or its key
    /// is out of range.
    private static func objectKey(_ stored: Any, model: NSManagedObjectModel) -> ObjectKey? {
        guard let fields = stored as? [String: Any], let name = fields["entity"] as? String,
              let entity = model.entitiesByName[name], let key = fields["key"].flatMap(AttributeValueCoercion.integer),
              (1...StoreNumberLimits.largestStoredNumber).contains(key) else { return nil }
        return ObjectKey(entityNumber: entity.entityNumber, primaryKey: key)
    }

    /// A stored value as `attribute`'s value (in the Swift type `StoreRow` lists for its type), or nil when it
    /// is not one.
    private static func decode(_ stored: Any, as attribute: NSAttributeDescription) -> Any? {
        switch attribute.attributeType {
        case .integer16AttributeType: return AttributeValueCoercion.integer(stored).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return AttributeValueCoercion.integer(stored).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return AttributeValueCoercion.integer(stored)
        case .doubleAttributeType: return AttributeValueCoercion.double(stored)
        case .floatAttributeType: return AttributeValueCoercion.double(stored).map { Float($0) }
        case .booleanAttributeType: return AttributeValueCoercion.boolean(stored)
        case .dateAttributeType: return AttributeValueCoercion.double(stored).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .decimalAttributeType: return (stored as? String).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        case .stringAttributeType: return stored as? String
        case .UUIDAttributeType: return (stored as? String).flatMap(UUID.init(uuidString:))
        case .URIAttributeType: return (stored as? String).flatMap { URL(string: $0) }
        case .binaryDataAttributeType, .transformableAttributeType: return stored as? Data
        case .compositeAttributeType:
            guard let composite = attribute as? NSCompositeAttributeDescription, let fields = stored as? [String: Any] else { return nil }
            var value: [String: Any] = [:]
            for (name, element) in fields {
                guard let description = composite.element(named: name), let decoded = decode(element, as: description) else { return nil }
                value[name] = decoded
            }
            return value
        default: return nil
        }
    }

    // MARK: Writing

    /// The file's bytes for `contents`.
    /// - Throws: 134030 for a value this format cannot hold.
    static func data(of contents: ScratchContents, model: NSManagedObjectModel) throws -> Data {
        var objects: [Any] = []
        for (key, object) in contents.objects.sorted(by: { ($0.key.entityNumber, $0.key.primaryKey) < ($1.key.entityNumber, $1.key.primaryKey) }) {
            objects.append(try fields(of: object, key: key, model: model))
        }
        let root: [String: Any] = [
            formatKey: NSNumber(value: formatVersion),
            "metadata": contents.metadata,
            "keyHighWater": contents.keyHighWater.mapValues { NSNumber(value: $0) },
            "objects": objects,
        ]
        do {
            return try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        } catch {
            throw CoreDataError.saveFailed("the Scratch store's metadata is not a property list", underlying: error)
        }
    }

    /// One object as the file holds it.
    private static func fields(of object: ScratchObject, key: ObjectKey, model: NSManagedObjectModel) throws -> [String: Any] {
        let layout = object.entity.layout
        var values: [String: Any] = [:]
        for slot in layout.storedSlots where slot < object.values.count {
            guard let value = object.values[slot] else { continue }
            let property = layout.allProperties[slot]
            if let destination = value as? ObjectKey {
                values[property.name] = try reference(destination, model: model)
            } else if let attribute = property as? NSAttributeDescription, let encoded = encode(value, as: attribute) {
                values[property.name] = encoded
            } else {
                throw CoreDataError.saveFailed("a Scratch store cannot write \(object.entity.name ?? "").\(property.name)'s value of type \(type(of: value))")
            }
        }
        var toMany: [String: Any] = [:]
        for (name, destinations) in object.toMany {
            toMany[name] = try destinations.map { try reference($0, model: model) }
        }
        var fields = try reference(key, model: model)
        fields["version"] = NSNumber(value: object.version)
        fields["values"] = values
        fields["toMany"] = toMany
        return fields
    }

    /// `{ entity, key }` for an object key.
    private static func reference(_ key: ObjectKey, model: NSManagedObjectModel) throws -> [String: Any] {
        guard let name = model.entity(withNumber: key.entityNumber)?.name else {
            throw CoreDataError.saveFailed("the object \(key) has no entity in the model")
        }
        return ["entity": name, "key": NSNumber(value: key.primaryKey)]
    }

    /// An attribute's value as a property list value, or nil when it is not a value of the attribute's type.
    private static func encode(_ value: Any, as attribute: NSAttributeDescription) -> Any? {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return AttributeValueCoercion.integer(value).map { NSNumber(value: $0) }
        case .doubleAttributeType, .floatAttributeType:
            return AttributeValueCoercion.double(value).map { NSNumber(value: $0) }
        case .booleanAttributeType: return AttributeValueCoercion.boolean(value).map { NSNumber(value: $0) }
        case .dateAttributeType: return (value as? Date).map { NSNumber(value: $0.timeIntervalSinceReferenceDate) }
        case .decimalAttributeType: return (value as? Decimal).map { "\($0)" }
        case .stringAttributeType: return value as? String
        case .UUIDAttributeType: return (value as? UUID)?.uuidString
        case .URIAttributeType: return (value as? URL)?.absoluteString
        case .binaryDataAttributeType, .transformableAttributeType: return value as? Data
        case .compositeAttributeType:
            guard let composite = attribute as? NSCompositeAttributeDescription,
                  let elements = CompositeAttributeValue.entries(of: value) else { return nil }
            var fields: [String: Any] = [:]
            for (name, element) in elements {
                guard let description = composite.element(named: name), let encoded = encode(element, as: description) else { return nil }
                fields[name] = encoded
            }
            return fields
        default: return nil
        }
    }
}

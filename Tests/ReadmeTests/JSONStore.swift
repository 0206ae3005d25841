// The store plugin of the article "Writing a store plugin" (Sources/CoreDataStoreKit/CoreDataStoreKit.docc),
// word for word: keep the two in step. ArticleExampleTests uses it, and runs the conformance suite on it.
import CoreData

/// A store type that keeps its objects in one JSON file, read whole when the store is added and written whole
/// on every save.
final class JSONStore: AtomicStore {
    override class var storeTypeName: String { "JSON" }

    override class func readSnapshot(from url: URL) throws -> AtomicStoreSnapshot {
        let bytes = try Data(contentsOf: url)
        let file: JSONStoreFile
        do {
            file = try JSONDecoder().decode(JSONStoreFile.self, from: bytes)
        } catch {
            throw CoreDataError.notAStore(url, type: storeTypeName, reason: "it is not a JSON store file")
        }
        guard let metadata = BinaryPropertyListCheck.propertyList(from: file.metadata) as? [String: Any] else {
            throw CoreDataError.corruptStore(url, type: storeTypeName, reason: "its metadata is not a property list")
        }
        return AtomicStoreSnapshot(metadata: metadata, objects: file.objects.map(\.snapshotObject),
                                   primaryKeyHighWater: file.primaryKeyHighWater)
    }

    override func writeSnapshot(_ snapshot: AtomicStoreSnapshot, to url: URL) throws {
        let file = JSONStoreFile(
            metadata: try PropertyListSerialization.data(fromPropertyList: snapshot.metadata, format: .binary, options: 0),
            objects: try snapshot.objects.map(JSONStoreFile.Object.init),
            primaryKeyHighWater: snapshot.primaryKeyHighWater)
        try JSONEncoder().encode(file).write(to: url)
    }
}

/// What the file holds: the metadata as a binary property list, every object, and the highest key given out
/// per entity hierarchy.
struct JSONStoreFile: Codable {
    struct Reference: Codable {
        var entity: String
        var key: Int64
    }

    /// An attribute value; the engine converts each back to its attribute's type (`Int64` to `Int16`, …).
    enum Value: Codable {
        case bool(Bool), integer(Int64), real(Double), decimal(Decimal), string(String)
        case date(Date), data(Data), uuid(UUID), url(URL)
    }

    struct Object: Codable {
        var reference: Reference
        var version: Int64
        var attributes: [String: Value]
        var toOne: [String: Reference]
        var toMany: [String: [Reference]]
    }

    var metadata: Data
    var objects: [Object]
    var primaryKeyHighWater: [String: Int64]
}

extension JSONStoreFile.Reference {
    init(_ reference: AtomicStoreSnapshot.Reference) {
        self.init(entity: reference.entityName, key: reference.primaryKey)
    }

    var snapshotReference: AtomicStoreSnapshot.Reference {
        AtomicStoreSnapshot.Reference(entityName: entity, primaryKey: key)
    }
}

extension JSONStoreFile.Value {
    /// The value of a stored attribute, in one of the types `StoreRow` documents.
    init(_ value: Any, attribute: String) throws {
        switch value {
        case let value as Bool: self = .bool(value)
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as Double: self = .real(value)
        case let value as Float: self = .real(Double(value))
        case let value as Decimal: self = .decimal(value)
        case let value as String: self = .string(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as UUID: self = .uuid(value)
        case let value as URL: self = .url(value)
        default:
            throw CoreDataError.saveFailed("a JSON store cannot write \(attribute)'s value of type \(type(of: value))")
        }
    }

    var value: Any {
        switch self {
        case .bool(let value): value
        case .integer(let value): value
        case .real(let value): value
        case .decimal(let value): value
        case .string(let value): value
        case .date(let value): value
        case .data(let value): value
        case .uuid(let value): value
        case .url(let value): value
        }
    }
}

extension JSONStoreFile.Object {
    init(_ object: AtomicStoreSnapshot.Object) throws {
        self.init(reference: JSONStoreFile.Reference(object.reference), version: object.version,
                  attributes: try object.attributes.reduce(into: [:]) { values, attribute in
                      values[attribute.key] = try JSONStoreFile.Value(attribute.value, attribute: attribute.key)
                  },
                  toOne: object.toOne.mapValues(JSONStoreFile.Reference.init),
                  toMany: object.toMany.mapValues { $0.map(JSONStoreFile.Reference.init) })
    }

    var snapshotObject: AtomicStoreSnapshot.Object {
        AtomicStoreSnapshot.Object(reference: reference.snapshotReference, version: version,
                                   attributes: attributes.mapValues(\.value),
                                   toOne: toOne.mapValues(\.snapshotReference),
                                   toMany: toMany.mapValues { $0.map(\.snapshotReference) })
    }
}

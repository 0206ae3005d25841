import CoreDataStoreKit

/// Encodes a snapshot in the binary store format (see `Docs/BinaryStoreFormat.md`).
///
/// Objects are grouped into one table per entity; each table lists its columns (the attribute and relationship
/// names its objects use) once, and each row holds a tagged value per column. Entity names are stored once and
/// referred to by index.
struct BinaryStoreEncoder {
    /// The bytes of a whole file for `snapshot`.
    /// - Throws: 134030 when a value has a type the format cannot hold or the metadata is not a property list.
    func encode(_ snapshot: AtomicStoreSnapshot) throws -> [UInt8] {
        var metadata = snapshot.metadata
        metadata[NSStoreTypeKey] = nil
        var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        if let text = metadata[NSStoreUUIDKey] as? String, let parsed = UUID(uuidString: text), parsed.uuidString == text {
            uuid = parsed
            metadata[NSStoreUUIDKey] = nil
        }
        var hashes: [(String, Data)] = []
        if let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] {
            hashes = stored.sorted { $0.key < $1.key }
            metadata[NSStoreModelVersionHashesKey] = nil
        }

        // Entity names: every name an object, a reference or a high-water mark uses.
        var entityIndex: [String: Int] = [:]
        var entityNames: [String] = []
        func index(of name: String) -> Int {
            if let index = entityIndex[name] { return index }
            entityIndex[name] = entityNames.count
            entityNames.append(name)
            return entityNames.count - 1
        }
        var tables: [Int: [AtomicStoreSnapshot.Object]] = [:]
        for object in snapshot.objects {
            tables[index(of: object.reference.entityName), default: []].append(object)
            for reference in object.toOne.values { _ = index(of: reference.entityName) }
            for references in object.toMany.values { for reference in references { _ = index(of: reference.entityName) } }
        }
        for name in snapshot.primaryKeyHighWater.keys.sorted() { _ = index(of: name) }

        var out = ByteWriter(capacity: 64 * snapshot.objects.count + 4096)
        out.raw(BinaryStoreFormat.magic)
        out.fixed(BinaryStoreFormat.version)
        out.fixed(UInt16(0))
        out.fixed(UInt32(0))
        out.fixed(UInt64(0)) // body length, patched below
        out.raw(withUnsafeBytes(of: uuid.uuid) { Array($0) })

        // 1. Metadata.
        if metadata.isEmpty {
            out.count(0)
        } else {
            do {
                out.blob(try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0))
            } catch {
                throw CoreDataError.saveFailed("the store metadata is not a property list (\(error.localizedDescription))")
            }
        }
        // 2. Model version hashes.
        out.count(hashes.count)
        for (name, hash) in hashes {
            out.string(name)
            out.blob(hash)
        }
        // 3. Entity names.
        out.count(entityNames.count)
        for name in entityNames { out.string(name) }
        // 4. Primary-key high-water marks.
        out.count(snapshot.primaryKeyHighWater.count)
        for (name, value) in snapshot.primaryKeyHighWater.sorted(by: { $0.key < $1.key }) {
            out.count(index(of: name))
            out.varuint(UInt64(max(value, 0)))
        }
        // 5. Tables.
        out.count(tables.count)
        for (entity, objects) in tables.sorted(by: { $0.key < $1.key }) {
            try writeTable(entity: entity, objects: objects, entityIndex: entityIndex, into: &out)
        }

        out.patch(UInt64(out.bytes.count - BinaryStoreFormat.headerSize), at: 16)
        let crc = out.bytes.withUnsafeBytes { CRC32.checksum($0) }
        out.fixed(crc)
        return out.bytes
    }

    private func writeTable(entity: Int, objects: [AtomicStoreSnapshot.Object], entityIndex: [String: Int],
                            into out: inout ByteWriter) throws {
        var attributeNames = Set<String>(), toOneNames = Set<String>(), toManyNames = Set<String>()
        for object in objects {
            attributeNames.formUnion(object.attributes.keys)
            toOneNames.formUnion(object.toOne.keys)
            toManyNames.formUnion(object.toMany.keys)
        }
        let attributes = attributeNames.sorted(), toOne = toOneNames.sorted(), toMany = toManyNames.sorted()
        out.count(entity)
        out.count(attributes.count + toOne.count + toMany.count)
        for name in attributes { out.byte(BinaryStoreFormat.ColumnKind.attribute.rawValue); out.string(name) }
        for name in toOne { out.byte(BinaryStoreFormat.ColumnKind.toOne.rawValue); out.string(name) }
        for name in toMany { out.byte(BinaryStoreFormat.ColumnKind.toMany.rawValue); out.string(name) }
        out.count(objects.count)
        func reference(_ reference: AtomicStoreSnapshot.Reference) {
            out.count(entityIndex[reference.entityName] ?? 0)
            out.varuint(UInt64(max(reference.primaryKey, 0)))
        }
        for object in objects.sorted(by: { $0.reference.primaryKey < $1.reference.primaryKey }) {
            guard object.reference.primaryKey > 0 else {
                throw CoreDataError.saveFailed("an object of \(object.reference.entityName) has primary key \(object.reference.primaryKey)")
            }
            out.varuint(UInt64(object.reference.primaryKey))
            out.varuint(UInt64(max(object.version, 1)))
            for name in attributes {
                guard let value = object.attributes[name] else { out.byte(BinaryStoreFormat.Tag.none.rawValue); continue }
                try writeValue(value, into: &out, owner: "\(object.reference.entityName).\(name)")
            }
            for name in toOne {
                guard let target = object.toOne[name] else { out.byte(BinaryStoreFormat.Tag.none.rawValue); continue }
                out.byte(BinaryStoreFormat.Tag.reference.rawValue)
                reference(target)
            }
            for name in toMany {
                guard let targets = object.toMany[name] else { out.byte(BinaryStoreFormat.Tag.none.rawValue); continue }
                out.byte(BinaryStoreFormat.Tag.references.rawValue)
                out.count(targets.count)
                for target in targets { reference(target) }
            }
        }
    }

    private func writeValue(_ value: Any, into out: inout ByteWriter, owner: String) throws {
        typealias Tag = BinaryStoreFormat.Tag
        switch value {
        case let v as Int16: out.byte(Tag.int16.rawValue); out.varint(Int64(v))
        case let v as Int32: out.byte(Tag.int32.rawValue); out.varint(Int64(v))
        case let v as Int64: out.byte(Tag.int64.rawValue); out.varint(v)
        case let v as Bool: out.byte(v ? Tag.boolTrue.rawValue : Tag.boolFalse.rawValue)
        case let v as Double: out.byte(Tag.double.rawValue); out.fixed(v.bitPattern)
        case let v as Float: out.byte(Tag.float.rawValue); out.fixed(v.bitPattern)
        case let v as Decimal:
            guard !v.isNaN else { throw CoreDataError.saveFailed("\(owner) holds a decimal NaN, which the binary store cannot write") }
            out.byte(Tag.decimal.rawValue); out.string(v.description)
        case let v as String: out.byte(Tag.string.rawValue); out.string(v)
        case let v as Date: out.byte(Tag.date.rawValue); out.fixed(v.timeIntervalSinceReferenceDate.bitPattern)
        case let v as Data: out.byte(Tag.data.rawValue); out.blob(v)
        case let v as UUID: out.byte(Tag.uuid.rawValue); out.raw(withUnsafeBytes(of: v.uuid) { Array($0) })
        case let v as URL: out.byte(Tag.url.rawValue); out.string(v.absoluteString)
        default:
            throw CoreDataError.saveFailed("the binary store cannot write the \(type(of: value)) value of \(owner)")
        }
    }
}

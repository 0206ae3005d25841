import CoreDataStoreKit

/// Decodes a binary store file (see `Docs/BinaryStoreFormat.md`) into a snapshot.
///
/// Order of checks: a file that does not start with the magic number (or a prefix of it) is not a binary store
/// (134000); then the length and the CRC-32 over the whole file are checked before anything else is used, so a
/// truncated file or a flipped byte is reported as damaged (259); then a format version other than 1 is
/// refused (134000). Every read after that is bounds-checked too, so a file crafted with a valid checksum still fails
/// with 259 instead of trapping.
struct BinaryStoreDecoder {
    let url: URL?

    func decode(_ data: Data) throws -> AtomicStoreSnapshot {
        try data.withUnsafeBytes { try decode($0) }
    }

    private func corrupt(_ reason: String) -> NSError {
        CoreDataError.corruptStore(url, type: NSBinaryStoreType, reason: reason)
    }

    private func decode(_ file: UnsafeRawBufferPointer) throws -> AtomicStoreSnapshot {
        let magic = BinaryStoreFormat.magic
        guard !file.isEmpty else { throw CoreDataError.notAStore(url, type: NSBinaryStoreType, reason: "the file is empty") }
        let prefixLength = min(file.count, magic.count)
        guard file.prefix(prefixLength).elementsEqual(magic.prefix(prefixLength)) else {
            throw CoreDataError.notAStore(url, type: NSBinaryStoreType, reason: "it does not start with the binary store's magic number")
        }
        let minimum = BinaryStoreFormat.headerSize + BinaryStoreFormat.trailerSize
        guard file.count >= minimum else { throw corrupt("the file is truncated (\(file.count) bytes)") }
        var header = ByteReader(file, offset: magic.count)
        let version = try header.fixed(UInt16.self)
        let flags = try header.fixed(UInt16.self)
        let reserved = try header.fixed(UInt32.self)
        let bodyLength = try header.fixed(UInt64.self)
        guard bodyLength == UInt64(file.count - minimum) else {
            throw corrupt("the header announces \(bodyLength) bytes of content but the file holds \(file.count - minimum)")
        }
        let checked = UnsafeRawBufferPointer(rebasing: file[0..<(file.count - BinaryStoreFormat.trailerSize)])
        var trailer = ByteReader(file, offset: file.count - BinaryStoreFormat.trailerSize)
        let stored = try trailer.fixed(UInt32.self)
        guard CRC32.checksum(checked) == stored else { throw corrupt("its checksum does not match its contents") }
        guard version == BinaryStoreFormat.version else {
            throw CoreDataError.notAStore(url, type: NSBinaryStoreType, reason: "its format version is \(version); this library reads version \(BinaryStoreFormat.version)")
        }
        guard flags == 0, reserved == 0 else { throw corrupt("reserved header fields are not zero") }
        let uuidBytes = try header.bytes(16)
        let uuid = UUID(uuid: uuidBytes.loadUnaligned(as: uuid_t.self))

        var reader = ByteReader(checked, offset: BinaryStoreFormat.headerSize)
        do {
            return try body(&reader, uuid: uuid)
        } catch is ByteReader.OutOfBounds {
            throw corrupt("a length or count runs past the end of the file")
        } catch let malformed as ByteReader.Malformed {
            throw corrupt(malformed.reason)
        }
    }

    private func body(_ reader: inout ByteReader, uuid: UUID) throws -> AtomicStoreSnapshot {
        // 1. Metadata.
        var metadata: [String: Any] = [:]
        let plist = try reader.blob()
        if !plist.isEmpty {
            let value: Any
            // Foundation's decoder can crash on a damaged binary property list: check its structure first.
            guard BinaryPropertyListCheck.isWellFormed(Data(plist)) else { throw corrupt("its metadata is not a binary property list") }
            do {
                value = try PropertyListSerialization.propertyList(from: Data(plist), options: [], format: nil)
            } catch {
                throw corrupt("its metadata is not a property list")
            }
            guard let dictionary = value as? [String: Any] else { throw corrupt("its metadata is not a dictionary") }
            metadata = dictionary
        }
        metadata[NSStoreTypeKey] = NSBinaryStoreType
        if metadata[NSStoreUUIDKey] == nil { metadata[NSStoreUUIDKey] = uuid.uuidString }
        // 2. Model version hashes.
        let hashCount = try reader.count(minimumSize: 2)
        if hashCount > 0 {
            var hashes: [String: Data] = [:]
            for _ in 0..<hashCount {
                let name = try reader.string()
                hashes[name] = Data(try reader.blob())
            }
            metadata[NSStoreModelVersionHashesKey] = hashes
        }
        // 3. Entity names.
        let entityCount = try reader.count()
        var entityNames: [String] = []
        entityNames.reserveCapacity(entityCount)
        for _ in 0..<entityCount { entityNames.append(try reader.string()) }
        func entityName(_ reader: inout ByteReader) throws -> String {
            let index = try reader.varuint()
            guard index < UInt64(entityNames.count) else { throw ByteReader.Malformed(reason: "an entity index is \(index) of \(entityNames.count)") }
            return entityNames[Int(index)]
        }
        // 4. High-water marks.
        var highWater: [String: Int64] = [:]
        for _ in 0..<(try reader.count(minimumSize: 2)) {
            let name = try entityName(&reader)
            let value = try reader.varuint()
            guard value <= UInt64(Int64.max) else { throw ByteReader.Malformed(reason: "a high-water mark is too large") }
            highWater[name] = Int64(value)
        }
        // 5. Tables.
        var objects: [AtomicStoreSnapshot.Object] = []
        for _ in 0..<(try reader.count(minimumSize: 3)) {
            let entity = try entityName(&reader)
            var columns: [(kind: BinaryStoreFormat.ColumnKind, name: String)] = []
            for _ in 0..<(try reader.count(minimumSize: 2)) {
                guard let kind = BinaryStoreFormat.ColumnKind(rawValue: try reader.byte()) else {
                    throw ByteReader.Malformed(reason: "a column of \(entity) has an unknown kind")
                }
                columns.append((kind, try reader.string()))
            }
            let rowCount = try reader.count(minimumSize: 2 + columns.count)
            objects.reserveCapacity(objects.count + rowCount)
            for _ in 0..<rowCount {
                let key = try reader.positive()
                var object = AtomicStoreSnapshot.Object(reference: .init(entityName: entity, primaryKey: key), version: try reader.positive())
                for column in columns {
                    guard let tag = BinaryStoreFormat.Tag(rawValue: try reader.byte()) else {
                        throw ByteReader.Malformed(reason: "\(entity).\(column.name) has an unknown value tag")
                    }
                    if tag == .none { continue }
                    switch (column.kind, tag) {
                    case (.toOne, .reference):
                        object.toOne[column.name] = .init(entityName: try entityName(&reader), primaryKey: try reader.positive())
                    case (.toMany, .references):
                        let count = try reader.count(minimumSize: 2)
                        var targets: [AtomicStoreSnapshot.Reference] = []
                        targets.reserveCapacity(count)
                        for _ in 0..<count { targets.append(.init(entityName: try entityName(&reader), primaryKey: try reader.positive())) }
                        object.toMany[column.name] = targets
                    case (.attribute, _):
                        object.attributes[column.name] = try attributeValue(tag, &reader, owner: "\(entity).\(column.name)")
                    default:
                        throw ByteReader.Malformed(reason: "\(entity).\(column.name) holds a value of the wrong kind")
                    }
                }
                objects.append(object)
            }
        }
        guard reader.remaining == 0 else { throw corrupt("\(reader.remaining) bytes follow the last table") }
        return AtomicStoreSnapshot(metadata: metadata, objects: objects, primaryKeyHighWater: highWater)
    }

    private func attributeValue(_ tag: BinaryStoreFormat.Tag, _ reader: inout ByteReader, owner: String) throws -> Any {
        func fits<T: FixedWidthInteger>(_: T.Type) throws -> T {
            let value = try reader.varint()
            guard let exact = T(exactly: value) else { throw ByteReader.Malformed(reason: "\(owner) holds \(value), too large for \(T.self)") }
            return exact
        }
        switch tag {
        case .int16: return try fits(Int16.self)
        case .int32: return try fits(Int32.self)
        case .int64: return try reader.varint()
        case .decimal:
            let text = try reader.string()
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else {
                throw ByteReader.Malformed(reason: "\(owner) holds an invalid decimal")
            }
            return value
        case .double: return Double(bitPattern: try reader.fixed(UInt64.self))
        case .float: return Float(bitPattern: try reader.fixed(UInt32.self))
        case .string: return try reader.string()
        case .boolFalse: return false
        case .boolTrue: return true
        case .date: return Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.fixed(UInt64.self)))
        case .data: return Data(try reader.blob())
        case .uuid: return UUID(uuid: try reader.bytes(16).loadUnaligned(as: uuid_t.self))
        case .url:
            let text = try reader.string()
            guard let url = URL(string: text) else { throw ByteReader.Malformed(reason: "\(owner) holds an invalid URL") }
            return url
        case .none, .reference, .references:
            throw ByteReader.Malformed(reason: "\(owner) holds a relationship value in an attribute column")
        }
    }
}

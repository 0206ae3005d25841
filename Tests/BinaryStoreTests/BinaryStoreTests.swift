import Testing
import CoreData
import StoreTestSupport

/// CRC-32 (zlib's), computed bit by bit: an implementation independent of the store's table-driven one.
func referenceCRC32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
}

func littleEndian<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, as: T.Type) -> T {
    var value: T = 0
    for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
    return value
}

/// Replaces the body length and checksum so a modified file passes the integrity checks.
func resealed(_ bytes: [UInt8]) -> Data {
    var body = Array(bytes.dropLast(4))
    let length = UInt64(max(body.count - 40, 0))
    if body.count >= 24 { for index in 0..<8 { body[16 + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt64(index))) } }
    let crc = referenceCRC32(body)
    return Data(body + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * UInt32($0))) })
}

/// The binary store keeps every value, and its files follow `Docs/BinaryStoreFormat.md`.
@Suite struct BinaryStoreTests {
    @Test func everyTypeSurvivesReopening() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let model = everyTypeModel()
        let context = try openStore(.binary, at: url, model: model)
        try populate(context, items: 40)
        try context.performAndWait { () throws -> Void in
            let entity = try #require(model.entitiesByName["Item"])
            let texts = ["", "nul \u{0} and bell \u{7}", "emoji 🧪", "line\r\nbreak"]
            for (index, text) in texts.enumerated() {
                let item = NSManagedObject(entity: entity, insertInto: context)
                item.setValue(text, forKey: "title")
                item.setValue([-0.0, .infinity, 5e-324, -1e308][index], forKey: "ratio")
                item.setValue([Int64.min, Int64.max, 0, -1][index], forKey: "count64")
                item.setValue([Int16.min, Int16.max, 0, -1][index], forKey: "count16")
                item.setValue(Decimal(string: ["0", "-1.5", "12345678901234567890.123", "0.000001"][index]), forKey: "price")
            }
            let dog = NSManagedObject(entity: try #require(model.entitiesByName["Dog"]), insertInto: context)
            dog.setValue("Rex", forKey: "name")
            dog.setValue("collie", forKey: "breed")
            try context.save()
        }
        let before = try dump(context, model: model)
        let after = try dump(openStore(.binary, at: url, model: model), model: model)
        #expect(before.count == 40 + 3 + 1 + 4 + 1)
        for (key, values) in before where after[key] != values {
            Issue.record("\(key): \(values.filter { after[key]?[$0.key] != $0.value }) became \(after[key]?.filter { values[$0.key] != $0.value } ?? [:])")
        }
        #expect(after.count == before.count)
    }

    /// This package's earlier format (`Docs/BinaryStoreFormat.md`, "This package's format, version 1").
    @Test func earlierFormatLayoutMatchesTheDocumentation() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let context = try openStore(.binary, at: url, model: everyTypeModel())
        try populate(context, items: 5)
        let bytes = [UInt8](try legacyCopy(of: url, model: everyTypeModel()))
        #expect(Array(bytes.prefix(8)) == [0x89, 0x43, 0x44, 0x42, 0x49, 0x4E, 0x0D, 0x0A])
        #expect(littleEndian(bytes, at: 8, as: UInt16.self) == 1)
        #expect(littleEndian(bytes, at: 10, as: UInt16.self) == 0)
        #expect(littleEndian(bytes, at: 12, as: UInt32.self) == 0)
        #expect(littleEndian(bytes, at: 16, as: UInt64.self) == UInt64(bytes.count - 44))
        #expect(littleEndian(bytes, at: bytes.count - 4, as: UInt32.self) == referenceCRC32(bytes.dropLast(4)))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        let uuid = try #require(UUID(uuidString: metadata[NSStoreUUIDKey] as? String ?? ""))
        #expect(withUnsafeBytes(of: uuid.uuid) { Array($0) } == Array(bytes[24..<40]))
        #expect(metadata[NSStoreTypeKey] as? String == "Binary")
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Data])?["Item"]?.count == 32)
        // Entity and column names are stored once, not per object.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "count16").count == 2)
    }

    /// The earlier format's worked example in `Docs/BinaryStoreFormat.md`, byte for byte after the metadata.
    @Test func earlierFormatWorkedExampleMatchesTheDocumentation() throws {
        let tag = NSEntityDescription(name: "Tag")
        tag.properties = [NSAttributeDescription(name: "name", type: .string)]
        let model = NSManagedObjectModel(entities: [tag])
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let context = try openStore(.binary, at: url, model: model)
        try context.performAndWait { () throws -> Void in
            NSManagedObject(entity: tag, insertInto: context).setValue("a", forKey: "name")
            try context.save()
        }
        let bytes = [UInt8](try legacyCopy(of: url, model: model))
        var offset = 40, metadataLength = 0, shift = 0
        while true {
            let byte = bytes[offset]; offset += 1
            metadataLength |= Int(byte & 0x7F) << shift; shift += 7
            if byte & 0x80 == 0 { break }
        }
        #expect(Array(bytes[offset..<(offset + 8)]) == Array("bplist00".utf8))
        offset += metadataLength
        let hash = [UInt8](tag.versionHash)
        let expected: [UInt8] = [0x01, 0x03] + Array("Tag".utf8) + [0x20] + hash
            + [0x01, 0x03] + Array("Tag".utf8)
            + [0x01, 0x00, 0x01]
            + [0x01, 0x00, 0x01, 0x00, 0x04] + Array("name".utf8) + [0x01, 0x01, 0x01, 0x07, 0x01] + Array("a".utf8)
        #expect(Array(bytes[offset..<(bytes.count - 4)]) == expected)
    }

    @Test func binaryFilesAreSmallerThanXML() throws {
        let directory = TemporaryDirectory()
        let binary = directory.file("store.binary"), xml = directory.file("store.xml")
        try populate(try openStore(.binary, at: binary, model: everyTypeModel()), items: 300)
        try populate(try openStore(.xml, at: xml, model: everyTypeModel()), items: 300)
        let binarySize = try FileManager.default.attributesOfItem(atPath: binary.path)[.size] as? Int ?? 0
        let xmlSize = try FileManager.default.attributesOfItem(atPath: xml.path)[.size] as? Int ?? 0
        #expect(binarySize < xmlSize, "binary \(binarySize) bytes, XML \(xmlSize) bytes")
        let earlierSize = try legacyCopy(of: binary, model: everyTypeModel()).count
        #expect(earlierSize * 3 < xmlSize, "earlier format \(earlierSize) bytes, XML \(xmlSize) bytes")
    }

    @Test func metadataAndModelCheck() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let context = try openStore(.binary, at: url, model: everyTypeModel())
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        var metadata = coordinator.metadata(for: store)
        metadata["com.example.when"] = Date(timeIntervalSinceReferenceDate: 1234)
        metadata["com.example.list"] = ["a", "b"]
        coordinator.setMetadata(metadata, for: store)
        try populate(context, items: 1)
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(read["com.example.when"] as? Date == Date(timeIntervalSinceReferenceDate: 1234))
        #expect(read["com.example.list"] as? [String] == ["a", "b"])
        let changed = everyTypeModel()
        changed.entitiesByName["Tag"]?.properties.append(NSAttributeDescription(name: "color", type: .string))
        #expect(errorCode { _ = try openStore(.binary, at: url, model: changed) } == 134100)
        // With the migration options the store opens, keeping its objects, and is rewritten for the new model.
        let migrated = try openStore(.binary, at: url, model: changed, options: [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        #expect(try migrated.performAndWait { try migrated.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 1)
        #expect(throws: Never.self) { _ = try openStore(.binary, at: url, model: changed) }
    }
}

import Testing
import CoreData
import StoreTestSupport
@testable import CoreDataBinary

/// The binary store reads and writes Apple's binary store format (`Docs/BinaryStoreFormat.md`, "Apple's
/// format"); Foundation's own `NSKeyedArchiver`/`NSKeyedUnarchiver` stand in for Apple's Core Data on both sides.
@Suite struct AppleBinaryFormatTests {
    /// Every object's primary key in the store, by "Entity/pN".
    private func keys(_ context: NSManagedObjectContext, model: NSManagedObjectModel) throws -> [Int64] {
        try dump(context, model: model).keys.compactMap { Int64($0.split(separator: "/").last?.dropFirst() ?? "") }
    }

    @Test func headerFollowsTheDocumentation() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let model = everyTypeModel()
        let context = try openStore(.binary, at: url, model: model)
        try populate(context, items: 5)
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes.prefix(8)) == Array("CoreData".utf8))
        #expect(bigEndian(bytes, at: 8, as: UInt32.self) == 1)
        #expect(bigEndian(bytes, at: 12, as: UInt32.self) == 134_481_920)
        let mapLength = bigEndian(bytes, at: 40, as: UInt64.self)
        #expect(bigEndian(bytes, at: 32, as: UInt64.self) == 64)
        #expect(bigEndian(bytes, at: 16, as: UInt64.self) == 64 + mapLength)
        #expect(bigEndian(bytes, at: 24, as: UInt64.self) == UInt64(bytes.count) - 64 - mapLength)
        // One key sequence for the whole store: keys are unique across entities and the header has the last.
        let all = try keys(context, model: model)
        #expect(Set(all).count == all.count)
        #expect(bigEndian(bytes, at: 48, as: UInt64.self) == UInt64(all.max() ?? 0))
        #expect(Array(bytes[56..<60]) == Array("CDCK".utf8))
        var zeroed = bytes
        zeroed.replaceSubrange(60..<64, with: [0, 0, 0, 0])
        #expect(bigEndian(bytes, at: 60, as: UInt32.self) == referenceCRC32(zeroed))
        #expect(Array(bytes[64..<72]) == Array("bplist00".utf8))
    }

    /// Foundation's unarchiver reads both archives: the metadata dictionary, and the map from key to node
    /// with Apple's keys and attribute values at Apple's positions.
    @Test func archivesReadWithFoundationsUnarchiver() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let model = everyTypeModel()
        let context = try openStore(.binary, at: url, model: model)
        try populate(context, items: 4)
        let bytes = [UInt8](try Data(contentsOf: url))
        let mapLength = Int(bigEndian(bytes, at: 40, as: UInt64.self))
        let metadataData = Data(bytes[(64 + mapLength)...])
        let metadata = try #require(try foundationUnarchive(metadataData, key: "metadata") as? NSDictionary)
        let stored = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(metadata["NSStoreType"] as? String == "Binary")
        #expect(metadata["NSStoreUUID"] as? String == stored[NSStoreUUIDKey] as? String)
        #expect(((metadata["NSStoreModelVersionHashes"] as? NSDictionary)?["Item"] as? Data)?.count == 32)

        let map = try #require(try foundationUnarchive(Data(bytes[64..<(64 + mapLength)]), key: "mapData") as? NSDictionary)
        let nodes = map.compactMap { $0.value as? AppleStyleNode }
        #expect(nodes.count == 4 + 3 + 1)
        for (key, value) in map {
            #expect((key as? NSNumber)?.int64Value == (value as? AppleStyleNode)?.primaryKey)
        }
        // Item's properties in Apple's order: stored attributes by name, the to-one, the to-many.
        let order = ["count16", "count32", "count64", "createdAt", "identifier", "isDone", "link", "payload", "price",
                     "ratio", "title", "weight", "owner", "tags"]
        #expect(ApplePropertyOrder.names(of: try #require(model.entitiesByName["Item"])) == order)
        let first = try #require(nodes.first { $0.entityName == "Item" && ($0.attributeValues[10] as? String) == "item 0" })
        #expect(first.attributeValues.count == order.count)
        #expect((first.attributeValues[5] as? NSNumber)?.boolValue == true)
        #expect((first.attributeValues[2] as? NSNumber)?.int64Value == 0)
        #expect(first.attributeValues[12] is NSNull && first.attributeValues[13] is NSNull)
        let uuid = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000000"))
        #expect((first.attributeValues[4] as? InlineBytesValue)?.fields["NS.uuidbytes"] as? Data == withUnsafeBytes(of: uuid.uuid) { Data($0) })
        let price = try #require(first.attributeValues[8] as? InlineBytesValue)
        #expect(price.fields["NS.exponent"] as? Int == -2 && price.fields["NS.negative"] as? Bool == false)
        #expect((price.fields["NS.mantissa"] as? Data)?.prefix(2) == Data([25, 0]))
        #expect((first.attributeValues[3] as? NSDate)?.timeIntervalSinceReferenceDate == 700_000_000)
        #expect((first.attributeValues[6] as? NSURL)?.absoluteString == "https://example.com/items/0?q=a&b=c")
        let owner = try #require(nodes.first { $0.entityName == "Owner" })
        let tags = nodes.filter { $0.entityName == "Tag" }.map(\.primaryKey)
        #expect(first.relatedNodes["owner"] == [owner.primaryKey])
        #expect(first.relatedNodes["tags"]?.count == 1 && tags.contains(first.relatedNodes["tags"]?[0] ?? -1))
        #expect(Set(owner.relatedNodes["ownedItems"] ?? []).count == 2)
    }

    /// A model of two entities, the file Foundation's archiver makes of it as Apple's Core Data would, and the
    /// store reads it: values by position, relationships, metadata, the key sequence.
    @Test func fileArchivedLikeApplesOpens() throws {
        let note = NSEntityDescription(name: "Note"), folder = NSEntityDescription(name: "Folder")
        let noteFolder = NSRelationshipDescription(name: "folder", destination: folder, toMany: false)
        let folderNotes = NSRelationshipDescription(name: "notes", destination: note, toMany: true)
        noteFolder.inverseRelationship = folderNotes
        folderNotes.inverseRelationship = noteFolder
        note.properties = [NSAttributeDescription(name: "title", type: .string), NSAttributeDescription(name: "when", type: .date),
                           NSAttributeDescription(name: "count", type: .integer64), NSAttributeDescription(name: "flag", type: .boolean), noteFolder]
        folder.properties = [NSAttributeDescription(name: "name", type: .string), folderNotes]
        let model = NSManagedObjectModel(entities: [note, folder])
        #expect(ApplePropertyOrder.names(of: note) == ["count", "flag", "title", "when", "folder"])

        let map = NSMutableDictionary()
        map[NSNumber(value: 3)] = AppleStyleNode(primaryKey: 3, entityName: "Folder", relatedNodes: ["notes": [5, 7]],
                                                  attributeValues: [NSString(string: "Inbox"), NSNull()])
        map[NSNumber(value: 5)] = AppleStyleNode(primaryKey: 5, entityName: "Note", relatedNodes: ["folder": [3]],
                                                  attributeValues: [NSNumber(value: 42), NSNumber(value: true), NSString(string: "first"),
                                                                    NSDate(timeIntervalSinceReferenceDate: 123.5), NSNull()])
        map[NSNumber(value: 7)] = AppleStyleNode(primaryKey: 7, entityName: "Note", relatedNodes: ["folder": [3]],
                                                  attributeValues: [NSNull(), NSNumber(value: false), NSString(string: "second"), NSNull(), NSNull()])
        let hashes = NSMutableDictionary()
        for (name, hash) in model.entityVersionHashesByName { hashes[NSString(string: name)] = NSData(data: hash) }
        let metadata = NSMutableDictionary()
        metadata["NSStoreType"] = NSString(string: "Binary")
        metadata["NSStoreUUID"] = NSString(string: "0B5E8D0C-3D9A-4C55-9E2A-6E5E2E3C8F11")
        metadata["NSStoreModelVersionHashes"] = hashes
        metadata["NSStoreModelVersionHashesVersion"] = NSNumber(value: 3)
        let directory = TemporaryDirectory()
        let url = directory.file("apple.binary")
        try appleFile(map: foundationArchive(map, key: "mapData"), metadata: foundationArchive(metadata, key: "metadata"),
                      primaryKeyGeneration: 9).write(to: url)

        // Values by position mean nothing with another model: refused, not misread (and the file left alone);
        // a migration needs the model that saved the file, which a model built in code cannot point to
        // (AppleBinaryMigrationTests migrates from a package's version).
        let changed = try #require(model.copy() as? NSManagedObjectModel)
        changed.entitiesByName["Note"]?.properties.append(NSAttributeDescription(name: "color", type: .string))
        let migrate = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        let written = try Data(contentsOf: url)
        #expect(errorCode { _ = try openStore(.binary, at: url, model: changed) } == 134100)
        #expect(errorCode { _ = try openStore(.binary, at: url, model: changed, options: migrate) } == 134130)
        #expect(try Data(contentsOf: url) == written)

        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(read[NSStoreUUIDKey] as? String == "0B5E8D0C-3D9A-4C55-9E2A-6E5E2E3C8F11")
        let context = try openStore(.binary, at: url, model: model)
        let contents = try dump(context, model: model)
        #expect(contents["Folder/p3"]?["name"] == "String:Inbox")
        #expect(contents["Folder/p3"]?["notes"] == "->p5,p7")
        #expect(contents["Note/p5"]?["count"]?.hasSuffix(":42") == true)
        #expect(contents["Note/p5"]?["flag"]?.hasSuffix(":1") == true)
        #expect(contents["Note/p5"]?["title"] == "String:first")
        #expect(contents["Note/p5"]?["folder"] == "->Folder/p3")
        #expect(contents["Note/p7"]?["when"] == nil)
        #expect(contents["Note/p7"]?["flag"]?.hasSuffix(":0") == true)
        // New objects continue the store's one key sequence after the header's generation.
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context).setValue("Later", forKey: "name")
            try context.save()
        }
        let reopened = try dump(openStore(.binary, at: url, model: model), model: model)
        #expect(reopened["Folder/p10"]?["name"] == "String:Later")
        #expect(reopened["Note/p5"] == contents["Note/p5"])

    }

    /// Files this package writes list their property names, so a lightweight migration reads them by name.
    @Test func ownFilesMigrateByName() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        try populate(try openStore(.binary, at: url, model: everyTypeModel()), items: 6)
        let before = try dump(openStore(.binary, at: url, model: everyTypeModel()), model: everyTypeModel())
        let changed = everyTypeModel()
        changed.entitiesByName["Item"]?.properties.insert(NSAttributeDescription(name: "aardvark", type: .string), at: 0)
        let migrate = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        let after = try dump(openStore(.binary, at: url, model: changed, options: migrate), model: changed)
        #expect(after == before)
    }

    /// A transformable value is archived as the object itself (an `NSArray` here), as Apple's store keeps it,
    /// and reads back as the same value.
    @Test func transformableValuesAreArchivedAsObjects() throws {
        let entity = NSEntityDescription(name: "Prefs")
        entity.properties = [NSAttributeDescription(name: "tags", type: .transformable), NSAttributeDescription(name: "name", type: .string)]
        let model = NSManagedObjectModel(entities: [entity])
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let context = try openStore(.binary, at: url, model: model)
        try context.performAndWait {
            let prefs = NSEntityDescription.insertNewObject(forEntityName: "Prefs", into: context)
            prefs.setValue(["a", "b"], forKey: "tags")
            prefs.setValue("p", forKey: "name")
            try context.save()
        }
        let bytes = [UInt8](try Data(contentsOf: url))
        let mapLength = Int(bigEndian(bytes, at: 40, as: UInt64.self))
        let map = try #require(try foundationUnarchive(Data(bytes[64..<(64 + mapLength)]), key: "mapData") as? NSDictionary)
        let node = try #require(map.allValues.first as? AppleStyleNode)
        #expect((node.attributeValues[1] as? NSArray)?.compactMap { $0 as? String } == ["a", "b"])
        let reopened = try openStore(.binary, at: url, model: model)
        try reopened.performAndWait {
            let prefs = try #require(try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Prefs")).first)
            #expect(prefs.value(forKey: "tags") as? [String] == ["a", "b"])
        }
    }

    /// Apple's order: groups by kind (stored attributes, transient attributes, to-ones, unordered then ordered
    /// to-manys, transient relationships, fetched properties), names sorted within a group, and a subentity's
    /// own properties after the ones it inherits in each group.
    @Test func propertyOrderFollowsApples() throws {
        let parent = NSEntityDescription(name: "Parent"), child = NSEntityDescription(name: "Child"), other = NSEntityDescription(name: "Other")
        parent.subentities = [child]
        let transient = NSAttributeDescription(name: "scratch", type: .string)
        transient.isTransient = true
        let ordered = NSRelationshipDescription(name: "list", destination: other, toMany: true)
        ordered.isOrdered = true
        let transientOne = NSRelationshipDescription(name: "cache", destination: other, toMany: false)
        transientOne.isTransient = true
        parent.properties = [NSAttributeDescription(name: "zeta", type: .string), NSAttributeDescription(name: "Alpha", type: .string),
                             NSRelationshipDescription(name: "many", destination: other, toMany: true), ordered,
                             NSRelationshipDescription(name: "one", destination: other, toMany: false), transient, transientOne,
                             NSAttributeDescription(name: "beta", type: .integer32)]
        child.properties = [NSAttributeDescription(name: "aaa", type: .string), NSRelationshipDescription(name: "another", destination: other, toMany: false)]
        other.properties = [NSAttributeDescription(name: "name", type: .string)]
        _ = NSManagedObjectModel(entities: [parent, child, other])
        #expect(ApplePropertyOrder.names(of: parent) == ["Alpha", "beta", "zeta", "scratch", "one", "many", "list", "cache"])
        #expect(ApplePropertyOrder.names(of: child) == ["Alpha", "beta", "zeta", "aaa", "scratch", "one", "another", "many", "list", "cache"])
    }

    /// A file in this package's earlier format opens, and its saves keep that format (its keys are per entity).
    @Test func earlierFormatStillOpensAndStaysInIt() throws {
        let directory = TemporaryDirectory()
        let source = directory.file("source.binary"), url = directory.file("legacy.binary")
        let model = everyTypeModel()
        try populate(try openStore(.binary, at: source, model: model), items: 5)
        try legacyCopy(of: source, model: model).write(to: url)
        #expect(Array(try Data(contentsOf: url).prefix(8)) == [0x89, 0x43, 0x44, 0x42, 0x49, 0x4E, 0x0D, 0x0A])
        let before = try dump(openStore(.binary, at: source, model: model), model: model)
        let context = try openStore(.binary, at: url, model: model)
        #expect(try dump(context, model: model) == before)
        try populate(context, items: 2, titlePrefix: "more")
        #expect(Array(try Data(contentsOf: url).prefix(8)) == [0x89, 0x43, 0x44, 0x42, 0x49, 0x4E, 0x0D, 0x0A])
        #expect(try dump(openStore(.binary, at: url, model: model), model: model).count == before.count + 2 + 3 + 1)
    }

    // MARK: Damage

    private func validStore(items: Int) throws -> Data {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        try populate(try openStore(.binary, at: url, model: everyTypeModel()), items: items)
        return try Data(contentsOf: url)
    }

    /// Where a file's parts meet: the map archive's start and end (the metadata archive's start) and the end.
    private func partBoundaries(of file: [UInt8]) -> [Int] {
        let mapEnd = 64 + Int(bigEndian(file, at: 40, as: UInt64.self))
        return [64, mapEnd, file.count]
    }

    /// Truncations are damage (259): every length inside the header, every length within 40 bytes of where the
    /// map archive starts, where it ends (its property-list trailer) and where the metadata archive ends, and
    /// every 17th length in between (`damagePositions`).
    @Test func truncationsAreDamage() throws {
        let valid = try validStore(items: 2)
        let opener = DamagedStoreOpener()
        let lengths = damagePositions(in: 1..<valid.count, headerEnd: 64, boundaries: partBoundaries(of: [UInt8](valid)))
        for length in lengths {
            #expect(try opener.openCode(valid.prefix(length)) == 259, "truncated to \(length) of \(valid.count)")
        }
        #expect(lengths.count > 300)
    }

    /// A flipped byte in the magic makes the file no binary store; anywhere else the checksum catches it. Tried
    /// at every byte of the header, every byte within 40 of where the archives start and end, and every 17th
    /// byte in between (`damagePositions`).
    @Test func flippedBytesAreCaught() throws {
        let valid = [UInt8](try validStore(items: 2))
        let opener = DamagedStoreOpener()
        for offset in damagePositions(in: valid.indices, headerEnd: 64, boundaries: partBoundaries(of: valid)) {
            var damaged = valid
            damaged[offset] ^= 0x20
            #expect(try opener.openCode(Data(damaged)) == (offset < 8 ? 134000 : 259), "byte \(offset) of \(valid.count)")
        }
    }

    /// Without a checksum (as in Apple's files) damage reaches the archive reader, which throws an error of
    /// Apple's codes or reads the file, and never traps.
    @Test func uncheckedDamageNeverTraps() throws {
        let sources = [try validStore(items: 3), try validStore(items: 20)]
        var random = SplitMix64(seed: 0xA99_1E)
        var outcomes: [Int: Int] = [:]
        let opener = DamagedStoreOpener()
        for source in sources {
            for _ in 0..<300 {
                var mutated = [UInt8](mutate(source, &random))
                if mutated.count >= 64 { mutated.replaceSubrange(0..<64, with: Array(source.prefix(64))) }
                let code = try opener.openCode(withoutChecksum(mutated)) ?? 0
                outcomes[code, default: 0] += 1
            }
        }
        #expect(Set(outcomes.keys).isSubset(of: [0, 259, 134000, 134091, 134100]), "\(outcomes)")
        #expect((outcomes[259] ?? 0) > 100, "\(outcomes)")
    }

    @Test func otherVersionsAreRefused() throws {
        let opener = DamagedStoreOpener()
        for offset in [11, 13] {
            var bytes = [UInt8](try validStore(items: 1))
            bytes[offset] ^= 0x04
            #expect(try opener.openCode(withoutChecksum(bytes)) == 134000, "byte \(offset)")
        }
    }

    @Test func unknownReservedBytesAreDamage() throws {
        var bytes = [UInt8](withoutChecksum([UInt8](try validStore(items: 1))))
        bytes[63] = 1
        #expect(try DamagedStoreOpener().openCode(Data(bytes)) == 259)
    }
}

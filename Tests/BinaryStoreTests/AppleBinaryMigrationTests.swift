import Testing
import CoreData
import StoreTestSupport
@testable import CoreDataBinary

/// A binary file in Apple's format keeps attribute values by position in the property order of the model that
/// saved it. Opened with a newer version of that model's package and the migration options, it is read with the
/// version whose hashes it records and migrated to the current one, as Apple finds a migration's source model;
/// without the options it is refused (134100), and with no such version the migration cannot start (134130).
/// Foundation's `NSKeyedArchiver` writes the files, as Apple's Core Data would (`AppleFormatTestSupport.swift`).
@Suite struct AppleBinaryMigrationTests {
    static let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                              NSInferMappingModelAutomaticallyOption: true]

    // MARK: The models

    /// Note ←→ Folder. V1: Note has `archived`, `body`, `created`, `priority`, `title`. V2 removes `archived`,
    /// renames `body` to `text` (renaming identifier `body`), adds `color` and a required `rank` (default 3).
    /// V3 (for a package V1 is missing from) adds `pinned` to V2.
    static func writeVersion(_ name: String, in package: URL) throws {
        let folder = package.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let noteAttributes: String
        switch name {
        case "V1":
            noteAttributes = """
                <attribute name="archived" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="body" optional="YES" attributeType="String"/>
                """
        default:
            noteAttributes = """
                <attribute name="color" optional="YES" attributeType="String"/>
                <attribute name="rank" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>
                <attribute name="text" optional="YES" attributeType="String" elementID="body"/>
                """ + (name == "V3" ? "\n<attribute name=\"pinned\" optional=\"YES\" attributeType=\"Boolean\" usesScalarValueType=\"YES\"/>" : "")
        }
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
                <entity name="Folder" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
                </entity>
                <entity name="Note" syncable="YES">
                    \(noteAttributes)
                    <attribute name="created" optional="YES" attributeType="Date"/>
                    <attribute name="priority" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
                </entity>
            </model>
            """
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
    }

    /// A package `name` in `directory` with `versions`, `current` its current version.
    static func writePackage(_ name: String = "Notes", in directory: TemporaryDirectory, versions: [String], current: String) throws -> URL {
        let package = directory.file(name + ".xcdatamodeld")
        for version in versions { try writeVersion(version, in: package) }
        try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": current + ".xcdatamodel"], format: .xml, options: 0)
            .write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    /// Version `name` of the package at `package`.
    static func version(_ name: String, of package: URL) throws -> NSManagedObjectModel {
        try #require(try NSManagedObjectModel.versions(ofModelAt: package).first { $0.name == name }).model
    }

    // MARK: The file

    /// V1's Note properties in Apple's order (stored attributes by name, then the to-one), the positions of
    /// the file's values.
    static let v1NoteOrder = ["archived", "body", "created", "priority", "title", "folder"]

    /// Writes an Apple-format file saved with `v1`: Folder 2 "Inbox" with Notes 4 and 6. `noteValues` replaces
    /// Note 4's values (by position) when given.
    static func writeAppleFile(at url: URL, v1: NSManagedObjectModel, noteValues: [Any]? = nil) throws {
        let note = try #require(v1.entitiesByName["Note"])
        #expect(ApplePropertyOrder.names(of: note) == v1NoteOrder)
        let map = NSMutableDictionary()
        map[NSNumber(value: 2)] = AppleStyleNode(primaryKey: 2, entityName: "Folder", relatedNodes: ["notes": [4, 6]],
                                                  attributeValues: [NSString(string: "Inbox"), NSNull()])
        map[NSNumber(value: 4)] = AppleStyleNode(primaryKey: 4, entityName: "Note", relatedNodes: ["folder": [2]],
                                                  attributeValues: noteValues ?? [NSNumber(value: true), NSString(string: "first body"),
                                                                                  NSDate(timeIntervalSinceReferenceDate: 1_000), NSNumber(value: 7),
                                                                                  NSString(string: "First"), NSNull()])
        map[NSNumber(value: 6)] = AppleStyleNode(primaryKey: 6, entityName: "Note", relatedNodes: ["folder": [2]],
                                                  attributeValues: [NSNumber(value: false), NSNull(), NSNull(), NSNumber(value: -2),
                                                                    NSString(string: "Second"), NSNull()])
        let hashes = NSMutableDictionary()
        for (name, hash) in v1.entityVersionHashesByName { hashes[NSString(string: name)] = NSData(data: hash) }
        let metadata = NSMutableDictionary()
        metadata["NSStoreType"] = NSString(string: "Binary")
        metadata["NSStoreUUID"] = NSString(string: "6A0E2C4B-1D3F-4E5A-8B7C-9D0E1F2A3B4C")
        metadata["NSStoreModelVersionHashes"] = hashes
        metadata["NSStoreModelVersionHashesVersion"] = NSNumber(value: 3)
        try appleFile(map: foundationArchive(map, key: "mapData"), metadata: foundationArchive(metadata, key: "metadata"),
                      primaryKeyGeneration: 8).write(to: url)
    }

    /// Every Note and Folder, by key, as property name → value description.
    static func contents(_ context: NSManagedObjectContext) throws -> [String: [String: String]] {
        try context.performAndWait {
            var result: [String: [String: String]] = [:]
            for entityName in ["Folder", "Note"] {
                for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entityName)) {
                    var values: [String: String] = [:]
                    for (name, property) in object.entity.propertiesByName {
                        switch object.value(forKey: name) {
                        case nil: continue
                        case let target as NSManagedObject: values[name] = "->\(primaryKey(of: target))"
                        case let targets as Set<NSManagedObject>: values[name] = "->" + targets.map { "\(primaryKey(of: $0))" }.sorted().joined(separator: ",")
                        case let date as Date: values[name] = "\(date.timeIntervalSinceReferenceDate)"
                        case let value?: values[name] = (property as? NSAttributeDescription)?.attributeType == .booleanAttributeType ? "\((value as? NSNumber)?.boolValue ?? false)" : "\(value)"
                        }
                    }
                    result["\(entityName)/\(primaryKey(of: object))"] = values
                }
            }
            return result
        }
    }

    /// What the V1 file holds, read with V2: `body` under `text`, `archived` gone, `rank` at its default.
    static let migratedContents: [String: [String: String]] = [
        "Folder/2": ["name": "Inbox", "notes": "->4,6"],
        "Note/4": ["text": "first body", "created": "1000.0", "priority": "7", "title": "First", "rank": "3", "folder": "->2"],
        "Note/6": ["priority": "-2", "title": "Second", "rank": "3", "folder": "->2"],
    ]

    // MARK: Migration

    @Test func anAppleFileOfAnOlderVersionMigratesToTheCurrentVersion() throws {
        let directory = TemporaryDirectory()
        let package = try Self.writePackage(in: directory, versions: ["V1", "V2"], current: "V2")
        let url = directory.file("notes.binary")
        try Self.writeAppleFile(at: url, v1: Self.version("V1", of: package))
        let v2 = try NSManagedObjectModel.load(contentsOf: package)
        #expect(v2.entitiesByName["Note"]?.propertiesByName["text"] != nil)

        let context = try openStore(.binary, at: url, model: v2, options: Self.migrate)
        #expect(try Self.contents(context) == Self.migratedContents)
        // New objects continue the store's key sequence after the header's generation (8).
        try context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("Third", forKey: "title")
            note.setValue("red", forKey: "color")
            try context.save()
        }

        // Rewritten in Apple's format under V2: its metadata records V2's hashes, it opens with V2 and no options.
        #expect(Array(try Data(contentsOf: url).prefix(8)) == Array("CoreData".utf8))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try !Self.version("V1", of: package).isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata)?.name == "V2")
        #expect(metadata[NSStoreUUIDKey] as? String == "6A0E2C4B-1D3F-4E5A-8B7C-9D0E1F2A3B4C")
        var expected = Self.migratedContents
        expected["Note/9"] = ["title": "Third", "color": "red", "rank": "3"]
        #expect(try Self.contents(openStore(.binary, at: url, model: v2)) == expected)

        // Foundation's unarchiver finds the values at V2's positions, as Apple's Core Data would read them.
        let bytes = [UInt8](try Data(contentsOf: url))
        let mapLength = Int(bigEndian(bytes, at: 40, as: UInt64.self))
        let map = try #require(try foundationUnarchive(Data(bytes[64..<(64 + mapLength)]), key: "mapData") as? NSDictionary)
        let node = try #require(map[NSNumber(value: 4)] as? AppleStyleNode)
        #expect(ApplePropertyOrder.names(of: try #require(v2.entitiesByName["Note"])) == ["color", "created", "priority", "rank", "text", "title", "folder"])
        #expect(node.attributeValues.count == 7)
        #expect(node.attributeValues[4] as? String == "first body")
        #expect((node.attributeValues[3] as? NSNumber)?.intValue == 3)
        #expect(node.attributeValues[0] is NSNull)
    }

    /// A source model from the places automatic migration searches beyond the model's own package (here another
    /// package beside it) reaches the store through the coordinator.
    @Test func theSourceModelMayComeFromBesideThePackage() throws {
        let directory = TemporaryDirectory()
        let package = try Self.writePackage(in: directory, versions: ["V2"], current: "V2")
        let old = try Self.writePackage("OldNotes", in: directory, versions: ["V1"], current: "V1")
        let url = directory.file("notes.binary")
        try Self.writeAppleFile(at: url, v1: Self.version("V1", of: old))
        let v2 = try NSManagedObjectModel.load(contentsOf: package)
        #expect(try Self.contents(openStore(.binary, at: url, model: v2, options: Self.migrate)) == Self.migratedContents)
        #expect(try Self.contents(openStore(.binary, at: url, model: v2)) == Self.migratedContents)
    }

    /// `NSMigrationManager` given the source model reads the file with it and writes the destination store.
    @Test func aMigrationManagerWithTheSourceModelMigratesIt() throws {
        let directory = TemporaryDirectory()
        let package = try Self.writePackage(in: directory, versions: ["V1", "V2"], current: "V2")
        let url = directory.file("notes.binary"), destination = directory.file("migrated.binary")
        let v1 = try Self.version("V1", of: package), v2 = try Self.version("V2", of: package)
        try Self.writeAppleFile(at: url, v1: v1)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(from: url, type: .binary, mapping: mapping, to: destination, type: .binary)
        let migrated = try Self.contents(openStore(.binary, at: destination, model: v2))
        // The manager copies objects into a new store: new keys, the same values and relationships.
        #expect(Set(migrated.values.compactMap { $0["title"] }) == ["First", "Second"])
        let first = try #require(migrated.values.first { $0["title"] == "First" })
        #expect(first["text"] == "first body" && first["priority"] == "7" && first["rank"] == "3" && first["created"] == "1000.0")
        #expect(migrated.values.first { $0["name"] == "Inbox" }?["notes"]?.split(separator: ",").count == 2)
    }

    // MARK: Apple's SampleModel (CoreDataPlus), with an entity hierarchy and transient attributes

    /// A copy of Apple's SampleModel package (fixture) in `directory`, with `current` its current version; the
    /// test is skipped when the fixtures are absent.
    static func samplePackage(in directory: TemporaryDirectory, current: String) throws -> URL {
        let root = ProcessInfo.processInfo.environment["COREDATA_FIXTURES"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        let source = root.appendingPathComponent("apple/models/alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld")
        if !FileManager.default.fileExists(atPath: source.path) { try Test.cancel("the SampleModel fixture is not in this fixture set") }
        let package = directory.file("SampleModel.xcdatamodeld")
        try FileManager.default.copyItem(at: source, to: package)
        try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": current + ".xcdatamodel"], format: .xml, options: 0)
            .write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    /// An Apple file saved with SampleModel (version 1): a Person owning a Car, a SportCar and an
    /// ExpensiveSportCar, migrated to SampleModel2, where ExpensiveSportCar is renamed LuxuryCar (renaming
    /// identifier), Car loses `color` and the transient `currentDrivingSpeed`, and Person loses `id` and the
    /// transient `isDriving`. Subentities' positions start with their parent's; transient positions are empty.
    @Test func applesSampleModelFileMigratesToItsSecondVersion() throws {
        let directory = TemporaryDirectory()
        let package = try Self.samplePackage(in: directory, current: "SampleModel2")
        let v1 = try Self.version("SampleModel", of: package)
        #expect(ApplePropertyOrder.names(of: try #require(v1.entitiesByName["Car"]))
                == ["color", "maker", "markedForDeletionAsOf", "model", "numberPlate", "currentDrivingSpeed", "owner"])
        #expect(ApplePropertyOrder.names(of: try #require(v1.entitiesByName["ExpensiveSportCar"]))
                == ["color", "maker", "markedForDeletionAsOf", "model", "numberPlate", "isLimitedEdition", "currentDrivingSpeed", "owner"])
        #expect(ApplePropertyOrder.names(of: try #require(v1.entitiesByName["Person"]))
                == ["firstName", "id", "lastName", "updatedAt", "isDriving", "cars"])
        func car(_ key: Int64, _ entity: String, maker: String, plate: String, extra: [Any] = []) -> AppleStyleNode {
            AppleStyleNode(primaryKey: key, entityName: entity, relatedNodes: ["owner": [1]],
                           attributeValues: [NSNull(), NSString(string: maker), NSNull(), NSString(string: maker + " model"),
                                             NSString(string: plate)] + extra + [NSNull(), NSNull()])
        }
        let map = NSMutableDictionary()
        map[NSNumber(value: 1)] = AppleStyleNode(primaryKey: 1, entityName: "Person", relatedNodes: ["cars": [2, 3, 4]],
                                                  attributeValues: [NSString(string: "Ada"), NSNull(), NSString(string: "Lovelace"),
                                                                    NSDate(timeIntervalSinceReferenceDate: 5_000), NSNull(), NSNull()])
        map[NSNumber(value: 2)] = car(2, "Car", maker: "Fiat", plate: "AA-1")
        map[NSNumber(value: 3)] = car(3, "SportCar", maker: "Ferrari", plate: "SP-1")
        map[NSNumber(value: 4)] = car(4, "ExpensiveSportCar", maker: "McLaren", plate: "EX-1", extra: [NSNumber(value: true)])
        let hashes = NSMutableDictionary()
        for (name, hash) in v1.entityVersionHashesByName { hashes[NSString(string: name)] = NSData(data: hash) }
        let metadata = NSMutableDictionary()
        metadata["NSStoreType"] = NSString(string: "Binary")
        metadata["NSStoreUUID"] = NSString(string: "1F2E3D4C-5B6A-4978-8695-A4B3C2D1E0F9")
        metadata["NSStoreModelVersionHashes"] = hashes
        let url = directory.file("cars.binary")
        try appleFile(map: foundationArchive(map, key: "mapData"), metadata: foundationArchive(metadata, key: "metadata"),
                      primaryKeyGeneration: 4).write(to: url)

        let v2 = try NSManagedObjectModel.load(contentsOf: package)
        #expect(errorCode { _ = try openStore(.binary, at: url, model: v2) } == NSPersistentStoreIncompatibleVersionHashError)
        for context in [try openStore(.binary, at: url, model: v2, options: Self.migrate), try openStore(.binary, at: url, model: v2)] {
            try context.performAndWait {
                func only(_ entity: String) throws -> NSManagedObject {
                    let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                    request.includesSubentities = false
                    let objects = try context.fetch(request)
                    try #require(objects.count == 1, "\(entity): \(objects.count) objects")
                    return objects[0]
                }
                let person = try only("Person")
                #expect(person.value(forKey: "firstName") as? String == "Ada")
                #expect(person.value(forKey: "lastName") as? String == "Lovelace")
                #expect((person.value(forKey: "updatedAt") as? Date)?.timeIntervalSinceReferenceDate == 5_000)
                #expect((person.value(forKey: "cars") as? Set<NSManagedObject>)?.count == 3)
                let luxury = try only("LuxuryCar")
                #expect(luxury.value(forKey: "maker") as? String == "McLaren")
                #expect(luxury.value(forKey: "model") as? String == "McLaren model")
                #expect(luxury.value(forKey: "numberPlate") as? String == "EX-1")
                #expect((luxury.value(forKey: "isLimitedEdition") as? NSNumber)?.boolValue == true)
                #expect(luxury.value(forKey: "owner") as? NSManagedObject == person)
                #expect(try only("SportCar").value(forKey: "numberPlate") as? String == "SP-1")
                #expect(try only("Car").value(forKey: "maker") as? String == "Fiat")
            }
        }
        let migrated = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: migrated)?.name == "SampleModel2")
    }

    // MARK: Metadata

    /// The metadata of an Apple file names its version: V1's hashes, compatible with V1 only.
    @Test func theMetadataNamesTheVersionThatSavedTheFile() throws {
        let directory = TemporaryDirectory()
        let package = try Self.writePackage(in: directory, versions: ["V1", "V2"], current: "V2")
        let url = directory.file("notes.binary")
        let v1 = try Self.version("V1", of: package)
        try Self.writeAppleFile(at: url, v1: v1)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(metadata[NSStoreTypeKey] as? String == NSBinaryStoreType)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.keys.sorted() == ["Folder", "Note"])
        #expect(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try !Self.version("V2", of: package).isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata)?.name == "V1")
        #expect(try Self.contents(openStore(.binary, at: url, model: v1))["Note/4"]?["body"] == "first body")
    }

    // MARK: Refusals

    /// Without the migration options a newer version is refused with 134100 naming the store and the version
    /// that saved it, and the file is left as it was.
    @Test func withoutMigrationOptionsTheFileIsRefused() throws {
        let directory = TemporaryDirectory()
        let package = try Self.writePackage(in: directory, versions: ["V1", "V2"], current: "V2")
        let url = directory.file("notes.binary")
        try Self.writeAppleFile(at: url, v1: Self.version("V1", of: package))
        let before = try Data(contentsOf: url)
        let error = thrown { _ = try openStore(.binary, at: url, model: NSManagedObjectModel.load(contentsOf: package)) }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.localizedDescription.contains(url.path) == true, "\(error?.localizedDescription ?? "")")
        #expect(error?.localizedDescription.contains("version V1 of Notes.xcdatamodeld") == true, "\(error?.localizedDescription ?? "")")
        #expect(try Data(contentsOf: url) == before)
    }

    /// With the migration options but no version whose hashes the file records (a package without V1, or a model
    /// built in code), the migration has no source model: 134130, the file left as it was.
    @Test func withoutTheSourceVersionTheMigrationCannotStart() throws {
        let directory = TemporaryDirectory(), elsewhere = TemporaryDirectory()
        let v1 = try Self.version("V1", of: Self.writePackage("Old", in: elsewhere, versions: ["V1"], current: "V1"))
        let package = try Self.writePackage(in: directory, versions: ["V2", "V3"], current: "V3")
        let url = directory.file("notes.binary")
        try Self.writeAppleFile(at: url, v1: v1)
        let before = try Data(contentsOf: url)
        let fromPackage = try NSManagedObjectModel.load(contentsOf: package)
        let inCode = try #require(fromPackage.copy() as? NSManagedObjectModel)
        inCode.entitiesByName["Note"]?.properties.append(NSAttributeDescription(name: "extra", type: .string))
        for model in [fromPackage, inCode] {
            let error = thrown { _ = try openStore(.binary, at: url, model: model, options: Self.migrate) }
            #expect(error?.code == NSMigrationMissingSourceModelError, "\(error?.localizedDescription ?? "no error")")
            #expect(error?.localizedDescription.contains("Can't find model for source store") == true)
            #expect(error?.localizedDescription.contains(url.path) == true)
            #expect(try Data(contentsOf: url) == before)
        }
    }

    /// A file whose object holds more (or fewer) values than its source version's entity has properties
    /// contradicts its own version hashes: 259 naming the entity and both counts, never a trap.
    @Test(arguments: [7, 5, 0])
    func positionsThatDoNotFitTheSourceModelAreAnError(_ count: Int) throws {
        let directory = TemporaryDirectory()
        let package = try Self.writePackage(in: directory, versions: ["V1", "V2"], current: "V2")
        let url = directory.file("notes.binary")
        let values: [Any] = (0..<count).map { NSString(string: "value \($0)") }
        try Self.writeAppleFile(at: url, v1: Self.version("V1", of: package), noteValues: values)
        let before = try Data(contentsOf: url)
        for (model, options) in [(try NSManagedObjectModel.load(contentsOf: package), Self.migrate), (try Self.version("V1", of: package), [:])] {
            let error = thrown { _ = try openStore(.binary, at: url, model: model, options: options) }
            #expect(error?.code == NSFileReadCorruptFileError, "\(error?.localizedDescription ?? "no error")")
            #expect(error?.localizedDescription.contains("objects of Note hold \(count) values by position") == true, "\(error?.localizedDescription ?? "")")
            #expect(try Data(contentsOf: url) == before)
        }
    }

    /// The thrown error, as an `NSError`.
    private func thrown(_ body: () throws -> Void) -> NSError? {
        do { try body() } catch { return error as NSError }
        return nil
    }
}

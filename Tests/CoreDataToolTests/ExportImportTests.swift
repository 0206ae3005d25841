import CoreData
import Foundation
import Testing

/// `coredata export` and `coredata import`: a whole store as one JSON document, lossless, so that export →
/// import into a new store of each type → export again gives the same bytes; the imported store reopens with
/// the objects' values; a damaged document, a model that does not match and an existing destination are
/// refused with messages that name the problem, and leave nothing behind. Through the tool's process.
@Suite struct ExportImportTests {
    static let types: [(String, String)] = [("sqlite", NSSQLiteStoreType), ("xml", NSXMLStoreType), ("binary", NSBinaryStoreType)]
    static let metadata: [String: Any] = ["appVersion": "2.1", "build": 7, "flags": ["a", "b"]]

    /// Runs `coredata export <store>` and returns its standard output.
    func export(_ store: URL, model: URL?) throws -> String {
        let run = try ToolProcess.run(["export", store.path] + (model.map { ["--model", $0.path] } ?? []))
        #expect(run.status == 0, "export \(store.lastPathComponent): \(run.error)")
        #expect(run.error.isEmpty)
        return run.output
    }

    /// Writes `text` to a new file and returns its URL.
    func file(_ text: String) throws -> URL {
        let url = try ToolLibrary.folder().appendingPathComponent("export.json")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func exportImportExportGivesTheSameBytes(_ sourceType: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: sourceType, named: "library.store", model: model, metadata: Self.metadata)
        let first = try export(store, model: model)
        let document = try file(first)
        for (option, type) in Self.types {
            let target = try ToolLibrary.folder().appendingPathComponent("imported.\(option)")
            let run = try ToolProcess.run(["import", document.path, target.path, "--to", option, "--model", model.path])
            #expect(run.status == 0, "\(sourceType) → \(option): \(run.error)")
            #expect(run.output == "imported 3 objects into \(target.path) (\(type))\n  Author                       1\n  Book                         2\n", "\(run.output)")
            let again = try export(target, model: model)
            #expect(again == first, "\(sourceType) → \(option): the second export differs")
            #expect(try ToolProcess.run(["inspect", target.path, "--model", model.path]).output.contains("type:   \(type)"))
        }
    }

    /// The document's shape and the values' encodings, as Tool.md describes them.
    @Test func theDocumentHasTheDocumentedShape() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model, metadata: Self.metadata)
        let text = try export(store, model: nil)
        let lines = text.components(separatedBy: "\n")
        #expect(lines.prefix(3) == ["{", "  \"format\": \"coredata-export\",", "  \"version\": 1,"])
        let hashes = try NSManagedObjectModel.load(contentsOf: model).entityVersionHashesByName
        #expect(lines[3] == "  \"entityVersionHashes\": {\"Author\":\"\(hashes["Author"]?.base64EncodedString() ?? "")\",\"Book\":\"\(hashes["Book"]?.base64EncodedString() ?? "")\"},")
        #expect(lines[4] == "  \"metadata\": {\"appVersion\":\"2.1\",\"build\":7,\"flags\":[\"a\",\"b\"]},")
        #expect(lines[5] == "  \"objects\": [")
        #expect(lines[6] == "    {\"entity\":\"Author\",\"ref\":\"Author/1\",\"values\":{\"books\":[\"Book/1\",\"Book/2\"],\"name\":\"Le Guin\"}},")
        #expect(lines[7] == "    {\"entity\":\"Book\",\"ref\":\"Book/1\",\"values\":{\"author\":\"Author/1\",\"big\":9007199254740993,"
                + "\"cover\":\"AAECAwQFBgcICQoLDA0ODxAREhM=\",\"extras\":{\"dictionary\":{\"tags\":[\"sf\",\"classic\"],\"year\":1965}},"
                + "\"inPrint\":true,\"isbn\":\"\(ToolLibrary.isbn.uuidString)\",\"link\":\"https://example.com/a?b=c\",\"pages\":412,"
                + "\"price\":19.99,\"published\":-978307200.0,\"rating\":4.5,\"small\":-3,\"title\":\"Dune, \\\"the\\\" novel\\nline2\",\"weight\":0.25}},")
        #expect(lines[8] == "    {\"entity\":\"Book\",\"ref\":\"Book/2\",\"values\":{\"author\":\"Author/1\",\"big\":null,\"cover\":null,\"extras\":null,"
                + "\"inPrint\":false,\"isbn\":null,\"link\":null,\"pages\":null,\"price\":null,\"published\":null,\"rating\":null,\"small\":null,"
                + "\"title\":\"Empty\",\"weight\":null}}")
        #expect(lines.suffix(3) == ["  ]", "}", ""])
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any], "the document is JSON")
    }

    /// Values that need care read back exactly: integers beyond a double's digits, floats, infinities, dates
    /// with fractions of a second, empty data, escapes, a transformable holding every property list type (NaN
    /// included; not both 2 and 2.0, which Foundation's archiver keeps once, as equal objects). Only values
    /// every store type holds: SQLite keeps no NaN in a column (it reads back nil) and keeps decimals as
    /// doubles; XML 1.0 holds no control characters but tab, line feed and carriage return.
    @Test(arguments: [("sqlite", NSSQLiteStoreType), ("xml", NSXMLStoreType), ("binary", NSBinaryStoreType)])
    func awkwardValuesSurviveTheRoundTrip(_ option: String, _ type: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.folder().appendingPathComponent("odd.\(option)")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: model))
        let added = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: store, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (index, (rating, weight)) in [(Double.infinity, Float.infinity), (-Double.infinity, Float(0.1)), (1e-300, -Float.greatestFiniteMagnitude)].enumerated() {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue("tab\there\r\n \u{1F600} \\ / \"\(index)", forKey: "title")
                book.setValue(rating, forKey: "rating")
                book.setValue(weight, forKey: "weight")
                book.setValue(Int64.min + Int64(index), forKey: "big")
                book.setValue(Int16.max, forKey: "small")
                book.setValue(Decimal(string: "-1234.5"), forKey: "price")
                book.setValue(Date(timeIntervalSinceReferenceDate: 123.456789 + Double(index)), forKey: "published")
                book.setValue(Data(), forKey: "cover")
                book.setValue(["date": Date(timeIntervalSinceReferenceDate: 0.5), "data": Data([0, 255]), "real": 2.0, "nan": Double.nan,
                               "nested": [["deep": [true, false, 3, -7]]], "empty": ""] as NSDictionary, forKey: "extras")
            }
            try context.save()
        }
        try coordinator.remove(added)
        let first = try export(store, model: model)
        for fragment in ["\"rating\":\"Infinity\"", "\"weight\":\"Infinity\"", "\"rating\":\"-Infinity\"", "\"weight\":0.1}", "\"rating\":1e-300,",
                         "\"weight\":-3.4028235e+38}", "\"big\":-9223372036854775808,", "\"price\":-1234.5,", "\"published\":123.456789,",
                         "\"cover\":\"\",", "\"title\":\"tab\\there\\r\\n \u{1F600} \\\\ / \\\"0\"",
                         "\"extras\":{\"dictionary\":{\"data\":{\"data\":\"AP8=\"},\"date\":{\"date\":0.5},\"empty\":\"\",\"nan\":{\"real\":\"NaN\"},"
                            + "\"nested\":[{\"dictionary\":{\"deep\":[true,false,3,-7]}}],\"real\":2.0}}"] {
            #expect(first.contains(fragment), "\(type): \(fragment) not in\n\(first)")
        }
        let document = try file(first)
        for (otherOption, _) in Self.types {
            let target = try ToolLibrary.folder().appendingPathComponent("again.\(otherOption)")
            let run = try ToolProcess.run(["import", document.path, target.path, "--to", otherOption, "--model", model.path])
            #expect(run.status == 0, "\(option) → \(otherOption): \(run.error)")
            #expect(try export(target, model: model) == first, "\(option) → \(otherOption)")
        }
    }

    /// An Apple store with subentities (Car, SportCar, LuxuryCar) and its model package: the round trip holds.
    @Test func applesStoreWithSubentitiesRoundTrips() throws {
        guard let root = ToolFixtures.root else { try Test.cancel("fixtures not found") }
        let store = try CachedModelCommandTests().copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite")
        let model = root.appendingPathComponent("apple/models/alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld")
        let first = try export(store, model: model)
        #expect(first.contains("{\"entity\":\"SportCar\",\"ref\":\"SportCar/1\""), "subentities' objects are listed under their own entity")
        let document = try file(first)
        for (option, _) in Self.types {
            let target = try ToolLibrary.folder().appendingPathComponent("cars.\(option)")
            let run = try ToolProcess.run(["import", document.path, target.path, "--to", option, "--model", model.path])
            #expect(run.status == 0, "\(option): \(run.error)")
            #expect(try export(target, model: model) == first, "\(option)")
        }
    }

    /// An ordered many-to-many relationship (its order kept on every store), a to-one to the same entity and
    /// a subentity whose objects a relationship of its parent entity's type holds.
    @Test func orderedManyToManyAndSubentitiesRoundTrip() throws {
        let folder = try ToolLibrary.folder()
        let model = folder.appendingPathComponent("Playlists.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Playlist" representedClassName="Playlist" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="songs" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="playlists" inverseEntity="Song"/>
                    <relationship name="next" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist"/>
                </entity>
                <entity name="Song" representedClassName="Song" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="playlists" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist"/>
                </entity>
                <entity name="Live" representedClassName="Live" parentEntity="Song" syncable="YES">
                    <attribute name="venue" optional="YES" attributeType="String"/>
                </entity>
            </model>
            """.utf8).write(to: model.appendingPathComponent("contents"))
        let store = folder.appendingPathComponent("playlists.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: model))
        let added = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let (s1, s2, live) = (insert("Song", ["title": "S1"]), insert("Song", ["title": "S2"]), insert("Live", ["title": "L1", "venue": "Paris"]))
            let a = insert("Playlist", ["name": "A", "songs": NSOrderedSet(array: [s2, live, s1])])
            let b = insert("Playlist", ["name": "B", "songs": NSOrderedSet(array: [live, s2]), "next": a])
            a.setValue(b, forKey: "next")
            try context.save()
        }
        try coordinator.remove(added)
        let first = try export(store, model: model)
        #expect(first.contains(#"{"entity":"Playlist","ref":"Playlist/1","values":{"name":"A","next":"Playlist/2","songs":["Song/2","Live/1","Song/1"]}}"#), "\(first)")
        #expect(first.contains(#"{"entity":"Live","ref":"Live/1","values":{"playlists":["Playlist/1","Playlist/2"],"title":"L1","venue":"Paris"}}"#), "\(first)")
        let document = try file(first)
        for (option, _) in Self.types {
            let target = try ToolLibrary.folder().appendingPathComponent("playlists.\(option)")
            let run = try ToolProcess.run(["import", document.path, target.path, "--to", option, "--model", model.path])
            #expect(run.status == 0, "\(option): \(run.error)")
            #expect(try export(target, model: model) == first, "\(option)")
        }
        // Standard input as the document.
        let piped = try ToolLibrary.folder().appendingPathComponent("piped.binary")
        let fromStandardInput = try ToolProcess.run(["import", "-", piped.path, "--to", "binary", "--model", model.path], input: document)
        #expect(fromStandardInput.status == 0, "\(fromStandardInput.error)")
        #expect(try export(piped, model: model) == first)
    }

    @Test func exportWritesToAFileWithOutput() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSBinaryStoreType, named: "library", model: model)
        let output = try ToolLibrary.folder().appendingPathComponent("out.json")
        let run = try ToolProcess.run(["export", store.path, "--model", model.path, "--output", output.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.isEmpty)
        #expect(try String(contentsOf: output, encoding: .utf8) == export(store, model: model))
    }

    @Test(arguments: [
        ("{\"format\": \"coredata-export\", \"version\": 1,\n  \"objects\": [1, ]}", "is not JSON: unexpected character \"]\" at line 2, column 18"),
        ("[1, 2]", "is not a coredata export: its JSON is not an object"),
        ("{\"format\": \"other\"}", "is not a coredata export (its \"format\" is not \"coredata-export\")"),
        ("{\"format\": \"coredata-export\", \"version\": 2}", "is a coredata export of version 2; this tool reads version 1"),
    ])
    func aDamagedDocumentIsRefusedNamingWhere(_ text: String, _ message: String) throws {
        let model = try ToolLibrary.writeModel()
        let document = try file(text)
        let target = try ToolLibrary.folder().appendingPathComponent("new.sqlite")
        let run = try ToolProcess.run(["import", document.path, target.path, "--to", "sqlite", "--model", model.path])
        #expect(run.status == 1)
        #expect(run.error == "coredata import: \(document.path) \(message)\n", "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: target.path), "nothing is created")
    }

    /// Objects the model cannot take: the message names the object and the key; nothing is left behind.
    @Test(arguments: [
        (#""values":{"title":"x","colour":"red"}"#, #"object 2 (Book/1) has "colour", which is not a stored property of entity Book"#),
        (#""values":{"pages":"many"}"#, #"Book/1.pages in PATH: "many" is not a value of type Integer 32"#),
        (#""values":{"small":70000}"#, #"Book/1.small in PATH: 70000 is not a value of type Integer 16"#),
        (#""values":{"author":"Author/9"}"#, #"Book/1.author in PATH: "Author/9" is no object's ref"#),
        (#""values":{"extras":{"when":1}}"#, #"Book/1.extras in PATH: unknown tag "when" with 1"#),
    ])
    func badObjectsAreRefusedNamingObjectAndKey(_ values: String, _ message: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let lines = try export(store, model: nil).components(separatedBy: "\n")
        let author = #"    {"entity":"Author","ref":"Author/1","values":{"name":"Le Guin"}},"#
        let book = #"    {"entity":"Book","ref":"Book/1","# + values + "}"
        let document = try file((lines.prefix(6) + [author, book, "  ]", "}"]).joined(separator: "\n"))
        let target = try ToolLibrary.folder().appendingPathComponent("new.xml")
        let run = try ToolProcess.run(["import", document.path, target.path, "--to", "xml", "--model", model.path])
        #expect(run.status == 1)
        let expected = message.contains("PATH") ? message.replacingOccurrences(of: "PATH", with: document.path) : "\(document.path): \(message)"
        #expect(run.error == "coredata import: \(expected)\n", "\(run.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path).isEmpty, "nothing is left behind")
    }

    @Test func anotherModelIsRefusedNamingTheEntities() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let document = try file(try export(store, model: nil))
        let other = try ToolModelVersions.writePackage().appendingPathComponent("V2.xcdatamodel")
        let target = try ToolLibrary.folder().appendingPathComponent("new.sqlite")
        let run = try ToolProcess.run(["import", document.path, target.path, "--to", "sqlite", "--model", other.path])
        #expect(run.status == 1)
        #expect(run.error == "coredata import: The model \(other.path) is not the one the export was made with: the version hashes of "
                + "entities Author, Book, Writer differ.\n", "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
        // Of a package, the version the export was made with is used.
        let package = other.deletingLastPathComponent()
        let fromPackage = try ToolProcess.run(["import", document.path, target.path, "--to", "sqlite", "--model", package.path])
        #expect(fromPackage.status == 0, "\(fromPackage.error)")
    }

    @Test func anExistingStoreIsNeverOverwritten() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let document = try file(try export(store, model: nil))
        let existing = try ToolLibrary.writeStore(type: NSXMLStoreType, named: "taken.xml", model: model)
        let before = try ToolLibrary.snapshot(of: existing.deletingLastPathComponent())
        let run = try ToolProcess.run(["import", document.path, existing.path, "--to", "xml", "--model", model.path])
        #expect(run.status == 1)
        #expect(run.error.hasPrefix("coredata import: A store already exists at \(existing.path); the tool never overwrites one"), "\(run.error)")
        #expect(try ToolLibrary.snapshot(of: existing.deletingLastPathComponent()) == before)
    }

    @Test(arguments: [
        (["import", "a.json", "b.sqlite", "--model", "m.xcdatamodel"], "--to is required: sqlite, xml, binary or postgresql"),
        (["import", "a.json", "b.sqlite", "--to", "csv", "--model", "m"], "--to must be sqlite, xml, binary or postgresql, not csv"),
        (["import", "a.json", "b.sqlite", "--to", "sqlite"], "--model is required: an export records its model's hashes, not the model"),
        (["import", "a.json", "--to", "sqlite"], "expected an export file and a new store"),
        (["import", "a.json", "b", "--to", "postgresql", "--model", "m"], "--to postgresql needs a connection URI as the destination (postgresql://host/database?schema=name), not b"),
        (["export", "a.sqlite", "--format", "csv"], "--format must be json, not csv"),
        (["export"], "expected one store"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) throws {
        let run = try ToolProcess.run(arguments)
        #expect(run.status == 64, "\(arguments)")
        #expect(run.error.hasPrefix("coredata \(arguments[0]): \(message)\n"), "\(run.error)")
    }
}

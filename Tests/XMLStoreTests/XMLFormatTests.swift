import Testing
import CoreData
import StoreTestSupport

/// What the XML store writes, and that every value comes back from the file as it was saved.
@Suite struct XMLFormatTests {
    @Test func everyTypeSurvivesReopening() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        let model = everyTypeModel()
        let context = try openStore(.xml, at: url, model: model)
        try populate(context, items: 40)
        let awkward = ["", "  spaced  ", "a < b && c > d \"quoted\" 'single'", "line\nbreak\r\nand\rreturns\ttab",
                       "emoji 🧪 and ünïcødé", "]]> not a CDATA end", "&amp; stays literal"]
        try context.performAndWait { () throws -> Void in
            let entity = try #require(model.entitiesByName["Item"])
            for (index, text) in awkward.enumerated() {
                let item = NSManagedObject(entity: entity, insertInto: context)
                item.setValue(text, forKey: "title")
                item.setValue([0.1, -0.0, 1e300, -2.5e-300, .infinity, 123456789.123456789, 5e-324][index], forKey: "ratio")
                item.setValue(Float([1.5, -0.1, 3.4e38, .infinity, 1e-45, 0, 7][index]), forKey: "weight")
                item.setValue(Date(timeIntervalSinceReferenceDate: [-978307200, 0, 1e-9, 123.456, 1e10, -1.5, 0.1][index]), forKey: "createdAt")
                item.setValue(Decimal(string: ["0", "-1.5", "12345678901234567890.123", "0.000001", "1e5", "42", "-0.5"][index]), forKey: "price")
                item.setValue([Int16.min, Int16.max, 0, -1, 1, 2, 3][index], forKey: "count16")
                item.setValue([Int64.min, Int64.max, 0, -1, 1, 2, 3][index], forKey: "count64")
                item.setValue(Data(), forKey: "payload")
            }
            try context.save()
        }
        let before = try dump(context, model: model)
        let after = try dump(openStore(.xml, at: url, model: model), model: model)
        #expect(before.count == 51)
        for (key, values) in before where after[key] != values {
            Issue.record("\(key): \(values.filter { after[key]?[$0.key] != $0.value }) became \(after[key]?.filter { values[$0.key] != $0.value } ?? [:])")
        }
        #expect(after.values.contains { $0["title"] == "String:line\nbreak\r\nand\rreturns\ttab" })
    }

    @Test func fileUsesApplesNamesTypesAndIDs() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        let context = try openStore(.xml, at: url, model: everyTypeModel())
        try populate(context, items: 3)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n\n<database>\n    <databaseInfo>\n        <version>134481920</version>\n        <UUID>"))
        for fragment in ["<object type=\"ITEM\" id=\"z", "<attribute name=\"count16\" type=\"int16\">1</attribute>",
                         "<attribute name=\"count32\" type=\"int32\">1000</attribute>",
                         "<attribute name=\"count64\" type=\"int64\">1000000007</attribute>",
                         "<attribute name=\"isdone\" type=\"bool\">1</attribute>", "<attribute name=\"isdone\" type=\"bool\">0</attribute>",
                         "<attribute name=\"createdat\" type=\"date\">700000000.00000000000000000000</attribute>",
                         "<attribute name=\"price\" type=\"decimal\">1.25</attribute>",
                         "<attribute name=\"identifier\" type=\"uuid\">00000000-0000-4000-8000-000000000001</attribute>",
                         "<attribute name=\"link\" type=\"uri\">https://example.com/items/1?q=a&amp;b=c</attribute>",
                         "<attribute name=\"payload\" type=\"binary\">AQ==\n</attribute>",
                         "type=\"0/0\" destination=\"TAG\" idrefs=\"z", "<relationship name=\"owner\" type=\"1/1\" destination=\"OWNER\" idrefs=\"z",
                         "<relationship name=\"owner\" type=\"1/1\" destination=\"OWNER\"></relationship>",
                         "<metadata>\n<plist version=\"1.0\">"] {
            #expect(text.contains(fragment), "\(fragment)")
        }
        #expect(!text.contains("NSStoreUUID"), "the UUID lives in <UUID>, as in Apple's files")
    }

    /// Apple's XML IDs are one counter for the whole file: keys never repeat across entities, and
    /// `nextObjectID` is one past the highest.
    @Test func keysAreUniqueAcrossEntities() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        let model = everyTypeModel()
        var keys: [Int64] = []
        for round in 0..<2 {
            let context = try openStore(.xml, at: url, model: model)
            try context.performAndWait { () throws -> Void in
                var objects: [NSManagedObject] = []
                for name in ["Tag", "Owner", "Animal", "Dog", "Item", "Dog"] {
                    let object = NSManagedObject(entity: try #require(model.entitiesByName[name]), insertInto: context)
                    if name != "Item" { object.setValue("\(name) \(round)", forKey: "name") }
                    objects.append(object)
                }
                try context.save()
                keys += objects.map(primaryKey)
            }
        }
        #expect(Set(keys).count == keys.count, "\(keys)")
        let text = try String(contentsOf: url, encoding: .utf8)
        let ids = text.components(separatedBy: " id=\"z").dropFirst().compactMap { Int64($0.prefix { $0 != "\"" }) }
        #expect(ids.sorted() == keys.sorted())
        #expect(text.contains("<nextObjectID>\((keys.max() ?? 0) + 1)</nextObjectID>"))
    }

    /// A file written with other capitalisation (Apple's upper-case entities, any-case properties) opens.
    @Test func namesMatchIgnoringCase() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        try """
        <?xml version="1.0"?>
        <database><databaseInfo><version>134481920</version><UUID>8A1C3F1E-0000-4000-8000-000000000001</UUID>
        <nextObjectID>20</nextObjectID><metadata></metadata></databaseInfo>
        <object type="ITEM" id="z7"><attribute name="COUNT16" type="int16">3</attribute><attribute name="Title" type="string">hand written</attribute>
        <relationship name="OWNER" type="1/1" destination="OWNER" idrefs="z9"></relationship>
        <relationship name="tags" type="0/0" destination="TAG" idrefs="z999"></relationship></object>
        <object type="owner" id="z9"><attribute name="name" type="string">o</attribute></object>
        <object type="DOG" id="z11"><attribute name="name" type="string">Rex</attribute><attribute name="breed" type="string">collie</attribute></object>
        </database>
        """.write(to: url, atomically: true, encoding: .utf8)
        let model = everyTypeModel()
        let context = try openStore(.xml, at: url, model: model)
        try context.performAndWait { () throws -> Void in
            let item = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
            #expect(primaryKey(of: item) == 7)
            #expect((item.value(forKey: "count16") as? NSNumber)?.intValue == 3)
            #expect(item.value(forKey: "title") as? String == "hand written")
            #expect((item.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String == "o")
            #expect((item.value(forKey: "tags") as? Set<NSManagedObject>)?.isEmpty == true, "a reference to a missing object is dropped")
            let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            #expect(animals.first?.value(forKey: "breed") as? String == "collie")
            // New keys continue after nextObjectID.
            let tag = NSManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
            try context.save()
            #expect(primaryKey(of: tag) == 20)
        }
    }

    /// Characters XML 1.0 cannot hold fail the save with 134030 and leave the file as it was.
    @Test func unwritableCharactersFailTheSave() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        let model = everyTypeModel()
        let context = try openStore(.xml, at: url, model: model)
        try populate(context, items: 2)
        let before = try Data(contentsOf: url)
        let code = errorCode {
            try context.performAndWait { () throws -> Void in
                let item = NSManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
                item.setValue("bell \u{7}", forKey: "title")
                try context.save()
            }
        }
        #expect(code == 134030)
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["store.xml"], "no temporary file is left behind")
    }

    @Test func metadataRoundTrips() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        let model = everyTypeModel()
        let context = try openStore(.xml, at: url, model: model)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        var metadata = coordinator.metadata(for: store)
        metadata["com.example.note"] = "kept <&>"
        metadata["com.example.number"] = 42
        coordinator.setMetadata(metadata, for: store)
        try populate(context, items: 1)
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .xml, at: url)
        #expect(read["com.example.note"] as? String == "kept <&>")
        #expect(read["com.example.number"] as? Int == 42)
        #expect(read[NSStoreUUIDKey] as? String == metadata[NSStoreUUIDKey] as? String)
        #expect(read[NSStoreTypeKey] as? String == "XML")
        #expect((read[NSStoreModelVersionHashesKey] as? [String: Any])?.count == 5)
        // Reopening checks the hashes against the model: an edited model is refused without migration options.
        let changed = everyTypeModel()
        changed.entitiesByName["Tag"]?.properties.append(NSAttributeDescription(name: "color", type: .string))
        #expect(errorCode { _ = try openStore(.xml, at: url, model: changed) } == 134100)
    }
}

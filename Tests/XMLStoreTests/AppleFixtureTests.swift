import Testing
import CoreData
import StoreTestSupport

/// Apple's own XML stores open, keep their values, and survive a load → save → load cycle in Apple's format.
@Suite(.enabled(if: Fixtures.available, "fixtures/apple/xml not found (set COREDATA_FIXTURES)"))
struct AppleFixtureTests {
    static let fileNames: [String] = {
        guard let directory = Fixtures.xmlDirectory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.filter { $0.hasSuffix(".xml") || $0.hasSuffix(".crx") }.sorted()
    }()

    /// A writable copy of a fixture (fixtures are read-only and must never change).
    private func copy(_ name: String, into directory: TemporaryDirectory) throws -> URL {
        let source = try #require(Fixtures.xmlDirectory).appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: source.path) { try Test.cancel("fixture \(name) is not in this fixture set") }
        let target = directory.file("store.xml")
        try FileManager.default.copyItem(at: source, to: target)
        return target
    }

    /// Objects of each entity type, counted in the text of the file.
    private func expectedCounts(_ url: URL) throws -> [String: Int] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var counts: [String: Int] = [:]
        for part in text.components(separatedBy: "<object type=\"").dropFirst() {
            counts[String(part.prefix { $0 != "\"" }), default: 0] += 1
        }
        return counts
    }

    @Test(arguments: fileNames)
    func loadsWithObjectCounts(_ name: String) throws {
        let directory = TemporaryDirectory()
        let url = try copy(name, into: directory)
        let before = try Data(contentsOf: url)
        let model = AppleFixtureModels.model(for: URL(fileURLWithPath: name))
        let context = try openStore(.xml, at: url, model: model, options: AppleFixtureModels.options(for: URL(fileURLWithPath: name)))
        let expected = try expectedCounts(url)
        try context.performAndWait { () throws -> Void in
            for entity in model.entities where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                request.includesSubentities = false
                #expect(try context.count(for: request) == expected[entity.name?.uppercased() ?? ""] ?? 0, "\(entity.name ?? "")")
            }
        }
        #expect(try Data(contentsOf: url) == before, "opening a store must not rewrite it")
    }

    @Test func chineseRecipesValues() throws {
        let directory = TemporaryDirectory()
        let url = try copy("Chinese_Recipes.crx".withFixturePrefix(), into: directory)
        let context = try openStore(.xml, at: url, model: AppleFixtureModels.recipes())
        try context.performAndWait { () throws -> Void in
            let recipes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Recipe"))
            #expect(recipes.count == 5)
            let mapo = try #require(recipes.first { $0.value(forKey: "name") as? String == "Mapo Tofu" })
            #expect(primaryKey(of: mapo) == 147)
            #expect((mapo.value(forKey: "cookingTime") as? NSNumber)?.intValue == 8)
            #expect((mapo.value(forKey: "preparationTime") as? NSNumber)?.intValue == 10)
            #expect((mapo.value(forKey: "numberOfServings") as? NSNumber)?.intValue == 4)
            #expect(mapo.value(forKey: "lastPreparationDate") == nil)
            let directions = try #require(mapo.value(forKey: "directions") as? Data)
            #expect(String(decoding: directions.prefix(6), as: UTF8.self) == "{\\rtf1")
            let chef = try #require(mapo.value(forKey: "chef") as? NSManagedObject)
            #expect(primaryKey(of: chef) == 105)
            #expect((chef.value(forKey: "recipes") as? Set<NSManagedObject>)?.contains(mapo) == true)
            #expect((mapo.value(forKey: "cuisines") as? Set<NSManagedObject>)?.map(primaryKey) == [109])
            let ingredients = try #require(mapo.value(forKey: "ingredients") as? Set<NSManagedObject>)
            #expect(!ingredients.isEmpty)
            #expect(ingredients.allSatisfy { ($0.value(forKey: "recipe") as? NSManagedObject) == mapo })

            // Apple's own URI for this object, recorded in the store's Spotlight metadata, is ".../Recipe/p173".
            let wine = try #require(recipes.first { $0.value(forKey: "name") as? String == "Wine Soup" })
            #expect(wine.objectID.uriRepresentation().absoluteString.hasSuffix("/Recipe/p173"))
            #expect((wine.value(forKey: "cuisines") as? Set<NSManagedObject>)?.map(primaryKey).sorted() == [109, 167])
            #expect(recipes.contains { $0.value(forKey: "name") as? String == "Beef & Broccoli With Garlic Sauce" })

            let ingredients55 = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Ingredient"))
            #expect(ingredients55.count == 55)
            #expect(ingredients55.contains { ($0.value(forKey: "amount") as? NSNumber)?.doubleValue == 0.25 })
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Chef")) == 2)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .xml, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == "233B5E6D-8C25-4DC8-B21C-2E416E284C35")
        #expect(metadata[NSStoreTypeKey] as? String == NSXMLStoreType)
        #expect((metadata["kMDItemTextContent"] as? String)?.hasPrefix("PengYou Hao") == true)
    }

    @Test func xcodeMappingValues() throws {
        let directory = TemporaryDirectory()
        let url = try copy("EvolutionDemo.V1.FromV2".withFixturePrefix(), into: directory)
        let context = try openStore(.xml, at: url, model: AppleFixtureModels.xcodeMapping(), options: [NSIgnorePersistentStoreVersioningOption: true])
        try context.performAndWait { () throws -> Void in
            let models = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "XDDevMappingModel"))
            let model = try #require(models.first)
            #expect(models.count == 1)
            #expect((model.value(forKey: "sourceModelPath") as? String)?.hasPrefix("⭐️Sources/") == true)
            #expect((model.value(forKey: "sourceModelData") as? Data)?.starts(with: Data("bplist00".utf8)) == true)
            let mappings = try #require(model.value(forKey: "entityMappings") as? Set<NSManagedObject>)
            #expect(mappings.map(primaryKey) == [104])
            let mapping = try #require(mappings.first)
            #expect(mapping.value(forKey: "sourceName") as? String == "Creature")
            #expect((mapping.value(forKey: "mappingNumber") as? NSNumber)?.intValue == 1)
            #expect((mapping.value(forKey: "autogenerateExpression") as? NSNumber)?.boolValue == true)
            let attributeMappings = try #require(mapping.value(forKey: "attributeMappings") as? Set<NSManagedObject>)
            #expect(Set(attributeMappings.compactMap { $0.value(forKey: "name") as? String }) == ["dnaCode", "numberOfFlagella"])
            // Fetching the abstract parent finds the subentities' objects.
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "XDDevPropertyMapping")) == 2)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .xml, at: url)
        #expect((metadata[NSPersistenceFrameworkVersionKey] as? NSNumber)?.intValue == 977 || metadata[NSPersistenceFrameworkVersionKey] as? Int == 977)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.count == 5)
    }

    /// Xcode's mapping documents record Xcode's version hashes, which the resembling model in code does not
    /// have: without `NSIgnorePersistentStoreVersioningOption` they are refused, as Apple refuses them.
    @Test(arguments: fileNames.filter { $0.contains("xcmapping") })
    func xcodeMappingWithAnotherModelIsRefused(_ name: String) throws {
        let directory = TemporaryDirectory()
        let url = try copy(name, into: directory)
        let before = try Data(contentsOf: url)
        #expect(throws: NSError.self) { _ = try openStore(.xml, at: url, model: AppleFixtureModels.xcodeMapping()) }
        do {
            _ = try openStore(.xml, at: url, model: AppleFixtureModels.xcodeMapping())
        } catch let error as NSError {
            #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        }
        #expect(try Data(contentsOf: url) == before)
    }

    /// Load, change one thing, save (rewriting the whole file), load again: every original object is unchanged
    /// and the file still reads as Apple's format.
    @Test(arguments: fileNames)
    func roundTripKeepsObjectsAndFormat(_ name: String) throws {
        let directory = TemporaryDirectory()
        let url = try copy(name, into: directory)
        let original = try String(contentsOf: url, encoding: .utf8)
        let model = AppleFixtureModels.model(for: URL(fileURLWithPath: name))
        let options = AppleFixtureModels.options(for: URL(fileURLWithPath: name))
        let context = try openStore(.xml, at: url, model: model, options: options)
        let before = try dump(context, model: model)
        let insertedEntity = model.entities.first { !$0.isAbstract && $0.attributesByName["name"] != nil } ?? model.entities[0]
        var insertedKey: Int64 = 0
        try context.performAndWait { () throws -> Void in
            let object = NSManagedObject(entity: insertedEntity, insertInto: context)
            object.setValue("added <by> the round trip & test", forKey: "name")
            try context.save()
            insertedKey = primaryKey(of: object)
        }
        let highest = before.keys.compactMap { Int64($0.split(separator: "/").last?.dropFirst() ?? "") }.max() ?? 0
        #expect(insertedKey > highest, "new keys continue Apple's store-wide counter")

        let reopened = try openStore(.xml, at: url, model: model, options: options)
        var after = try dump(reopened, model: model)
        #expect(after.removeValue(forKey: "\(insertedEntity.name ?? "")/p\(insertedKey)")?["name"] == "String:added <by> the round trip & test")
        #expect(after == before)

        let written = try String(contentsOf: url, encoding: .utf8)
        #expect(written.hasPrefix("<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"))
        #expect(written.contains("<version>134481920</version>"))
        #expect(written.contains("<nextObjectID>\(insertedKey + 1)</nextObjectID>"))
        #expect(written.contains("<object type=\"\(insertedEntity.name?.uppercased() ?? "")\" id=\"z\(insertedKey)\">"))
        if let uuid = original.range(of: "<UUID>").map({ original[$0.upperBound...].prefix(36) }) {
            #expect(written.contains("<UUID>\(uuid)</UUID>"))
        }
        // Every object element, one-line attribute and relationship of Apple's file is written the same way
        // (a to-many's idrefs compared as a set).
        let writtenLines = Set(written.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let writtenRelationships = Set(writtenLines.compactMap(normalizedRelationship))
        for line in original.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("<object ") || (trimmed.hasPrefix("<attribute ") && trimmed.hasSuffix("</attribute>")) {
                #expect(writtenLines.contains(trimmed), "\(trimmed)")
            } else if let relationship = normalizedRelationship(trimmed) {
                #expect(writtenRelationships.contains(relationship), "\(trimmed)")
            }
        }
    }

    /// A `<relationship>` line as "name|type|destination|sorted idrefs", or nil for other lines.
    private func normalizedRelationship(_ line: String) -> String? {
        guard line.hasPrefix("<relationship ") else { return nil }
        func value(_ key: String) -> String {
            guard let start = line.range(of: " \(key)=\"") else { return "" }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
        let ids = value("idrefs").split(separator: " ").sorted().joined(separator: " ")
        return [value("name"), value("type"), value("destination"), ids].joined(separator: "|")
    }
}

extension String {
    /// The full name of the fixture file containing this fragment.
    func withFixturePrefix() -> String { Fixtures.file(self)?.lastPathComponent ?? self }
}

import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Automatic lightweight migration of SQLite stores: a store saved with one model opens with another when
/// both of Apple's migration options are set, keeps its data and object IDs, and is left untouched when the
/// change cannot be inferred.
@Suite struct SQLiteMigrationTests {
    static let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                              NSInferMappingModelAutomaticallyOption: true]

    /// Version 1: Note, Person (name, age, nickname, pets, tags), Pet (name, owner), Tag (title, people).
    static func modelV1() -> NSManagedObjectModel {
        let pets = NSRelationshipDescription(name: "pets", destination: nil, toMany: true)
        let owner = NSRelationshipDescription(name: "owner", destination: nil, toMany: false)
        inverse(pets, owner)
        let tags = NSRelationshipDescription(name: "tags", destination: nil, toMany: true)
        let people = NSRelationshipDescription(name: "people", destination: nil, toMany: true)
        inverse(tags, people)
        let person = entity("Person", [attribute("name", .string), attribute("age", .integer32), attribute("nickname", .string), pets, tags])
        let pet = entity("Pet", [attribute("name", .string), owner])
        let tag = entity("Tag", [attribute("title", .string), people])
        pets.destinationEntity = pet
        owner.destinationEntity = person
        tags.destinationEntity = tag
        people.destinationEntity = person
        return NSManagedObjectModel(entities: [entity("Note", [attribute("body", .string)]), person, pet, tag])
    }

    /// Version 2: Note removed; Person loses age, renames nickname to alias, gains email, score (default 7)
    /// and best (a to-one to Pet); Tag renamed to Label; Toy added. `extra` adds a property to Person.
    static func modelV2(nameType: NSAttributeDescription.AttributeType = .string, extra: NSPropertyDescription? = nil) -> NSManagedObjectModel {
        let pets = NSRelationshipDescription(name: "pets", destination: nil, toMany: true)
        let owner = NSRelationshipDescription(name: "owner", destination: nil, toMany: false)
        inverse(pets, owner)
        let tags = NSRelationshipDescription(name: "tags", destination: nil, toMany: true)
        let people = NSRelationshipDescription(name: "people", destination: nil, toMany: true)
        inverse(tags, people)
        let best = NSRelationshipDescription(name: "best", destination: nil, toMany: false)
        let alias = attribute("alias", .string)
        alias.renamingIdentifier = "nickname"
        let score = NSAttributeDescription(name: "score", type: .integer32, isOptional: false, defaultValue: Int32(7))
        var properties: [NSPropertyDescription] = [attribute("name", nameType), alias, attribute("email", .string), score, pets, tags, best]
        if let extra { properties.append(extra) }
        let person = entity("Person", properties)
        let pet = entity("Pet", [attribute("name", .string), owner])
        let label = entity("Label", [attribute("title", .string), people])
        label.renamingIdentifier = "Tag"
        pets.destinationEntity = pet
        owner.destinationEntity = person
        tags.destinationEntity = label
        people.destinationEntity = person
        best.destinationEntity = pet
        return NSManagedObjectModel(entities: [label, person, pet, entity("Toy", [attribute("name", .string)])])
    }

    /// A version-1 store with two people, three pets, two tags and a note; returns the URIs by name.
    static func makeV1Store(_ url: URL) throws -> [String: URL] {
        let stack = try Stack(model: modelV1(), url: url)
        let uris = try stack.context.performAndWait { () throws -> [String: URL] in
            let model = stack.coordinator.managedObjectModel
            func insert(_ name: String, _ values: [String: Any]) throws -> NSManagedObject {
                let object = NSManagedObject(entity: try #require(model.entitiesByName[name]), insertInto: stack.context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let ada = try insert("Person", ["name": "Ada", "age": Int32(36), "nickname": "Countess"])
            let alan = try insert("Person", ["name": "Alan", "age": Int32(41)])
            let rex = try insert("Pet", ["name": "Rex", "owner": ada])
            let tom = try insert("Pet", ["name": "Tom", "owner": ada])
            let kit = try insert("Pet", ["name": "Kit", "owner": alan])
            let math = try insert("Tag", ["title": "math"])
            let code = try insert("Tag", ["title": "code"])
            ada.setValue(Set([math, code]), forKey: "tags")
            alan.setValue(Set([code]), forKey: "tags")
            _ = try insert("Note", ["body": "dropped"])
            try stack.context.save()
            var uris: [String: URL] = [:]
            for object in [ada, alan, rex, tom, kit] { uris[object.value(forKey: "name") as? String ?? ""] = object.objectID.uriRepresentation() }
            return uris
        }
        stack.coordinator.setMetadata(stack.coordinator.metadata(for: stack.store).merging(["UserKey": "kept"]) { $1 }, for: stack.store)
        try stack.context.performAndWait {
            let note = NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["Note"]), insertInto: stack.context)
            note.setValue("second", forKey: "body")
            try stack.context.save()
        }
        try stack.close()
        return uris
    }

    @Test func migratesAddedRemovedAndRenamedElements() throws {
        let url = TemporaryStore.url()
        let uris = try Self.makeV1Store(url)
        let uuid = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)[NSStoreUUIDKey] as? String
        let model = Self.modelV2()
        let stack = try Stack(model: model, url: url, options: Self.migrate)
        try stack.context.performAndWait {
            let people = try stack.fetch("Person", sort: [NSSortDescriptor(key: "name", ascending: true)])
            #expect(people.map { $0.value(forKey: "name") as? String } == ["Ada", "Alan"])
            let ada = people[0], alan = people[1]
            #expect(ada.value(forKey: "alias") as? String == "Countess")
            #expect(alan.value(forKey: "alias") == nil)
            #expect(ada.value(forKey: "email") == nil)
            #expect((ada.value(forKey: "score") as? NSNumber)?.intValue == 7)
            #expect(ada.value(forKey: "best") == nil)
            let adaPets = (ada.value(forKey: "pets") as? Set<NSManagedObject>) ?? []
            #expect(Set(adaPets.compactMap { $0.value(forKey: "name") as? String }) == ["Rex", "Tom"])
            let adaLabels = (ada.value(forKey: "tags") as? Set<NSManagedObject>) ?? []
            #expect(Set(adaLabels.compactMap { $0.value(forKey: "title") as? String }) == ["math", "code"])
            #expect(adaLabels.allSatisfy { $0.entity.name == "Label" })
            let alanLabels = (alan.value(forKey: "tags") as? Set<NSManagedObject>) ?? []
            #expect(alanLabels.compactMap { $0.value(forKey: "title") as? String } == ["code"])
            for object in people + (try stack.fetch("Pet")) {
                let name = object.value(forKey: "name") as? String ?? ""
                #expect(object.objectID.uriRepresentation() == uris[name], "URI of \(name)")
            }
            let kit = try #require(try stack.fetch("Pet", NSPredicate(format: "name == %@", "Kit")).first)
            #expect((kit.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String == "Alan")
            #expect(try stack.count("Label") == 2)
            #expect(try stack.count("Toy") == 0)
        }
        let metadata = stack.coordinator.metadata(for: stack.store)
        #expect(metadata[NSStoreUUIDKey] as? String == uuid)
        #expect(metadata["UserKey"] as? String == "kept")
        let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]
        #expect(Set(hashes.keys) == ["Label", "Person", "Pet", "Toy"])
        #expect(hashes["Person"] as? Data == model.entitiesByName["Person"]?.versionHash)
        #expect(RawSQLite.rows(url, "SELECT count(*) FROM sqlite_master WHERE name IN ('ZNOTE', 'ZTAG')") == [["0"]])
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal.migration"))

        // A save after the migration works, and keys continue past the old ones.
        try stack.context.performAndWait {
            let ada = try #require(try stack.fetch("Person", NSPredicate(format: "name == %@", "Ada")).first)
            let rex = try #require(try stack.fetch("Pet", NSPredicate(format: "name == %@", "Rex")).first)
            ada.setValue("ada@example.org", forKey: "email")
            ada.setValue(rex, forKey: "best")
            let grace = NSManagedObject(entity: try #require(model.entitiesByName["Person"]), insertInto: stack.context)
            grace.setValue("Grace", forKey: "name")
            let toy = NSManagedObject(entity: try #require(model.entitiesByName["Toy"]), insertInto: stack.context)
            toy.setValue("ball", forKey: "name")
            try stack.context.save()
            #expect(grace.objectID.uriRepresentation().lastPathComponent == "p3")
        }
        try stack.close()
        let reopened = try Stack(model: Self.modelV2(), url: url, options: Self.migrate)
        try reopened.context.performAndWait {
            let ada = try #require(try reopened.fetch("Person", NSPredicate(format: "name == %@", "Ada")).first)
            #expect(ada.value(forKey: "email") as? String == "ada@example.org")
            #expect((ada.value(forKey: "best") as? NSManagedObject)?.value(forKey: "name") as? String == "Rex")
            #expect(try reopened.count("Person") == 3)
            #expect(try reopened.count("Toy") == 1)
        }
        try reopened.close()
        // Without the options a reopen with the old model is refused again.
        #expect(thrownError { _ = try Stack(model: Self.modelV1(), url: url) }?.code == NSPersistentStoreIncompatibleVersionHashError)
    }

    /// Opening `url` with `model` and the migration options throws `code`, and leaves the folder as it was.
    func expectRefused(_ url: URL, model: NSManagedObjectModel, options: [AnyHashable: Any]? = migrate, code: Int,
                       sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        let before = fileBytes(url)
        let directory = url.deletingLastPathComponent().path
        let listing = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.sorted()
        let error = thrownError { _ = try Stack(model: model, url: url, options: options) }
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == code, "\(error?.localizedDescription ?? "no error")", sourceLocation: sourceLocation)
        #expect(fileBytes(url) == before, "the store file changed", sourceLocation: sourceLocation)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory))?.sorted() == listing, "files changed beside the store",
                sourceLocation: sourceLocation)
        return error
    }

    /// Item ⊃ Book{title}, Movie{title} (+ Album{title} when `withAlbum`): sibling properties of one name
    /// share the table through numbered columns.
    static func siblingModel(withAlbum: Bool, bookHasTitle: Bool = true) -> NSManagedObjectModel {
        let item = entity("Item", [attribute("name", .string)])
        let book = entity("Book", bookHasTitle ? [attribute("title", .string)] : [])
        let movie = entity("Movie", [attribute("title", .string)])
        var subentities = [book, movie]
        if withAlbum { subentities.append(entity("Album", [attribute("title", .string)])) }
        item.subentities = subentities
        return NSManagedObjectModel(entities: [item] + subentities)
    }

    @Test func numberedSiblingColumnsAreRefusedNotGuessed() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: Self.siblingModel(withAlbum: false), url: url)
        try stack.context.performAndWait {
            for name in ["Book", "Movie"] {
                let object = NSEntityDescription.insertNewObject(forEntityName: name, into: stack.context)
                object.setValue("\(name) title", forKey: "title")
            }
            try stack.context.save()
        }
        try stack.close()
        // Adding a sibling renumbers the columns; removing Book's title leaves Movie's unnumbered.
        for changed in [Self.siblingModel(withAlbum: true), Self.siblingModel(withAlbum: false, bookHasTitle: false)] {
            let error = expectRefused(url, model: changed, code: NSInferredMappingModelError)
            #expect(error?.localizedDescription.contains("title") == true)
        }
    }

    @Test func typeChangeCannotBeInferred() throws {
        let url = TemporaryStore.url()
        _ = try Self.makeV1Store(url)
        let error = expectRefused(url, model: Self.modelV2(nameType: .date), code: NSInferredMappingModelError)
        #expect(error?.userInfo["entity"] as? String == "Person")
        #expect(error?.userInfo["property"] as? String == "name")
    }

    @Test func requiredAttributeWithoutDefaultFails() throws {
        let url = TemporaryStore.url()
        _ = try Self.makeV1Store(url)
        let required = NSAttributeDescription(name: "badge", type: .string, isOptional: false)
        let error = expectRefused(url, model: Self.modelV2(extra: required), code: NSMigrationError)
        #expect(error?.userInfo["property"] as? String == "badge")
    }

    @Test func optionalBecomingRequiredWithDefaultFillsNulls() throws {
        let url = TemporaryStore.url()
        _ = try Self.makeV1Store(url)
        let model = Self.modelV2()
        let alias = try #require(model.entitiesByName["Person"]?.propertiesByName["alias"] as? NSAttributeDescription)
        alias.isOptional = false
        alias.defaultValue = "none"
        let stack = try Stack(model: model, url: url, options: Self.migrate)
        let aliases = try stack.context.performAndWait {
            try stack.fetch("Person", sort: [NSSortDescriptor(key: "name", ascending: true)]).map { $0.value(forKey: "alias") as? String }
        }
        #expect(aliases == ["Countess", "none"])
        try stack.close()
    }

    @Test func withoutOptionsTheStoreIsRefused() throws {
        let url = TemporaryStore.url()
        _ = try Self.makeV1Store(url)
        _ = expectRefused(url, model: Self.modelV2(), options: nil, code: NSPersistentStoreIncompatibleVersionHashError)
        // Migration without inference needs the store's model and a mapping model; neither is anywhere: Apple's 134130.
        _ = expectRefused(url, model: Self.modelV2(), options: [NSMigratePersistentStoresAutomaticallyOption: true],
                          code: NSMigrationMissingSourceModelError)
        var readOnly = Self.migrate
        readOnly[NSReadOnlyPersistentStoreOption] = true
        _ = expectRefused(url, model: Self.modelV2(), options: readOnly, code: NSPersistentStoreIncompatibleVersionHashError)
    }

    @Test func migrationWritesTheNewSchema() throws {
        let url = TemporaryStore.url()
        _ = try Self.makeV1Store(url)
        try Stack(model: Self.modelV2(), url: url, options: Self.migrate).close()
        let fresh = TemporaryStore.url()
        try Stack(model: Self.modelV2(), url: fresh).close()
        #expect(RawSQLite.modelSchema(url) == RawSQLite.modelSchema(fresh))
        #expect(RawSQLite.rows(url, "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                == [["1", "Label", "2"], ["2", "Person", "2"], ["3", "Pet", "3"], ["4", "Toy", "0"]])
        #expect(RawSQLite.rows(url, "SELECT Z_ENT, count(*) FROM ZLABEL GROUP BY Z_ENT") == [["1", "2"]])
    }

    @Test(.enabled(if: Fixtures.available)) func migratesAnAppleStore() throws {
        let url = try Fixtures.copy("wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_1.sqlite")
        let before = RawSQLite.rows(url, "SELECT Z_PK, ZCOLOR, ZPOSTID FROM ZPOST ORDER BY Z_PK")
        let model = FixtureModels.migrationExample(3)
        let hexColor = try #require(model.entitiesByName["Post"]?.propertiesByName["hexColor"])
        hexColor.renamingIdentifier = "color"
        let stack = try Stack(model: model, url: url, options: Self.migrate)
        let posts = try stack.context.performAndWait {
            let posts = try stack.fetch("Post", sort: [NSSortDescriptor(key: "postID", ascending: true)])
            #expect(posts.count == before.count)
            let expected = Dictionary(before.map { ($0[2], $0[1]) }, uniquingKeysWith: { first, _ in first })
            for post in posts {
                let id = post.value(forKey: "postID") as? String ?? "NULL"
                #expect((post.value(forKey: "hexColor") as? String ?? "NULL") == expected[id])
            }
            return posts
        }
        try stack.context.performAndWait {
            let section = NSManagedObject(entity: try #require(model.entitiesByName["Section"]), insertInto: stack.context)
            section.setValue("Intro", forKey: "title")
            section.setValue(posts.first, forKey: "post")
            try stack.context.save()
        }
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT Z_PK FROM ZPOST ORDER BY Z_PK") == before.map { [$0[0]] })
        #expect(RawSQLite.rows(url, "SELECT count(*) FROM ZSECTION") == [["1"]])
    }

    @Test(.enabled(if: Fixtures.available)) func migratesAnAppleStoreRenamingByColumn() throws {
        let url = try Fixtures.copy("wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_2.sqlite")
        let before = RawSQLite.rows(url, "SELECT Z_PK, ZHEXCOLOR FROM ZPOST").map { ("p" + $0[0], $0[1] == "NULL" ? nil : $0[1]) }
        #expect(!before.isEmpty)
        let migrated = try Stack(model: FixtureModels.migrationExample(3), url: url, options: Self.migrate)
        try migrated.context.performAndWait {
            let after = try migrated.fetch("Post").map { ($0.objectID.uriRepresentation().lastPathComponent, $0.value(forKey: "hexColor") as? String) }
            #expect(after.map(\.0).sorted() == before.map(\.0).sorted())
            #expect(Dictionary(uniqueKeysWithValues: after) == Dictionary(uniqueKeysWithValues: before))
        }
        try migrated.close()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0.contains("migration") }
        #expect(leftovers.isEmpty)
    }

    /// Apple's SurfJournal seed keeps all its rows in the `-wal` file; migration must see them and keep them.
    @Test(.enabled(if: Fixtures.available)) func migratesAnAppleStoreWhoseRowsAreInItsLog() throws {
        let url = try Fixtures.copy("kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__CoreDataSeed__SurfJournalModel.sqlite")
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        let before = RawSQLite.rows(url, "SELECT Z_PK, ZLOCATION, ZRATING FROM ZJOURNALENTRY ORDER BY Z_PK")
        #expect(before.count == 5000)
        let model = NSManagedObjectModel(entities: [entity("JournalEntry", [
            attribute("rating", .integer16), attribute("date", .date), attribute("height", .string), attribute("location", .string),
            attribute("period", .string), attribute("wind", .string), attribute("notes", .string)])])
        let migrated = try Stack(model: model, url: url, options: Self.migrate)
        let entries = try migrated.fetch("JournalEntry", sort: [NSSortDescriptor(key: "location", ascending: true)])
        #expect(entries.count == before.count)
        try migrated.context.performAndWait {
            entries.first?.setValue("windy", forKey: "notes")
            try migrated.context.save()
        }
        try migrated.close()
        #expect(RawSQLite.rows(url, "SELECT Z_PK, ZLOCATION, ZRATING FROM ZJOURNALENTRY ORDER BY Z_PK") == before)
        #expect(RawSQLite.rows(url, "SELECT count(*) FROM ZJOURNALENTRY WHERE ZNOTES = 'windy'") == [["1"]])
    }

    @Test func twoRootsBecomeOneHierarchy() throws {
        let url = TemporaryStore.url()
        let v1 = NSManagedObjectModel(entities: [entity("Car", [attribute("name", .string), attribute("seats", .integer16)]),
                                                 entity("Truck", [attribute("name", .string), attribute("load", .double)])])
        let stack = try Stack(model: v1, url: url)
        try stack.context.performAndWait {
            for (name, entityName) in [("beetle", "Car"), ("mini", "Car"), ("volvo", "Truck")] {
                let object = NSManagedObject(entity: try #require(v1.entitiesByName[entityName]), insertInto: stack.context)
                object.setValue(name, forKey: "name")
                object.setValue(entityName == "Car" ? Int16(4) as Any : 12.5 as Any, forKey: entityName == "Car" ? "seats" : "load")
            }
            try stack.context.save()
        }
        try stack.close()
        let car = entity("Car", [attribute("seats", .integer16)])
        let truck = entity("Truck", [attribute("load", .double)])
        let vehicle = entity("Vehicle", [attribute("name", .string)], abstract: true)
        vehicle.subentities = [car, truck]
        let v2 = NSManagedObjectModel(entities: [vehicle, car, truck])
        let migrated = try Stack(model: v2, url: url, options: Self.migrate)
        try migrated.context.performAndWait {
            let vehicles = try migrated.fetch("Vehicle", sort: [NSSortDescriptor(key: "name", ascending: true)])
            #expect(vehicles.map { $0.value(forKey: "name") as? String } == ["beetle", "mini", "volvo"])
            #expect(vehicles.map { $0.entity.name } == ["Car", "Car", "Truck"])
            #expect((vehicles[2].value(forKey: "load") as? NSNumber)?.doubleValue == 12.5)
            #expect((vehicles[0].value(forKey: "seats") as? NSNumber)?.intValue == 4)
            #expect(Set(vehicles.map(\.objectID)).count == 3)
        }
        try migrated.context.performAndWait {
            let another = NSManagedObject(entity: car, insertInto: migrated.context)
            another.setValue("fiat", forKey: "name")
            try migrated.context.save()
        }
        #expect(try migrated.count("Vehicle") == 4)
        try migrated.close()
    }
}

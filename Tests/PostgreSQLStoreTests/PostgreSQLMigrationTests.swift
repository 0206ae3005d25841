import CoreData
import Foundation
import Testing

/// Automatic lightweight migration of PostgreSQL stores: a store saved with one model opens with another when
/// both of Apple's migration options are set, keeps its data and object IDs, and is left as it was (and
/// openable with its old model) when the change cannot be inferred or the data does not fit.
@Suite(.enabled(if: PostgreSQLTestServer.url != nil, Comment(rawValue: PostgreSQLTestServer.unavailableReason)))
struct PostgreSQLMigrationTests {
    static let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                              NSInferMappingModelAutomaticallyOption: true]

    /// Version 1: Person (name, nickname, age, rank, pets, tags), Pet (name, owner), Tag (title, people).
    static func modelV1() -> NSManagedObjectModel {
        let (pets, owner) = pair("pets", toMany: true, "owner", toMany: false)
        let (tags, people) = pair("tags", toMany: true, "people", toMany: true)
        let person = entity("Person", [attribute("name", .string), attribute("nickname", .string), attribute("age", .integer16),
                                       attribute("rank", .integer64), pets, tags])
        let pet = entity("Pet", [attribute("name", .string), owner])
        let tag = entity("Tag", [attribute("title", .string), people])
        connect(pets, owner, person, pet)
        connect(tags, people, person, tag)
        return NSManagedObjectModel(entities: [person, pet, tag])
    }

    /// Version 2: Person renames nickname to alias, widens age to Integer 64, gains score (required, default
    /// 7) and member (Boolean, required, default true); Tag is renamed Label; Toy is added. `change` edits
    /// Person's properties first.
    static func modelV2(_ change: (inout [NSPropertyDescription]) -> Void = { _ in }) -> NSManagedObjectModel {
        let (pets, owner) = pair("pets", toMany: true, "owner", toMany: false)
        let (tags, people) = pair("tags", toMany: true, "people", toMany: true)
        let alias = attribute("alias", .string)
        alias.renamingIdentifier = "nickname"
        var properties: [NSPropertyDescription] = [
            attribute("name", .string), alias, attribute("age", .integer64), attribute("rank", .integer64),
            NSAttributeDescription(name: "score", type: .integer32, isOptional: false, defaultValue: Int32(7)),
            NSAttributeDescription(name: "member", type: .boolean, isOptional: false, defaultValue: true),
            pets, tags,
        ]
        change(&properties)
        let person = entity("Person", properties)
        let pet = entity("Pet", [attribute("name", .string), owner])
        let label = entity("Label", [attribute("title", .string), people])
        label.renamingIdentifier = "Tag"
        connect(pets, owner, person, pet)
        connect(tags, people, person, label)
        return NSManagedObjectModel(entities: [label, person, pet, entity("Toy", [attribute("name", .string)])])
    }

    /// A version-1 store with two people, three pets and two tags; returns the object URIs by name.
    static func makeV1Store(_ url: URL) throws -> [String: URL] {
        let context = try PostgreSQLStoreTests.context(url, model: modelV1())
        return try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let ada = insert("Person", ["name": "Ada", "nickname": "Countess", "age": Int16(36), "rank": Int64(1)])
            let alan = insert("Person", ["name": "Alan", "age": Int16(41), "rank": Int64(2)])
            let pets = [insert("Pet", ["name": "Rex", "owner": ada]), insert("Pet", ["name": "Tom", "owner": ada]),
                        insert("Pet", ["name": "Kit", "owner": alan])]
            let math = insert("Tag", ["title": "math"]), code = insert("Tag", ["title": "code"])
            ada.setValue(Set([math, code]), forKey: "tags")
            alan.setValue(Set([code]), forKey: "tags")
            try context.save()
            var uris: [String: URL] = [:]
            for object in [ada, alan, math, code] + pets {
                let name = (object.value(forKey: "name") ?? object.value(forKey: "title")) as? String ?? ""
                uris[name] = object.objectID.uriRepresentation()
            }
            return uris
        }
    }

    @Test func renamedAttributesKeepTheirValuesAndObjectURIsSurvive() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { destroy(url) }
        let uris = try Self.makeV1Store(url)
        let uuid = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .postgreSQL, at: url)[NSStoreUUIDKey] as? String
        let model = Self.modelV2()
        let context = try PostgreSQLStoreTests.context(url, model: model, options: Self.migrate)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let people = try context.fetch(request)
            #expect(people.map { $0.value(forKey: "name") as? String } == ["Ada", "Alan"])
            let ada = people[0], alan = people[1]
            #expect(ada.value(forKey: "alias") as? String == "Countess")
            #expect(alan.value(forKey: "alias") == nil)
            #expect(ada.value(forKey: "age") as? Int64 == 36)
            #expect((ada.value(forKey: "score") as? NSNumber)?.intValue == 7)
            #expect(ada.value(forKey: "member") as? Bool == true)
            let adaPets = (ada.value(forKey: "pets") as? Set<NSManagedObject>) ?? []
            #expect(Set(adaPets.compactMap { $0.value(forKey: "name") as? String }) == ["Rex", "Tom"])
            let adaLabels = (ada.value(forKey: "tags") as? Set<NSManagedObject>) ?? []
            #expect(Set(adaLabels.compactMap { $0.value(forKey: "title") as? String }) == ["math", "code"])
            #expect(adaLabels.allSatisfy { $0.entity.name == "Label" })
            let alanLabels = (alan.value(forKey: "tags") as? Set<NSManagedObject>) ?? []
            #expect(alanLabels.compactMap { $0.value(forKey: "title") as? String } == ["code"])

            // Objects keep their URIs, and the URIs find them; a renamed entity's objects keep their keys (a
            // URI names the entity, so theirs change, as with Apple's migrations).
            let kept = people + (try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet")))
            #expect(kept.count == 5)
            for object in kept {
                let name = object.value(forKey: "name") as? String ?? ""
                #expect(object.objectID.uriRepresentation() == uris[name], "URI of \(name)")
                let found = try Self.object(uris[name], in: context)
                #expect(found === object)
            }
            for label in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Label")) {
                let title = label.value(forKey: "title") as? String ?? ""
                #expect(label.objectID.uriRepresentation().lastPathComponent == uris[title]?.lastPathComponent, "key of \(title)")
            }

            // Keys continue past the old ones.
            let grace = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            grace.setValue("Grace", forKey: "name")
            try context.save()
            #expect(!uris.values.contains(grace.objectID.uriRepresentation()))
        }
        let schema = PostgreSQLStoreTests.schema(of: url)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .postgreSQL, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == uuid)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try PostgreSQLStoreTests.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema)_migrating'") == "0")
        #expect(try PostgreSQLStoreTests.psql("SELECT to_regclass('\(schema).ztag') IS NULL") == "t")
        #expect(try PostgreSQLStoreTests.psql("SELECT data_type FROM information_schema.columns WHERE table_schema = '\(schema)' AND table_name = 'zperson' AND column_name = 'zage'") == "bigint")
        #expect(try PostgreSQLStoreTests.psql("SELECT string_agg(z_name || '=' || z_ent, ',' ORDER BY z_ent) FROM \(schema).z_primarykey") == "Label=1,Person=2,Pet=3,Toy=4")

        // Opened again with the new model, without the options, the migrated store is simply the store.
        let reopened = try PostgreSQLStoreTests.context(url, model: Self.modelV2())
        let count = try reopened.performAndWait { try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) }
        #expect(count == 3)
    }

    @Test func aNewRequiredAttributeWithoutDefaultFailsAndLeavesTheOldStore() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { destroy(url) }
        let uris = try Self.makeV1Store(url)
        let before = try Self.contents(of: url)
        let model = Self.modelV2 { $0.append(NSAttributeDescription(name: "badge", type: .string, isOptional: false)) }
        let error = try #require(Self.refusal(url, model: model))
        #expect(error.code == NSMigrationError, "\(error)")
        #expect(error.userInfo["entity"] as? String == "Person")
        #expect(error.userInfo["property"] as? String == "badge")
        #expect(try Self.contents(of: url) == before)
        try Self.expectOpensWithTheOldModel(url, uris: uris)
    }

    @Test func anIncompatibleTypeChangeCannotBeInferred() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { destroy(url) }
        let uris = try Self.makeV1Store(url)
        let before = try Self.contents(of: url)
        let model = Self.modelV2 { properties in
            properties[0] = Self.attribute("name", .date)
        }
        let error = try #require(Self.refusal(url, model: model))
        #expect(error.code == NSInferredMappingModelError, "\(error)")
        #expect(error.userInfo["entity"] as? String == "Person")
        #expect(error.userInfo["property"] as? String == "name")
        #expect(try Self.contents(of: url) == before)
        try Self.expectOpensWithTheOldModel(url, uris: uris)
    }

    @Test func aNumberOutOfTheNarrowerTypesRangeFailsTheMigration() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { destroy(url) }
        let uris = try Self.makeV1Store(url)
        let context = try PostgreSQLStoreTests.context(url, model: Self.modelV1())
        try context.performAndWait {
            let ada = try Self.object(uris["Ada"], in: context)
            ada.setValue(Int64(1) << 40, forKey: "rank")
            try context.save()
        }
        let model = Self.modelV2 { properties in
            properties[3] = Self.attribute("rank", .integer16)
        }
        let error = try #require(Self.refusal(url, model: model))
        #expect(error.code == NSMigrationError, "\(error)")
        try Self.expectOpensWithTheOldModel(url, uris: uris)
    }

    @Test func aNameLongerThanPostgreSQLKeepsIsRefused() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { destroy(url) }
        let uris = try Self.makeV1Store(url)
        let long = String(repeating: "n", count: 56)
        let error = try #require(Self.refusal(url, model: Self.modelV2 { $0.append(Self.attribute(long, .string)) }))
        #expect(error.code == NSMigrationError && error.localizedDescription.contains(long), "\(error)")
        try Self.expectOpensWithTheOldModel(url, uris: uris)
    }

    @Test func twoServersMigratingAtOnceBothOpenTheMigratedStore() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { destroy(url) }
        let uris = try Self.makeV1Store(url)
        // A session holds the old Z_METADATA for a moment, so both servers queue behind it: one migrates while
        // the other waits for its lock, then finds the store migrated.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["psql", "-X", "-q", "-c", "BEGIN; LOCK TABLE \(PostgreSQLStoreTests.schema(of: url)).z_metadata IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(1); COMMIT",
                            try #require(PostgreSQLTestServer.url).absoluteString]
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        Thread.sleep(forTimeInterval: 0.3)
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let context = try PostgreSQLStoreTests.context(url, model: Self.modelV2(), options: Self.migrate)
                let names = try context.performAndWait {
                    try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Label")).compactMap { $0.value(forKey: "title") as? String }
                }
                results.append(.success(names.sorted()))
            } catch {
                results.append(.failure(error))
            }
        }
        holder.waitUntilExit()
        #expect(results.all.count == 2)
        for result in results.all {
            switch result {
            case .success(let names): #expect(names == ["code", "math"])
            case .failure(let error): Issue.record("a server failed to open the store: \(error)")
            }
        }
        let context = try PostgreSQLStoreTests.context(url, model: Self.modelV2())
        try context.performAndWait {
            let pets = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
            #expect(Set(pets.map { $0.objectID.uriRepresentation() }) == [uris["Rex"], uris["Tom"], uris["Kit"]])
        }
    }

    @Test func inThePublicSchemaOnlyTheStoresTablesAreReplaced() throws {
        let database = "t_public_" + UUID().uuidString.prefix(8).lowercased()
        _ = try PostgreSQLStoreTests.psql("CREATE DATABASE \(database)")
        defer { _ = try? PostgreSQLStoreTests.psql("DROP DATABASE \(database) WITH (FORCE)") }
        let server = try #require(PostgreSQLTestServer.url)
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        components.path = "/" + database
        let url = try #require(components.url)
        let uris = try Self.makeV1Store(url)
        _ = try PostgreSQLStoreTests.psql("CREATE TABLE public.audit (note text); INSERT INTO public.audit VALUES ('mine')", server: url)
        let context = try PostgreSQLStoreTests.context(url, model: Self.modelV2(), options: Self.migrate)
        try context.performAndWait {
            let pets = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
            #expect(Set(pets.map { $0.objectID.uriRepresentation() }) == [uris["Rex"], uris["Tom"], uris["Kit"]])
        }
        #expect(try PostgreSQLStoreTests.psql("SELECT note FROM public.audit", server: url) == "mine")
        #expect(try PostgreSQLStoreTests.psql("SELECT to_regclass('public.ztag') IS NULL AND to_regclass('public.zlabel') IS NOT NULL", server: url) == "t")
        #expect(try PostgreSQLStoreTests.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'public_migrating'", server: url) == "0")

        // A view of the user's on a store table stops the migration instead of being dropped with it.
        _ = try PostgreSQLStoreTests.psql("CREATE VIEW public.toys AS SELECT zname FROM public.ztoy", server: url)
        let error = try #require(Self.refusal(url, model: Self.modelV1()))
        #expect(error.code == NSMigrationError && error.localizedDescription.contains("depend"), "\(error)")
        #expect(try PostgreSQLStoreTests.psql("SELECT count(*) FROM public.toys", server: url) == "0")
    }

    // MARK: Helpers

    /// The object whose URI is `uri`, registered in `context`.
    static func object(_ uri: URL?, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let uri = try #require(uri)
        let id = try #require(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
        return try context.existingObject(with: id)
    }

    /// The error of opening `url` with `model` and the migration options, or nil when it opened.
    static func refusal(_ url: URL, model: NSManagedObjectModel) -> NSError? {
        do {
            _ = try PostgreSQLStoreTests.context(url, model: model, options: migrate)
            return nil
        } catch {
            return error as NSError
        }
    }

    /// Every table and row of the store's schema, as `psql` prints them.
    static func contents(of url: URL) throws -> String {
        let schema = PostgreSQLStoreTests.schema(of: url)
        let tables = try PostgreSQLStoreTests.psql("SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables WHERE schemaname = '\(schema)'")
        var contents = tables
        for table in tables.split(separator: " ") {
            contents += "\n" + table + ": " + (try PostgreSQLStoreTests.psql("SELECT string_agg(t::text, ' ' ORDER BY t::text) FROM \(schema).\(table) t"))
        }
        return contents
    }

    static func expectOpensWithTheOldModel(_ url: URL, uris: [String: URL], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = try PostgreSQLStoreTests.context(url, model: modelV1())
        try context.performAndWait {
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(Set(people.map { $0.objectID.uriRepresentation() }) == [uris["Ada"], uris["Alan"]], sourceLocation: sourceLocation)
            #expect(Set(people.compactMap { $0.value(forKey: "nickname") as? String }) == ["Countess"], sourceLocation: sourceLocation)
        }
        #expect(try PostgreSQLStoreTests.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(PostgreSQLStoreTests.schema(of: url))_migrating'") == "0",
                sourceLocation: sourceLocation)
    }

    func destroy(_ url: URL) {
        try? NSPersistentStoreCoordinator(managedObjectModel: Self.modelV1()).destroyPersistentStore(at: url, type: .postgreSQL)
    }

    /// What concurrent openings found, collected under a lock.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Result<[String], Error>] = []
        func append(_ result: Result<[String], Error>) { lock.withLock { results.append(result) } }
        var all: [Result<[String], Error>] { lock.withLock { results } }
    }

    // MARK: Model building

    static func attribute(_ name: String, _ type: NSAttributeDescription.AttributeType) -> NSAttributeDescription {
        NSAttributeDescription(name: name, type: type)
    }

    static func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription(name: name)
        entity.properties = properties
        return entity
    }

    /// Two relationships that are each other's inverse.
    static func pair(_ a: String, toMany aToMany: Bool, _ b: String, toMany bToMany: Bool) -> (NSRelationshipDescription, NSRelationshipDescription) {
        let first = NSRelationshipDescription(name: a, destination: nil, toMany: aToMany)
        let second = NSRelationshipDescription(name: b, destination: nil, toMany: bToMany)
        first.inverseRelationship = second
        second.inverseRelationship = first
        return (first, second)
    }

    /// Points `forward` (on `source`) at `destination` and `backward` back.
    static func connect(_ forward: NSRelationshipDescription, _ backward: NSRelationshipDescription,
                        _ source: NSEntityDescription, _ destination: NSEntityDescription) {
        forward.destinationEntity = destination
        backward.destinationEntity = source
    }
}

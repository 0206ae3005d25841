import CoreData
import Testing

/// Contact(fullName, city) in version 1; Person(firstName, lastName, home → Place) and Place(city, people) in
/// version 2. Contacts of one city share one Place.
enum ContactModels {
    static func v1() -> NSManagedObjectModel {
        let contact = NSEntityDescription(name: "Contact")
        contact.properties = [NSAttributeDescription(name: "fullName", type: .string, isOptional: false),
                              NSAttributeDescription(name: "city", type: .string)]
        return NSManagedObjectModel(entities: [contact])
    }

    static func v2() -> NSManagedObjectModel {
        let person = NSEntityDescription(name: "Person")
        let place = NSEntityDescription(name: "Place")
        let home = NSRelationshipDescription(name: "home", destination: place, toMany: false)
        let people = NSRelationshipDescription(name: "people", destination: person, toMany: true)
        home.inverseRelationship = people
        people.inverseRelationship = home
        person.properties = [NSAttributeDescription(name: "firstName", type: .string, isOptional: false),
                             NSAttributeDescription(name: "lastName", type: .string), home]
        place.properties = [NSAttributeDescription(name: "city", type: .string, isOptional: false), people]
        return NSManagedObjectModel(entities: [person, place])
    }

    /// ContactToPerson (custom: its policy splits the name with a custom function and makes the places) and
    /// nothing for Place, whose instances the policy creates.
    static func mapping(policy: String) throws -> NSMappingModel {
        let mapping = NSEntityMapping()
        mapping.name = "ContactToPerson"
        mapping.mappingType = .customEntityMappingType
        mapping.sourceEntityName = "Contact"
        mapping.destinationEntityName = "Person"
        mapping.entityMigrationPolicyClassName = policy
        mapping.sourceExpression = NSExpression(format: #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Contact", "TRUEPREDICATE"), $manager.sourceContext, NO)"#)
        let first = NSPropertyMapping()
        first.name = "firstName"
        first.valueExpression = NSExpression(format: #"FUNCTION($entityPolicy, "namePart:index:", $source.fullName, 0)"#)
        let last = NSPropertyMapping()
        last.name = "lastName"
        last.valueExpression = NSExpression(format: #"FUNCTION($entityPolicy, "namePart:index:", $source.fullName, 1)"#)
        mapping.attributeMappings = [first, last]
        let model = NSMappingModel()
        model.entityMappings = [mapping]
        return model
    }

    static func writeContacts(_ contacts: [(String, String)], to url: URL, type: NSPersistentStore.StoreType = .sqlite) throws {
        let context = try MigrationManagerTests.open(url, type: type, model: v1())
        try context.performAndWait {
            for (name, city) in contacts { insert("Contact", ["fullName": name, "city": city], into: context) }
            try context.save()
        }
    }
}

/// Splits each contact into a person and (shared per city) a place; the name through a custom function.
final class ContactSplittingPolicy: NSEntityMigrationPolicy {
    var hooks: [String] = []
    static var lastHooks: [String] = []

    override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws { hooks.append("begin") }

    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        hooks.append("create")
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let city = sInstance.value(forKey: "city") as? String else { return }
        var places = manager.userInfo?["places"] as? [String: NSManagedObject] ?? [:]
        let place = places[city] ?? insert("Place", ["city": city], into: manager.destinationContext)
        places[city] = place
        manager.userInfo = ["places": places]
        manager.associate(sourceInstance: sInstance, withDestinationInstance: place, for: mapping)
    }

    override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws { hooks.append("endInstances") }

    override func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard dInstance.entity.name == "Person" else { return }
        hooks.append("relationships")
        let source = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [dInstance]).first
        let place = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: source.map { [$0] } ?? [])
            .first { $0.entity.name == "Place" }
        dInstance.setValue(place, forKey: "home")
    }

    override func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws { hooks.append("endRelationships") }
    override func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws { hooks.append("validate") }
    override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        hooks.append("end")
        Self.lastHooks = hooks
    }

    override func customFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        guard selector == "namePart:index:", let name = arguments.first as? String, let index = arguments.last as? Int64 else {
            return try super.customFunction(selector, arguments: arguments)
        }
        let parts = name.split(separator: " ").map(String.init)
        return index < parts.count ? parts[Int(index)] : nil
    }
}

/// Fails on the third contact, or cancels the migration on the second.
final class FailingPolicy: NSEntityMigrationPolicy {
    static var cancels = false
    var seen = 0
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        seen += 1
        if Self.cancels, seen == 2 { manager.cancelMigrationWithError(NSError(domain: "Test", code: 7)) }
        if seen == 3 { throw NSError(domain: "Test", code: 3, userInfo: [NSLocalizedDescriptionKey: "third contact refused"]) }
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
    }

    override func customFunction(_ selector: String, arguments: [Any?]) throws -> Any? { arguments.first as? String }
}

/// `NSEntityMigrationPolicy` subclasses found by name, every hook in order, custom functions, splitting one
/// source into two destinations and merging many into one, and failures that leave everything as it was.
@Suite(.serialized) struct MigrationPolicyTests {
    @Test(arguments: [(NSPersistentStore.StoreType.sqlite, NSPersistentStore.StoreType.xml), (.binary, .sqlite), (.xml, .binary)])
    func customPolicySplitsAndMerges(types: (NSPersistentStore.StoreType, NSPersistentStore.StoreType)) throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        NSEntityMigrationPolicy.register(ContactSplittingPolicy.self)
        let source = folder.appendingPathComponent("contacts.v1")
        try ContactModels.writeContacts([("Ann Lee", "Oslo"), ("Bo Ek", "Oslo"), ("Cy Oz", "Rome")], to: source, type: types.0)
        let destination = folder.appendingPathComponent("people.v2")
        let manager = NSMigrationManager(sourceModel: ContactModels.v1(), destinationModel: ContactModels.v2())
        // The name as an Xcode model would write it, with a module prefix that is not this one.
        try manager.migrateStore(from: source, type: types.0, mapping: try ContactModels.mapping(policy: "SomeApp.ContactSplittingPolicy"),
                                 to: destination, type: types.1)
        #expect(ContactSplittingPolicy.lastHooks == ["begin", "create", "create", "create", "endInstances",
                                                     "relationships", "relationships", "relationships", "endRelationships", "validate", "end"])
        let context = try MigrationManagerTests.open(destination, type: types.1, model: ContactModels.v2())
        try context.performAndWait {
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            let rows = people.map { [$0.value(forKey: "firstName") as? String ?? "", $0.value(forKey: "lastName") as? String ?? "",
                                     ($0.value(forKey: "home") as? NSManagedObject)?.value(forKey: "city") as? String ?? ""] }
            #expect(Set(rows) == [["Ann", "Lee", "Oslo"], ["Bo", "Ek", "Oslo"], ["Cy", "Oz", "Rome"]])
            let places = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place"))
            #expect(places.count == 2)
            let oslo = places.first { $0.value(forKey: "city") as? String == "Oslo" }
            #expect((oslo?.value(forKey: "people") as? Set<NSManagedObject>)?.count == 2)
        }
    }

    @Test func failureMidwayLeavesSourceUnchangedAndNoDestination() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        NSEntityMigrationPolicy.register(FailingPolicy.self)
        let source = folder.appendingPathComponent("contacts.sqlite")
        try ContactModels.writeContacts([("Ann Lee", "Oslo"), ("Bo Ek", "Oslo"), ("Cy Oz", "Rome"), ("Di Wu", "Rome")], to: source)
        // Every file but the source's own (a SQLite store opened read-only may leave its log files).
        func others() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix("contacts.sqlite") }.sorted() }
        let before = try others()
        let bytes = try Data(contentsOf: source)
        let destination = folder.appendingPathComponent("people.sqlite")
        let manager = NSMigrationManager(sourceModel: ContactModels.v1(), destinationModel: ContactModels.v2())
        FailingPolicy.cancels = false
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: try ContactModels.mapping(policy: "FailingPolicy"), to: destination, type: .sqlite)
        }
        #expect(error.domain == "Test" && error.code == 3)
        #expect(try Data(contentsOf: source) == bytes)
        #expect(try others() == before)

        FailingPolicy.cancels = true
        defer { FailingPolicy.cancels = false }
        let cancelled = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: try ContactModels.mapping(policy: "FailingPolicy"), to: destination, type: .sqlite)
        }
        #expect(cancelled.domain == "Test" && cancelled.code == 7)
        #expect(try others() == before)

        // In place: the old store stays when the migration fails.
        let inPlace = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: try ContactModels.mapping(policy: "FailingPolicy"), to: source, type: .sqlite)
        }
        #expect(inPlace.domain == "Test")
        let reopened = try MigrationManagerTests.open(source, type: .sqlite, model: ContactModels.v1())
        #expect(try reopened.performAndWait { try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Contact")) } == 4)
    }

    @Test func unknownCustomFunctionFailsNamingIt() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("contacts.sqlite")
        try ContactModels.writeContacts([("Ann Lee", "Oslo")], to: source)
        let manager = NSMigrationManager(sourceModel: ContactModels.v1(), destinationModel: ContactModels.v2())
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: try ContactModels.mapping(policy: ""), to: folder.appendingPathComponent("out.sqlite"), type: .sqlite)
        }
        #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
        #expect(error.localizedDescription.contains("namePart:index:"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.sqlite").path))
    }

    @Test func existingDestinationIsNeverOverwritten() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("contacts.sqlite")
        try ContactModels.writeContacts([("Ann Lee", "Oslo")], to: source)
        let other = folder.appendingPathComponent("other.sqlite")
        try ContactModels.writeContacts([("Bo Ek", "Rome")], to: other)
        let manager = NSMigrationManager(sourceModel: ContactModels.v1(), destinationModel: ContactModels.v2())
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, sourceType: NSSQLiteStoreType, with: try ContactModels.mapping(policy: "ContactSplittingPolicy"),
                                     toDestinationURL: other, destinationType: NSSQLiteStoreType)
        }
        #expect(error.code == NSMigrationManagerDestinationStoreError)
        let missing = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, sourceType: NSSQLiteStoreType, with: nil, toDestinationURL: other, destinationType: NSSQLiteStoreType)
        }
        #expect(missing.code == NSMigrationMissingMappingModelError)
        let wrongModel = try #require(throws: NSError.self) {
            try NSMigrationManager(sourceModel: ContactModels.v2(), destinationModel: ContactModels.v1())
                .migrateStore(from: source, type: .sqlite, mapping: NSMappingModel(), to: folder.appendingPathComponent("x.sqlite"), type: .sqlite)
        }
        #expect(wrongModel.code == NSMigrationManagerSourceStoreError)
    }
}

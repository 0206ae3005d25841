import CoreData
import CSQLite
import CoreDataSQL
import Foundation
import Testing
@testable import CoreDataSQLite

/// The SQLite store keeps a composite attribute as one column per element that is not itself a composite,
/// `Z<COMPOSITE>_<ELEMENT>` (see SQLiteStore.md, "Composite attributes"); uniqueness constraints and fetch
/// indexes may name elements by key path; predicates on elements compile to SQL.
@Suite struct CompositeColumnTests {
    static func model() -> NSManagedObjectModel {
        let city = NSCompositeAttributeDescription()
        city.name = "city"
        city.elements = [NSAttributeDescription(name: "name", type: .string)]
        let location = NSCompositeAttributeDescription()
        location.name = "location"
        location.elements = [NSAttributeDescription(name: "label", type: .string),
                             NSAttributeDescription(name: "latitude", type: .double),
                             NSAttributeDescription(name: "longitude", type: .double), city]
        let place = NSEntityDescription(name: "Place")
        place.properties = [NSAttributeDescription(name: "name", type: .string), location]
        place.uniquenessConstraints = [["location.latitude", "location.longitude"]]
        place.indexes = [NSFetchIndexDescription(name: "byLabel", elements: [NSFetchIndexElementDescription(propertyName: "location.label")])]
        return NSManagedObjectModel(entities: [place])
    }

    /// The store caches its model with the composites (`Z_MODELCACHE`, Apple's `.mom` form, elements under
    /// `NSCompositeElements`): the cached model has them, with the same version hashes, and opens the store.
    @Test func theStoreCachesItsModelWithTheComposites() throws {
        let url = TemporaryStore.url()
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
                .setValue(["latitude": 1.5, "longitude": 2.5, "city": ["name": "Paris"]], forKey: "location")
            try context.save()
        }
        try coordinator.remove(store)
        let cached = try #require(try SQLiteStore.cachedModel(at: url))
        let location = try #require(cached.entitiesByName["Place"]?.attributesByName["location"] as? NSCompositeAttributeDescription)
        #expect(location.elements.map(\.name) == ["label", "latitude", "longitude", "city"])
        #expect((location.element(named: "city") as? NSCompositeAttributeDescription)?.elements.map(\.name) == ["name"])
        #expect(cached.entityVersionHashesByName == model.entityVersionHashesByName)
        let reader = NSPersistentStoreCoordinator(managedObjectModel: cached)
        try reader.addPersistentStore(type: .sqlite, at: url)
        let readerContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readerContext.persistentStoreCoordinator = reader
        try readerContext.performAndWait {
            let place = try #require(try readerContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place")).first)
            #expect(place.value(forKeyPath: "location.city.name") as? String == "Paris")
        }
    }

    @Test func eachElementHasItsColumnAndConstraintsReachThem() throws {
        let url = TemporaryStore.url()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            place.setValue(["latitude": 1.5, "longitude": 2.5, "label": "here", "city": ["name": "Paris"]], forKey: "location")
            try context.save()
        }
        let table = RawSQLite.rows(url, "SELECT sql FROM sqlite_master WHERE name = 'ZPLACE'").first?.first ?? ""
        for column in ["ZLOCATION_LATITUDE FLOAT", "ZLOCATION_LONGITUDE FLOAT", "ZLOCATION_LABEL VARCHAR", "ZLOCATION_CITY_NAME VARCHAR"] {
            #expect(table.contains(column), "\(column) in \(table)")
        }
        let row = RawSQLite.rows(url, "SELECT ZLOCATION_LATITUDE, ZLOCATION_LABEL, ZLOCATION_CITY_NAME FROM ZPLACE").first
        #expect(row == ["1.5", "here", "Paris"])
        let indexes = RawSQLite.modelSchema(url).joined(separator: "\n")
        let unique = indexes.split(separator: "\n").first { $0.contains("CREATE UNIQUE INDEX") } ?? ""
        #expect(unique.contains("ZLOCATION_LATITUDE") && unique.contains("ZLOCATION_LONGITUDE"), "\(indexes)")
        let byLabel = indexes.split(separator: "\n").first { $0.contains("Z_Place_byLabel") } ?? ""
        #expect(byLabel.contains("ZLOCATION_LABEL"), "\(indexes)")

        try context.performAndWait {
            let clash = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            clash.setValue(["latitude": 1.5, "longitude": 2.5], forKey: "location")
            let error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.code == NSManagedObjectConstraintMergeError, "\(error)")
            context.rollback()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
            request.predicate = NSPredicate(format: "location.city.name == 'Paris' AND location.latitude < 2")
            #expect(try context.count(for: request) == 1)
        }
    }

    /// Predicates and sorts on elements are SQL over the leaf columns, not evaluated in memory.
    @Test(arguments: ["location.latitude > 1", "location.city.name BEGINSWITH[c] 'p'", "location.label == nil"])
    func elementPredicatesCompileToTheLeafColumns(_ format: String) throws {
        let model = Self.model()
        let entity = try #require(model.entitiesByName["Place"])
        let compiler = SQLPredicateCompiler(schema: SQLSchema(model: model, entities: model.entities, dialect: SQLiteDialect()))
        let scope = SQLPredicateCompiler.Scope(alias: "t0", entity: entity)
        let node = try #require(NSPredicate(format: format).parsedExpression)
        let sql = try #require(compiler.compile(node, in: scope))
        #expect(sql.contains("t0.ZLOCATION_"), "\(sql)")
        let order = try #require(compiler.orderBy([NSSortDescriptor(key: "location.longitude", ascending: false)], in: scope))
        #expect(order.joined().contains("t0.ZLOCATION_LONGITUDE"), "\(order)")
        let whole = try #require(NSPredicate(format: "location == nil").parsedExpression)
        #expect(compiler.compile(whole, in: scope) == nil, "a whole composite has no column: evaluated in memory")
    }
}

import CoreData
import CoreDataSQLite
import Foundation
import Testing

/// Derived attributes in the SQLite store: Apple's `Z_DA_…` triggers, as Apple's store has them (SampleModel2's
/// `Book.pagesCount = pages.@count`), kept up to date by saves on Apple's file and on ours, and recreated by a
/// lightweight migration.
@Suite struct DerivedAttributeTriggerTests {
    static let fixture = "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite"

    static func triggers(_ url: URL) -> [String] {
        RawSQLite.rows(url, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z_DA_%' ORDER BY name")
            .map { "\($0[0]): \($0[1])" }
    }

    static func pagesCounts(_ url: URL) -> [String: String] {
        Dictionary(uniqueKeysWithValues: RawSQLite.rows(url, "SELECT Z_PK, IFNULL(ZPAGESCOUNT, 'NULL') FROM ZBOOK").map { ($0[0], $0[1]) })
    }

    /// The model Apple's store caches (`Z_MODELCACHE`), whose `Book.pagesCount` is derived (`count:(pages)`).
    static func cachedModel(_ url: URL) throws -> NSManagedObjectModel {
        for name in ["CoverTransformer", "ContentTransformer"] {  // the app's transformers: data kept as it is
            ValueTransformer.setValueTransformer(FixtureStoreTests.PassThroughTransformer(), forName: NSValueTransformerName(name))
        }
        let model = try #require(try SQLiteStore.cachedModel(at: url))
        let pagesCount = try #require(model.entitiesByName["Book"]?.attributesByName["pagesCount"] as? NSDerivedAttributeDescription)
        #expect(pagesCount.derivationExpressionFormat != nil)
        return model
    }

    /// A new object of `entity` with every required attribute and to-one set (SampleModel2 requires most).
    @discardableResult
    static func insert(_ entity: String, into context: NSManagedObjectContext, _ values: [String: Any] = [:]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (name, value) in values { object.setValue(value, forKey: name) }
        for (name, attribute) in object.entity.attributesByName where !attribute.isOptional && !(attribute is NSDerivedAttributeDescription) && values[name] == nil {
            let value: Any
            switch attribute.attributeType {
            case .stringAttributeType: value = "\(name) \(UUID().uuidString)"
            case .binaryDataAttributeType, .transformableAttributeType: value = Data([1, 2, 3])
            case .decimalAttributeType: value = Decimal(1)
            case .dateAttributeType: value = Date()
            case .UUIDAttributeType: value = UUID()
            case .booleanAttributeType: value = false
            case .doubleAttributeType, .floatAttributeType: value = 1.0
            default: value = 1
            }
            object.setValue(value, forKey: name)
        }
        for (name, relationship) in object.entity.relationshipsByName where !relationship.isOptional && !relationship.isToMany && values[name] == nil {
            if let destination = relationship.destinationEntity?.name { object.setValue(insert(destination, into: context), forKey: name) }
        }
        return object
    }

    @Test func aNewStoreHasApplesTriggersForTheSameModel() throws {
        let apple = try Fixtures.copy(Self.fixture)
        let model = try Self.cachedModel(apple)
        let ours = TemporaryStore.url()
        let stack = try Stack(model: model, url: ours)
        try stack.close()
        #expect(Self.triggers(ours).count == 5)
        #expect(Self.triggers(ours) == Self.triggers(apple))
    }

    @Test func applesStoreCountsPagesAsApplesTriggersDo() throws {
        let url = try Fixtures.copy(Self.fixture)
        let model = try Self.cachedModel(url)
        let before = Self.pagesCounts(url)
        let stack = try Stack(model: model, url: url)
        let (bookID, otherID, expected): (NSManagedObjectID, NSManagedObjectID, Int64) = try stack.context.performAndWait {
            let books = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            let book = try #require(books.first { (($0.value(forKey: "pages") as? Set<NSManagedObject>)?.count ?? 0) > 1 })
            let other = try #require(books.first { $0 !== book })
            let pages = try #require(book.value(forKey: "pages") as? Set<NSManagedObject>)
            let count = Int64(pages.count)
            #expect((book.value(forKey: "pagesCount") as? NSNumber)?.int64Value == count, "the fixture's stored count")
            // One page moved to the other book, one deleted, one inserted.
            let sorted = pages.sorted { ($0.value(forKey: "number") as? Int64 ?? 0) < ($1.value(forKey: "number") as? Int64 ?? 0) }
            sorted[0].setValue(other, forKey: "book")
            stack.context.delete(sorted[1])
            Self.insert("Page", into: stack.context, ["number": Int64(999), "book": book])
            try stack.context.save()
            #expect((book.value(forKey: "pagesCount") as? NSNumber)?.int64Value == count - 1, "the saving context sees the store's count")
            return (book.objectID, other.objectID, count - 1)
        }
        try stack.close()
        let after = Self.pagesCounts(url)
        let bookKey = String(bookID.uriRepresentation().lastPathComponent.dropFirst())
        let otherKey = String(otherID.uriRepresentation().lastPathComponent.dropFirst())
        #expect(after[bookKey] == String(expected))
        #expect(after[otherKey] == (Int64(before[otherKey] ?? "") ?? 0).advanced(by: 1).description)
    }

    @Test func aStoreMadeHereCountsLikeApples() throws {
        let model = try Self.cachedModel(try Fixtures.copy(Self.fixture))
        let url = TemporaryStore.url()
        let stack = try Stack(model: model, url: url)
        try stack.context.performAndWait {
            let book = Self.insert("Book", into: stack.context)
            for number in 1...3 {
                Self.insert("Page", into: stack.context, ["number": Int64(number), "book": book])
            }
            try stack.context.save()
            #expect((book.value(forKey: "pagesCount") as? NSNumber)?.int64Value == 3)
        }
        try stack.close()
        #expect(Array(Self.pagesCounts(url).values) == ["3"])
    }

    @Test func lightweightMigrationRecreatesTheTriggers() throws {
        let model = try Self.cachedModel(try Fixtures.copy(Self.fixture))
        let url = TemporaryStore.url()
        let stack = try Stack(model: model, url: url)
        try stack.context.performAndWait {
            let book = Self.insert("Book", into: stack.context)
            Self.insert("Page", into: stack.context, ["book": book])
            try stack.context.save()
        }
        try stack.close()
        let expected = Self.triggers(url)
        // The same model with one more attribute: a migration, which writes a new file.
        let newer = model.copy() as! NSManagedObjectModel
        let feedback = try #require(newer.entitiesByName["Feedback"])
        feedback.properties.append(NSAttributeDescription(name: "addedLater", type: .string))
        let migrated = try Stack(model: newer, url: url, options: [NSMigratePersistentStoresAutomaticallyOption: true,
                                                                     NSInferMappingModelAutomaticallyOption: true])
        try migrated.close()
        #expect(Self.triggers(url) == expected)
        #expect(Array(Self.pagesCounts(url).values) == ["1"])
    }

    @Test func aStoreWithoutTriggersGetsThemWhenOpened() throws {
        let model = try Self.cachedModel(try Fixtures.copy(Self.fixture))
        let url = TemporaryStore.url()
        let stack = try Stack(model: model, url: url)
        try stack.context.performAndWait {
            let book = Self.insert("Book", into: stack.context)
            for _ in 0..<2 {
                Self.insert("Page", into: stack.context, ["book": book])
            }
            try stack.context.save()
        }
        try stack.close()
        // As an older version of this package left it: no triggers, no counts.
        for row in RawSQLite.rows(url, "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
            RawSQLite.execute(url, "DROP TRIGGER \(row[0])")
        }
        RawSQLite.execute(url, "UPDATE ZBOOK SET ZPAGESCOUNT = NULL")
        let reopened = try Stack(model: model, url: url)
        try reopened.close()
        #expect(Self.triggers(url).count == 5)
        #expect(Array(Self.pagesCounts(url).values) == ["2"])
    }
}

import CoreData
import Foundation
import Testing

/// Derived attributes on the PostgreSQL store, beyond the conformance cases: every derivation the SQLite store
/// computes (aggregates of one-to-many and many-to-many, to-one key paths, string functions, `now()`) computed
/// by the server's `Z_DA_…` triggers, seen by the saving context, by another coordinator and after a reopen;
/// writes by other sessions and batch updates keep them up to date; a store without its triggers gets them.
@Suite(.enabled(if: PostgreSQLTestServer.url != nil, Comment(rawValue: PostgreSQLTestServer.unavailableReason)))
struct PostgreSQLDerivedAttributeTests {
    /// `Shelf` {name, books (one-to-many), tags (many-to-many), derived: bookCount, pageTotal, thinnest,
    /// thickest, averagePrice, tagCount, upperName, lowerName, canonicalName, touched (now())};
    /// `Book` {title, pages, price, shelf, derived shelfName = shelf.name, canonicalShelf = canonical:(shelf.name)};
    /// `Tag` {label, shelves}.
    static func model() -> NSManagedObjectModel {
        let shelf = NSEntityDescription(name: "Shelf")
        let book = NSEntityDescription(name: "Book")
        let tag = NSEntityDescription(name: "Tag")
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        let owner = NSRelationshipDescription(name: "shelf", destination: shelf, toMany: false)
        books.inverseRelationship = owner
        owner.inverseRelationship = books
        let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
        let shelves = NSRelationshipDescription(name: "shelves", destination: shelf, toMany: true)
        tags.inverseRelationship = shelves
        shelves.inverseRelationship = tags
        func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
            let attribute = NSDerivedAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.derivationExpressionFormat = format
            return attribute
        }
        shelf.properties = [
            NSAttributeDescription(name: "name", type: .string), books, tags,
            derived("bookCount", .integer64AttributeType, "books.@count"),
            derived("pageTotal", .integer64AttributeType, "books.@sum.pages"),
            derived("thinnest", .integer64AttributeType, "books.@min.pages"),
            derived("thickest", .integer64AttributeType, "books.@max.pages"),
            derived("averagePrice", .doubleAttributeType, "books.@avg.price"),
            derived("tagCount", .integer64AttributeType, "tags.@count"),
            derived("upperName", .stringAttributeType, "uppercase:(name)"),
            derived("lowerName", .stringAttributeType, "lowercase:(name)"),
            derived("canonicalName", .stringAttributeType, "canonical:(name)"),
            derived("touched", .dateAttributeType, "now()"),
        ]
        book.properties = [
            NSAttributeDescription(name: "title", type: .string), NSAttributeDescription(name: "pages", type: .integer64),
            NSAttributeDescription(name: "price", type: .double), owner,
            derived("shelfName", .stringAttributeType, "shelf.name"),
            derived("canonicalShelf", .stringAttributeType, "canonical:(shelf.name)"),
        ]
        tag.properties = [NSAttributeDescription(name: "label", type: .string), shelves]
        return NSManagedObjectModel(entities: [shelf, book, tag])
    }

    /// A name whose case mappings and folding differ from plain ASCII ones: `ß`, a final `Σ`, Greek breathings.
    static let name = "Straße Ἀθῆναι Élan ΟΔΟΣ"

    static func coordinator(_ url: URL, model: NSManagedObjectModel) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: [:])
        return coordinator
    }

    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func insert(_ entity: String, into context: NSManagedObjectContext, _ values: [String: Any]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    static func integer(_ object: NSManagedObject?, _ key: String) -> Int64? { (object?.value(forKey: key) as? NSNumber)?.int64Value }

    static func double(_ object: NSManagedObject?, _ key: String) -> Double? { (object?.value(forKey: key) as? NSNumber)?.doubleValue }

    /// The shelves of `context`'s store by name.
    static func shelves(_ context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
        let found = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf"))
        return Dictionary(found.map { ($0.value(forKey: "name") as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The values every derivation of the model has once the first save below is done, as a user reads them.
    static func expectFirstSaveValues(_ shelves: [String: NSManagedObject], _ comment: String) {
        let full = shelves[name], empty = shelves["Empty"]
        #expect(integer(full, "bookCount") == 3, "@count \(comment)")
        #expect(integer(full, "pageTotal") == 600, "@sum \(comment)")
        #expect(integer(full, "thinnest") == 100, "@min \(comment)")
        #expect(integer(full, "thickest") == 300, "@max \(comment)")
        #expect(double(full, "averagePrice") == 20, "@avg \(comment)")
        #expect(integer(full, "tagCount") == 2, "many-to-many @count \(comment)")
        #expect(full?.value(forKey: "upperName") as? String == name.uppercased(), "uppercase: \(comment)")
        #expect(full?.value(forKey: "lowerName") as? String == name.lowercased(), "lowercase: \(comment)")
        #expect(full?.value(forKey: "canonicalName") as? String == name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil),
                "canonical: \(comment)")
        #expect(full?.value(forKey: "touched") is Date, "now() \(comment)")
        #expect(integer(empty, "bookCount") == 0 && integer(empty, "pageTotal") == 0, "@count and @sum of nothing \(comment)")
        #expect(empty?.value(forKey: "thinnest") == nil && empty?.value(forKey: "averagePrice") == nil, "@min and @avg of nothing \(comment)")
    }

    @Test func theServerComputesEveryDerivationAndEveryCoordinatorSeesIt() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        let model = Self.model()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .postgreSQL) }
        let first = try Self.coordinator(url, model: model)
        let context = Self.context(first)
        try context.performAndWait {
            let shelf = Self.insert("Shelf", into: context, ["name": Self.name])
            _ = Self.insert("Shelf", into: context, ["name": "Empty"])
            let tags = [Self.insert("Tag", into: context, ["label": "a"]), Self.insert("Tag", into: context, ["label": "b"])]
            shelf.setValue(Set(tags), forKey: "tags")
            for (pages, price) in [(100, 10.0), (200, 20.0), (300, 30.0)] {
                Self.insert("Book", into: context, ["title": "b\(pages)", "pages": Int64(pages), "price": price, "shelf": shelf])
            }
            try context.save()
            Self.expectFirstSaveValues(try Self.shelves(context), "in the saving context")
            let book = try #require((shelf.value(forKey: "books") as? Set<NSManagedObject>)?.first)
            #expect(book.value(forKey: "shelfName") as? String == Self.name, "a to-one key path in the saving context")
            #expect(book.value(forKey: "canonicalShelf") as? String == "strasse αθηναι elan οδοσ", "canonical: of a to-one key path")
        }

        // Another coordinator (another connection) reads the server's values.
        let second = try Self.coordinator(url, model: model)
        let reader = Self.context(second)
        try reader.performAndWait { Self.expectFirstSaveValues(try Self.shelves(reader), "on another connection") }

        // A change on the first connection: a book moves out, a tag is removed, the shelf is renamed.
        try context.performAndWait {
            let shelves = try Self.shelves(context)
            let shelf = try #require(shelves[Self.name]), empty = try #require(shelves["Empty"])
            let thick = try #require((shelf.value(forKey: "books") as? Set<NSManagedObject>)?.first { Self.integer($0, "pages") == 300 })
            thick.setValue(empty, forKey: "shelf")
            let tag = try #require((shelf.value(forKey: "tags") as? Set<NSManagedObject>)?.first)
            shelf.mutableSetValue(forKey: "tags").remove(tag)
            empty.setValue("Renamed", forKey: "name")
            try context.save()
            #expect(Self.integer(shelf, "bookCount") == 2 && Self.integer(shelf, "thickest") == 200, "after a book moved out")
            #expect(Self.double(shelf, "averagePrice") == 15, "@avg after a book moved out")
            #expect(Self.integer(shelf, "tagCount") == 1, "many-to-many @count after a tag was removed")
            #expect(Self.integer(empty, "bookCount") == 1 && Self.integer(empty, "pageTotal") == 300, "after a book moved in")
            #expect(thick.value(forKey: "shelfName") as? String == "Renamed", "a to-one key path follows a move and a rename")
            #expect(empty.value(forKey: "lowerName") as? String == "renamed", "lowercase: follows a rename")
        }
        try first.persistentStores.forEach { try first.remove($0) }
        try second.persistentStores.forEach { try second.remove($0) }

        // A reopen sees the committed values, and predicates compare them.
        let reopened = Self.context(try Self.coordinator(url, model: model))
        try reopened.performAndWait {
            let shelves = try Self.shelves(reopened)
            #expect(Self.integer(shelves[Self.name], "pageTotal") == 300 && Self.integer(shelves["Renamed"], "thickest") == 300, "after a reopen")
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "shelfName == %@", "Renamed")
            #expect(try reopened.fetch(request).compactMap { Self.integer($0, "pages") } == [300], "a predicate on a derived attribute")
        }
    }

    @Test func writesOfOtherSessionsAndBatchRequestsRunTheTriggers() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        let model = Self.model()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .postgreSQL) }
        let coordinator = try Self.coordinator(url, model: model)
        let context = Self.context(coordinator)
        let shelfID: NSManagedObjectID = try context.performAndWait {
            let shelf = Self.insert("Shelf", into: context, ["name": "Shelf"])
            Self.insert("Book", into: context, ["title": "one", "pages": Int64(10), "shelf": shelf])
            try context.save()
            return shelf.objectID
        }
        // psql, whose search path does not hold the store's schema, inserts a book and renames the shelf.
        let schema = PostgreSQLStoreTests.schema(of: url)
        let shelfKey = try PostgreSQLStoreTests.psql("SELECT z_pk FROM \(schema).zshelf")
        let bookEntity = try PostgreSQLStoreTests.psql("SELECT z_ent FROM \(schema).z_primarykey WHERE z_name = 'Book'")
        _ = try PostgreSQLStoreTests.psql("""
            INSERT INTO \(schema).zbook (z_pk, z_ent, z_opt, zpages, zshelf) VALUES (1000, \(bookEntity), 1, 5, \(shelfKey));
            UPDATE \(schema).zshelf SET zname = 'Shelf B'
            """)
        #expect(try PostgreSQLStoreTests.psql("SELECT zbookcount || ' ' || zpagetotal || ' ' || zlowername FROM \(schema).zshelf") == "2 15 shelf b")
        #expect(try PostgreSQLStoreTests.psql("SELECT string_agg(zshelfname, ',') FROM \(schema).zbook") == "Shelf B,Shelf B")
        // A batch update of the books' pages moves the sum.
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Book")
            update.propertiesToUpdate = ["pages": Int64(50)]
            _ = try context.execute(update)
        }
        #expect(try PostgreSQLStoreTests.psql("SELECT zbookcount || ' ' || zpagetotal FROM \(schema).zshelf") == "2 100", "@sum after a batch update")
        // A batch insert (which cannot set a to-one) and a batch delete of the book psql inserted.
        try context.performAndWait {
            _ = try context.execute(NSBatchInsertRequest(entityName: "Book", objects: [["title": "loose", "pages": Int64(1)]]))
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
            delete.fetchRequest.predicate = NSPredicate(format: "title == nil")
            _ = try context.execute(delete)
        }
        #expect(try PostgreSQLStoreTests.psql("SELECT zbookcount || ' ' || zpagetotal FROM \(schema).zshelf") == "1 50", "after a batch delete")
        #expect(try PostgreSQLStoreTests.psql("SELECT zshelfname IS NULL FROM \(schema).zbook WHERE ztitle = 'loose'") == "t",
                "a batch-inserted book without a shelf has no shelf name")
        // A later save of the shelf reports the values its triggers set, and leaves the others as the store has them.
        try context.performAndWait {
            let shelf = try context.existingObject(with: shelfID)
            shelf.setValue("Shelf C", forKey: "name")
            try context.save()
            #expect(shelf.value(forKey: "upperName") as? String == "SHELF C")
        }
        #expect(try PostgreSQLStoreTests.psql("SELECT zpagetotal || ' ' || zuppername FROM \(schema).zshelf") == "50 SHELF C")
        // The triggers carry Apple's names.
        let names = try PostgreSQLStoreTests.psql("""
            SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = '\(schema)' AND t.tgname IN ('Z_DA_ZSHELF_Shelf_bookCount_SOURCE_INSERT', 'Z_DA_ZBOOK_Shelf_bookCount_PARAMETER_UPDATE_DECREMENT')
            """)
        #expect(names == "2")
    }

    @Test func aStoreWithoutItsTriggersGetsThemAndItsValuesWhenOpened() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        let model = Self.model()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .postgreSQL) }
        let coordinator = try Self.coordinator(url, model: model)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let shelf = Self.insert("Shelf", into: context, ["name": "Kept"])
            Self.insert("Book", into: context, ["title": "one", "pages": Int64(7), "shelf": shelf])
            try context.save()
        }
        try coordinator.persistentStores.forEach { try coordinator.remove($0) }
        // As a store copied without its triggers, or made before the model had derived values, would be.
        let schema = PostgreSQLStoreTests.schema(of: url)
        _ = try PostgreSQLStoreTests.psql("""
            DO $$ DECLARE f regprocedure; BEGIN
              FOR f IN SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                       WHERE n.nspname = '\(schema)' AND lower(p.proname) LIKE 'z\\_da\\_%' LOOP
                EXECUTE 'DROP FUNCTION ' || f || ' CASCADE';
              END LOOP;
            END $$;
            UPDATE \(schema).zshelf SET zbookcount = NULL, zpagetotal = NULL, zuppername = NULL
            """)
        #expect(try PostgreSQLStoreTests.psql("SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(schema)' AND NOT t.tgisinternal") == "0")
        let reopened = Self.context(try Self.coordinator(url, model: model))
        try reopened.performAndWait {
            let shelf = try Self.shelves(reopened)["Kept"]
            #expect(Self.integer(shelf, "bookCount") == 1 && Self.integer(shelf, "pageTotal") == 7, "values computed when the store was opened")
            #expect(shelf?.value(forKey: "upperName") as? String == "KEPT")
            Self.insert("Book", into: reopened, ["title": "two", "pages": Int64(3), "shelf": try #require(shelf)])
            try reopened.save()
            #expect(Self.integer(shelf, "bookCount") == 2 && Self.integer(shelf, "pageTotal") == 10, "the new triggers run")
        }
    }

    @Test func lightweightMigrationRecreatesTheTriggersAndComputesTheValues() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        let model = Self.model()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .postgreSQL) }
        let coordinator = try Self.coordinator(url, model: model)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let shelf = Self.insert("Shelf", into: context, ["name": "Moving"])
            for pages in [1, 2] { Self.insert("Book", into: context, ["title": "p\(pages)", "pages": Int64(pages), "shelf": shelf]) }
            try context.save()
        }
        try coordinator.persistentStores.forEach { try coordinator.remove($0) }
        // The new model adds an attribute and a derived attribute the old store has no column for.
        let newer = Self.model()
        let shelfEntity = try #require(newer.entitiesByName["Shelf"])
        let longest = NSDerivedAttributeDescription()
        longest.name = "longestTitle"
        longest.attributeType = .stringAttributeType
        longest.derivationExpressionFormat = "books.@max.title"
        shelfEntity.properties += [NSAttributeDescription(name: "note", type: .string), longest]
        let migrated = NSPersistentStoreCoordinator(managedObjectModel: newer)
        try migrated.addPersistentStore(type: .postgreSQL, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true,
                                                                               NSInferMappingModelAutomaticallyOption: true])
        let reader = Self.context(migrated)
        try reader.performAndWait {
            let shelf = try Self.shelves(reader)["Moving"]
            #expect(Self.integer(shelf, "bookCount") == 2 && Self.integer(shelf, "pageTotal") == 3, "values kept by the migration")
            #expect(shelf?.value(forKey: "longestTitle") as? String == "p2", "a new derived attribute computed by the migration")
            Self.insert("Book", into: reader, ["title": "p9", "pages": Int64(9), "shelf": try #require(shelf)])
            try reader.save()
            #expect(Self.integer(shelf, "pageTotal") == 12 && shelf?.value(forKey: "longestTitle") as? String == "p9", "the migrated store's triggers run")
        }
    }

    @Test func inThePublicSchemaMigrationAndDestroyingReplaceAndRemoveTheFunctions() throws {
        let database = "t_derived_" + UUID().uuidString.prefix(8).lowercased()
        _ = try PostgreSQLStoreTests.psql("CREATE DATABASE \(database)")
        defer { _ = try? PostgreSQLStoreTests.psql("DROP DATABASE \(database) WITH (FORCE)") }
        let server = try #require(PostgreSQLTestServer.url)
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        components.path = "/" + database
        let url = try #require(components.url)
        let functions = "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND lower(p.proname) LIKE 'z\\_da\\_%'"
        let model = Self.model()
        let coordinator = try Self.coordinator(url, model: model)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let shelf = Self.insert("Shelf", into: context, ["name": "Public"])
            Self.insert("Book", into: context, ["title": "one", "pages": Int64(4), "shelf": shelf])
            try context.save()
        }
        try coordinator.persistentStores.forEach { try coordinator.remove($0) }
        let created = try PostgreSQLStoreTests.psql(functions, server: url)
        // A migration that drops the derived attribute `lowerName`: its functions go with it.
        let newer = Self.model()
        let shelf = try #require(newer.entitiesByName["Shelf"])
        shelf.properties = shelf.properties.filter { $0.name != "lowerName" }
        let migrated = NSPersistentStoreCoordinator(managedObjectModel: newer)
        try migrated.addPersistentStore(type: .postgreSQL, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true,
                                                                               NSInferMappingModelAutomaticallyOption: true])
        let reader = Self.context(migrated)
        try reader.performAndWait {
            let found = try Self.shelves(reader)["Public"]
            #expect(Self.integer(found, "bookCount") == 1 && Self.integer(found, "pageTotal") == 4)
        }
        #expect(Int(try PostgreSQLStoreTests.psql(functions, server: url)) == (Int(created) ?? 0) - 2, "lowerName's two triggers are gone")
        try migrated.persistentStores.forEach { try migrated.remove($0) }
        try NSPersistentStoreCoordinator(managedObjectModel: newer).destroyPersistentStore(at: url, type: .postgreSQL)
        #expect(try PostgreSQLStoreTests.psql(functions, server: url) == "0", "destroying the store drops its functions")
    }

    /// `lowercase:`, `uppercase:` and `canonical:` computed by the server equal Swift's `lowercased()`,
    /// `uppercased()` and the evaluator's `[cd]` folding (which the SQLite and atomic stores use) for text in
    /// many scripts.
    @Test(arguments: [
        "Tiếng Việt có dấu", "한국어 텍스트", "がぎぐげご パピプペポ", "مَرْحَبًا", "שָׁלוֹם", "हिन्दी क़लम", "ภาษาไทย",
        "Ελληνικά ΆΈΉ ΐΰ", "ΣΑΣ σας ΟΔΟΣ.", "Русский Ёжик Й", "Ǆemal ǅ ǆ", "Ⅻ Ｆｕｌｌ ﬁne", "İstanbul ı",
        "Åström Øre Æsir Œuvre Ð þ", "x\u{0308}\u{0301}y", "ﬀ ﬃ ß ẞ ẛ", "ŉ ǰ ΐ ϐϑϕ", "e\u{301}e\u{301}", "Ωhm Ω Å", "plain ASCII", "",
    ])
    func stringFunctionsMatchSwiftsInManyScripts(_ text: String) throws {
        let url = PostgreSQLTestServer.newStoreURL()
        let model = Self.model()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .postgreSQL) }
        let context = Self.context(try Self.coordinator(url, model: model))
        try context.performAndWait {
            let shelf = Self.insert("Shelf", into: context, ["name": text])
            try context.save()
            #expect(shelf.value(forKey: "lowerName") as? String == text.lowercased())
            #expect(shelf.value(forKey: "upperName") as? String == text.uppercased())
            #expect(shelf.value(forKey: "canonicalName") as? String == text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
        }
    }

    /// A derived attribute of a subentity, whose table its parent and a sibling share: the triggers touch its
    /// rows only (Apple's `Z_ENT` conditions).
    @Test func aSubentitysDerivedAttributesLeaveItsSiblingsRowsAlone() throws {
        let container = NSEntityDescription(name: "Container")
        let box = NSEntityDescription(name: "Box"), bag = NSEntityDescription(name: "Bag"), item = NSEntityDescription(name: "Item")
        container.subentities = [box, bag]
        let items = NSRelationshipDescription(name: "items", destination: item, toMany: true)
        let holder = NSRelationshipDescription(name: "box", destination: box, toMany: false)
        items.inverseRelationship = holder
        holder.inverseRelationship = items
        let count = NSDerivedAttributeDescription(), stamp = NSDerivedAttributeDescription()
        (count.name, count.attributeType, count.derivationExpressionFormat) = ("itemCount", .integer64AttributeType, "items.@count")
        (stamp.name, stamp.attributeType, stamp.derivationExpressionFormat) = ("stamped", .dateAttributeType, "now()")
        container.properties = [NSAttributeDescription(name: "label", type: .string)]
        box.properties = [items, count, stamp]
        bag.properties = [NSAttributeDescription(name: "size", type: .integer64)]
        item.properties = [holder]
        let model = NSManagedObjectModel(entities: [container, box, bag, item])
        let url = PostgreSQLTestServer.newStoreURL()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .postgreSQL) }
        let context = Self.context(try Self.coordinator(url, model: model))
        try context.performAndWait {
            let boxed = Self.insert("Box", into: context, ["label": "box"])
            Self.insert("Bag", into: context, ["label": "bag", "size": Int64(3)])
            for _ in 0..<2 { Self.insert("Item", into: context, ["box": boxed]) }
            try context.save()
            #expect(Self.integer(boxed, "itemCount") == 2)
            #expect(boxed.value(forKey: "stamped") is Date)
        }
        let schema = PostgreSQLStoreTests.schema(of: url)
        #expect(try PostgreSQLStoreTests.psql("SELECT string_agg(zlabel || ':' || coalesce(zitemcount::text, '-') || ':' || (zstamped IS NOT NULL)::text, ',' ORDER BY zlabel) FROM \(schema).zcontainer")
                == "bag:-:false,box:2:true", "the sibling's row has no count and no time")
    }
}

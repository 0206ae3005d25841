import CoreData
import Foundation
import Testing
@testable import CoreDataSQL
@testable import CoreDataSQLite

/// A new table lists its columns as Apple's Core Data does (SQLiteStore.md, "Column order"): `Z_PK`, `Z_ENT`,
/// `Z_OPT`, then the columns grouped by type, each group in the order the properties claim columns: each
/// entity of the hierarchy in turn, its attributes by name, then its to-ones by name; the `Z_FOK_` columns
/// after all of them. The 2009 frameworks' order (a Snow Leopard hash table of the names) is reproduced too.
@Suite struct ColumnOrderTests {
    /// `Item` declares its properties out of name order; its subentity `Special` adds an integer and a text.
    static func model() -> NSManagedObjectModel {
        let owner = NSEntityDescription(name: "Owner")
        let item = NSEntityDescription(name: "Item")
        let special = NSEntityDescription(name: "Special")
        let items = NSRelationshipDescription()
        items.name = "items"
        items.destinationEntity = item
        items.maxCount = 0
        items.isOrdered = true
        let ownerOfItem = NSRelationshipDescription()
        ownerOfItem.name = "owner"
        ownerOfItem.destinationEntity = owner
        ownerOfItem.maxCount = 1
        let keeper = NSRelationshipDescription()
        keeper.name = "keeper"
        keeper.destinationEntity = owner
        keeper.maxCount = 1
        items.inverseRelationship = ownerOfItem
        ownerOfItem.inverseRelationship = items
        owner.properties = [NSAttributeDescription(name: "name", type: .string), items]
        item.properties = [NSAttributeDescription(name: "zeta", type: .string), ownerOfItem,
                           NSAttributeDescription(name: "count", type: .integer32),
                           NSAttributeDescription(name: "alpha", type: .string), keeper,
                           NSAttributeDescription(name: "big", type: .integer64),
                           NSAttributeDescription(name: "added", type: .date),
                           NSAttributeDescription(name: "Beta", type: .string)]
        special.properties = [NSAttributeDescription(name: "extra", type: .integer16),
                              NSAttributeDescription(name: "aardvark", type: .string)]
        item.subentities = [special]
        return NSManagedObjectModel(entities: [owner, item, special])
    }

    /// Through a store: the table has the columns in Apple's order, and a reopened store reads every column.
    @Test func aNewTableListsItsColumnsInApplesOrder() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: Self.model(), url: url)
        try stack.context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: stack.context)
            let special = NSEntityDescription.insertNewObject(forEntityName: "Special", into: stack.context)
            special.setValue("a", forKey: "alpha")
            special.setValue("B", forKey: "Beta")
            special.setValue("z", forKey: "zeta")
            special.setValue(7, forKey: "count")
            special.setValue(8, forKey: "big")
            special.setValue(9, forKey: "extra")
            special.setValue("aa", forKey: "aardvark")
            special.setValue(owner, forKey: "owner")
            special.setValue(owner, forKey: "keeper")
            try stack.context.save()
        }
        try stack.close()
        let table = try #require(RawSQLite.rows(url, "SELECT sql FROM sqlite_master WHERE name = 'ZITEM'").first?.first)
        #expect(table == "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBIG INTEGER, ZCOUNT INTEGER, "
                + "ZKEEPER INTEGER, ZOWNER INTEGER, ZEXTRA INTEGER, Z_FOK_OWNER INTEGER, ZADDED TIMESTAMP, "
                + "ZBETA VARCHAR, ZALPHA VARCHAR, ZZETA VARCHAR, ZAARDVARK VARCHAR )")
        let reopened = try Stack(model: Self.model(), url: url)
        defer { try? reopened.close() }
        try reopened.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Special")
            let special = try #require(try reopened.context.fetch(request).first)
            #expect(special.value(forKey: "alpha") as? String == "a")
            #expect(special.value(forKey: "Beta") as? String == "B")
            #expect(special.value(forKey: "zeta") as? String == "z")
            #expect((special.value(forKey: "count") as? NSNumber)?.intValue == 7)
            #expect((special.value(forKey: "big") as? NSNumber)?.intValue == 8)
            #expect((special.value(forKey: "extra") as? NSNumber)?.intValue == 9)
            #expect(special.value(forKey: "aardvark") as? String == "aa")
            let owner = try #require(special.value(forKey: "owner") as? NSManagedObject)
            #expect(special.value(forKey: "keeper") as? NSManagedObject === owner)
            #expect((owner.value(forKey: "items") as? NSOrderedSet)?.array.first as? NSManagedObject === special)
        }
    }

    /// The Snow Leopard string hash is CoreFoundation's `CFString` hash, which swift-corelibs-foundation still
    /// uses for `NSString.hash` (64-bit): both agree on short, grouped, odd-length, long (sampled) and
    /// non-ASCII names.
    @Test(arguments: ["", "a", "name", "prepTime", "instructions", "thumbnailImage", "displayOrder", "héllo wörld",
                      String(repeating: "abcdefghij", count: 12) + "xyz", String(repeating: "q", count: 96), String(repeating: "Q", count: 97)])
    func theLegacyHashIsCoreFoundationsStringHash(_ name: String) {
        #expect(SnowLeopardPropertyTable.hash(name) == UInt64(UInt(bitPattern: (name as NSString).hash)), "\(name)")
    }

    /// The table's bucket order: names whose hashes fall in distinct buckets come out by bucket; a name whose
    /// bucket is taken goes to the next free one; at 5 names or more the table starts at the size for them.
    @Test func theLegacyTableOrdersNamesByBucket() {
        let names = ["instructions", "name", "overview", "prepTime", "thumbnailImage"]
        let order = SnowLeopardPropertyTable.order(of: names)
        #expect(Set(order) == Set(names.indices) && order.count == names.count)
        // Five names: a table of 7 buckets; each name's bucket is its hash modulo 7, probing forward.
        var buckets = [Int?](repeating: nil, count: 7)
        for (index, name) in names.enumerated() {
            var bucket = Int(SnowLeopardPropertyTable.hash(name) % 7)
            while buckets[bucket] != nil { bucket = (bucket + 1) % 7 }
            buckets[bucket] = index
        }
        #expect(order == buckets.compactMap { $0 })
    }

    /// The 2009 Recipes store (framework 241) lists its columns in the Snow Leopard order: the schema built in
    /// that order from its own model has exactly its `CREATE TABLE` statements; in name order it has the
    /// same columns, but `ZRECIPE`'s text columns in another order.
    @Test(.enabled(if: Fixtures.available, "fixtures not found (set COREDATA_FIXTURES or put them in ../shared/fixtures)"))
    func theLegacyOrderIsThe2009RecipesStoresOrder() throws {
        let file = "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite"
        let apple = try Fixtures.copy(file)
        let appleTables = RawSQLite.rows(apple, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' "
                                                + "AND name NOT IN ('Z_PRIMARYKEY', 'Z_METADATA', 'Z_MODELCACHE') ORDER BY name").map { $0[0] }
        #expect(appleTables.count == 4)
        for (name, model) in try FixtureValueTests.models(of: file) {
            let legacy = SQLSchema(model: model, entities: model.entities, dialect: SQLiteDialect(), columnOrder: .snowLeopardHash)
            #expect(legacy.orderedTables.map { $0.createSQL(SQLiteDialect()) }.sorted() == appleTables, "\(name)")
            let current = SQLSchema(model: model, entities: model.entities, dialect: SQLiteDialect())
            let currentTables = current.orderedTables.map { $0.createSQL(SQLiteDialect()) }.sorted()
            #expect(currentTables.map { FixtureValueTests.columnsSorted("table " + $0) } == appleTables.map { FixtureValueTests.columnsSorted("table " + $0) }, "\(name)")
            #expect(currentTables.filter { !appleTables.contains($0) }.map { String($0.prefix(21)) } == ["CREATE TABLE ZRECIPE "], "\(name)")
        }
    }
}

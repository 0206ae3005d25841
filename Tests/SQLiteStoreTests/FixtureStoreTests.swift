import CoreData
import Foundation
import Testing

/// Apple-written stores open through the public API, with the right row counts and values, and a store we
/// create for the same model has the same schema.
@Suite(.enabled(if: Fixtures.available, "fixtures not found (set COREDATA_FIXTURES or put them in ../shared/fixtures)"))
struct FixtureStoreTests {
    struct Case: CustomStringConvertible, Sendable {
        let file: String
        let model: @Sendable () -> NSManagedObjectModel
        /// Objects per entity name, counting subentities.
        let counts: [String: Int]
        var description: String { String(file.split(separator: "_").last ?? "") }
    }

    static let cases: [Case] = [
        Case(file: "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite", model: { FixtureModels.sampleModel() },
             counts: ["Car": 125, "SportCar": 10, "ExpensiveSportCar": 5, "Person": 20]),
        Case(file: "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
             model: { FixtureModels.sampleModel2(coverName: "cover", writerSiteURL: true) },
             counts: ["Book": 52, "Feedback": 444, "Page": 4970, "Author": 2]),
        Case(file: "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite", model: { FixtureModels.sampleModel2() },
             counts: ["Book": 3, "GraphicNovel": 1, "Feedback": 3, "Page": 119, "Writer": 1, "Author": 1]),
        Case(file: "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite", model: { FixtureModels.sampleModel3() },
             counts: ["User": 12]),
        Case(file: "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite", model: { FixtureModels.recipes() },
             counts: ["Image": 7, "Ingredient": 31, "Recipe": 7, "RecipeType": 5]),
        Case(file: "gilpa__iphone_sqlite_test__CoreDataBooks.sqlite", model: { FixtureModels.coreDataBooks() }, counts: ["Book": 12]),
        Case(file: "kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__CoreDataSeed__SurfJournalModel.sqlite",
             model: { FixtureModels.surfJournal() }, counts: ["JournalEntry": 5000]),
        Case(file: "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_1.sqlite",
             model: { FixtureModels.migrationExample(1) }, counts: ["Post": 10]),
        Case(file: "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_2.sqlite",
             model: { FixtureModels.migrationExample(2) }, counts: ["Post": 10]),
        Case(file: "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_3.sqlite",
             model: { FixtureModels.migrationExample(3) }, counts: ["Post": 12, "Section": 14]),
    ]

    @Test("every fixture store opens with its row counts", arguments: cases)
    func opensWithCounts(_ fixture: Case) throws {
        let url = try Fixtures.copy(fixture.file)
        let stack = try Stack(model: try FixtureModels.storeModel(fixture.file), url: url)
        for (name, expected) in fixture.counts {
            #expect(try stack.count(name) == expected, "\(name)")
            #expect(try stack.fetch(name).count == expected, "\(name)")
        }
        #expect(stack.store.metadata[NSStoreUUIDKey] as? String != nil)
    }

    @Test("a store created for a fixture's model has Apple's tables, columns and indexes", arguments: cases.filter { !$0.file.hasPrefix("gilpa") })
    func sameSchemaAsApple(_ fixture: Case) throws {
        // A copy: SQLite writes a -wal and -shm beside any WAL database it opens, even read-only.
        let apple = try Fixtures.copy(fixture.file)
        let url = TemporaryStore.url()
        let stack = try Stack(model: fixture.model(), url: url)
        try stack.close()
        let ours = RawSQLite.modelSchema(url)
        let theirs = RawSQLite.modelSchema(URL(fileURLWithPath: apple.path))
        #expect(ours.map(FixtureValueTests.columnsSorted) == theirs.map(FixtureValueTests.columnsSorted))
        // The 2009 Recipes store lists ZRECIPE's text columns in that year's hash-table order of the names; a
        // new store is made in the current order (ColumnOrderTests reproduces the 2009 one).
        withKnownIssue("the 2009 Recipes store is in the 2009 frameworks' column order, a new store in the current one") {
            #expect(ours == theirs)
        } when: { fixture.file == "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite" }
        #expect(RawSQLite.rows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                    == RawSQLite.rows(apple, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT"))
        #expect(RawSQLite.rows(url, "PRAGMA journal_mode") == [["wal"]])
        #expect(RawSQLite.rows(url, "PRAGMA auto_vacuum") == [["2"]])
    }

    @Test func sampleModelValuesAndInheritance() throws {
        let url = try Fixtures.copy(Self.cases[0].file)
        let stack = try Stack(model: try FixtureModels.storeModel(Self.cases[0].file), url: url)
        #expect(try stack.count("Car", subentities: false) == 115)
        let car = try #require(try stack.fetch("Car", NSPredicate(format: "numberPlate == %@", "170")).first)
        try stack.context.performAndWait {
            #expect(car.value(forKey: "maker") as? String == "FIAT")
            #expect(car.value(forKey: "model") as? String == "Panda")
            let owner = try #require(car.value(forKey: "owner") as? NSManagedObject)
            #expect(owner.value(forKey: "firstName") as? String != nil)
            #expect((owner.value(forKey: "cars") as? Set<NSManagedObject>)?.contains(car) == true)
        }
        let person = try #require(try stack.fetch("Person", NSPredicate(format: "firstName == %@ AND lastName == %@", "Victoria", "Coster")).first)
        stack.context.performAndWait {
            #expect(person.value(forKey: "id") as? UUID == UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"))
            let updated = person.value(forKey: "updatedAt") as? Date
            #expect(abs((updated?.timeIntervalSinceReferenceDate ?? 0) - 639503569.638733) < 0.001)
        }
        let expensive = try stack.fetch("ExpensiveSportCar")
        #expect(expensive.count == 5)
        #expect(expensive.allSatisfy { $0.entity.name == "ExpensiveSportCar" })
        #expect(try stack.fetch("SportCar", subentities: false).count == 5)
    }

    @Test func sampleModel2DecimalsUUIDsBlobsAndToMany() throws {
        let url = try Fixtures.copy(Self.cases[2].file)
        let stack = try Stack(model: try FixtureModels.storeModel(Self.cases[2].file), url: url)
        let books = try stack.fetch("Book", sort: [NSSortDescriptor(key: "title", ascending: true)])
        #expect(books.map { $0.entity.name ?? "" } == ["Book", "Book", "GraphicNovel"])
        stack.context.performAndWait {
            let first = books[0]
            #expect(first.value(forKey: "title") as? String == "title 1 - author 1")
            #expect(first.value(forKey: "price") as? Decimal == Decimal(string: "10.11"))
            #expect(first.value(forKey: "uniqueID") as? UUID == UUID(uuidString: "AE289A08-EC9E-49D5-A96B-CBDFD53D451F"))
            #expect((first.value(forKey: "frontCover") as? Data)?.count == 277)
            #expect((first.value(forKey: "pages") as? Set<NSManagedObject>)?.count == 99)
            #expect(books[1].value(forKey: "price") as? Decimal == Decimal(string: "3.3333333333"))
            #expect(books[2].value(forKey: "isBlackAndWhite") as? Bool == true)
            let author = books[2].value(forKey: "author") as? NSManagedObject
            #expect(author?.value(forKey: "alias") as? String == "Alessandro")
            #expect(author?.value(forKey: "age") as? Int16 == 40)
            #expect((author?.value(forKey: "books") as? Set<NSManagedObject>)?.count == 3)
        }
        let page = try #require(try stack.fetch("Page", NSPredicate(format: "book.title == %@ AND number == 97", "title 1 - author 1")).first)
        stack.context.performAndWait {
            #expect(page.value(forKey: "isBookmarked") as? Bool == true)
            #expect((page.value(forKey: "content") as? Data)?.count == 238)
        }
        #expect(try stack.count("Feedback", NSPredicate(format: "rating > 4")) == 2)
    }

    @Test func recipesRelationshipsInAStoreFrom2009() throws {
        let url = try Fixtures.copy("fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite")
        let stack = try Stack(model: try FixtureModels.storeModel("fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite"), url: url)
        let recipes = try stack.fetch("Recipe", sort: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(recipes.count == 7)
        try stack.context.performAndWait {
            let withIngredients = recipes.filter { (($0.value(forKey: "ingredients") as? Set<NSManagedObject>)?.count ?? 0) > 0 }
            #expect(!withIngredients.isEmpty)
            let recipe = try #require(withIngredients.first)
            let image = recipe.value(forKey: "image") as? NSManagedObject
            #expect(image == nil || (image?.value(forKey: "recipe") as? NSManagedObject) == recipe)
            #expect((recipe.value(forKey: "type") as? NSManagedObject)?.value(forKey: "name") as? String != nil)
        }
        #expect(try stack.count("Ingredient", NSPredicate(format: "ANY recipe.name != nil")) <= 31)
    }

    @Test func surfJournalRowsLiveInTheWAL() throws {
        let url = try Fixtures.copy(Self.cases[6].file)
        let stack = try Stack(model: FixtureModels.surfJournal(), url: url)
        let first = try stack.fetch("JournalEntry", sort: [NSSortDescriptor(key: "date", ascending: true)], limit: 1)
        #expect(first.count == 1)
        #expect(try stack.count("JournalEntry", NSPredicate(format: "rating BETWEEN {1, 5}")) == 5000)
    }

    /// Stores a transformable value's data as it is (the fixture's own transformers are app classes).
    final class PassThroughTransformer: ValueTransformer, @unchecked Sendable {
        override class func allowsReverseTransformation() -> Bool { true }
    }

    @Test func writingToAnAppleStoreKeepsItApples() throws {
        let url = try Fixtures.copy(Self.cases[2].file)
        let before = RawSQLite.rows(url, "SELECT type, name, sql FROM sqlite_master ORDER BY name")
        for name in ["CoverTransformer", "ContentTransformer"] {
            ValueTransformer.setValueTransformer(PassThroughTransformer(), forName: NSValueTransformerName(name))
        }
        // The store's own model: every attribute but the optional ones must be set, and a book needs a page.
        let stack = try Stack(model: try FixtureModels.storeModel(Self.cases[2].file), url: url)
        try stack.context.performAndWait {
            let model = stack.coordinator.managedObjectModel
            let author = try #require(try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first)
            let book = NSManagedObject(entity: try #require(model.entitiesByName["Book"]), insertInto: stack.context)
            book.setValue("title written on Linux", forKey: "title")
            book.setValue(UUID(), forKey: "uniqueID")
            book.setValue(Decimal(string: "9.99"), forKey: "price")
            book.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "publishedAt")
            book.setValue(Data([1, 2, 3]), forKey: "frontCover")
            book.setValue(author, forKey: "author")
            let page = NSManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: stack.context)
            page.setValue(Int32(1), forKey: "number")
            page.setValue(false, forKey: "isBookmarked")
            page.setValue(Data([4, 5]), forKey: "content")
            page.setValue(book, forKey: "book")
            author.setValue(Int16(41), forKey: "age")
            try stack.context.save()
        }
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT type, name, sql FROM sqlite_master ORDER BY name") == before)
        #expect(RawSQLite.rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1") == [["4"]])
        #expect(RawSQLite.rows(url, "SELECT Z_OPT, ZAGE FROM ZWRITER WHERE Z_PK = 1") == [["2", "41"]])
        #expect(RawSQLite.rows(url, "SELECT Z_PK, Z_ENT, Z_OPT, ZAUTHOR FROM ZBOOK WHERE ZTITLE = 'title written on Linux'") == [["4", "1", "1", "1"]])
        // The derived-attribute triggers ran: pagesCount of the new book counts its one page.
        #expect(RawSQLite.rows(url, "SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = 4") == [["1"]])
        // The metadata still records the store's model as Apple wrote it.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(try FixtureModels.storeModel(Self.cases[2].file).isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }
}

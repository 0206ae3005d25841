import CoreData
import CoreDataSQLite
import StoreTestSupport
import Foundation
import Testing

/// Models of the fixture stores, rebuilt in code from their source models (or, for programmatic models, from
/// the stores' schemas), with properties in the order Apple's model files list them. Transformable
/// attributes whose classes do not exist here are declared as binary data; they are BLOB columns either way.
///
/// Where a rebuilt model differs from the store's own (types, optionality, derived attributes), its version
/// hashes differ and the store refuses it, as Apple's Core Data would: such a model is only for creating new
/// stores with Apple's schema. `storeModel(_:)` is the model a fixture store opens with.
enum FixtureModels {
    /// The model a fixture store was written with, whose version hashes it records: the model it caches
    /// (`Z_MODELCACHE`), else its model file in the fixtures, else (CoreDataBooks, whose model file gained an
    /// attribute after the store was written) the exact model rebuilt in code.
    static func storeModel(_ file: String) throws -> NSManagedObjectModel {
        guard let source = Fixtures.sqlite(file), FileManager.default.fileExists(atPath: source.path) else {
            try Test.cancel("fixture \(file) is not in this fixture set")
        }
        if let cached = try SQLiteStore.cachedModel(at: try Fixtures.copy(file)) { return cached }
        let modelFiles = [
            "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite": "fruitsamples__iPhoneCoreDataRecipes__Recipes.xcdatamodel",
            "kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__CoreDataSeed__SurfJournalModel.sqlite":
                "kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__SurfJournalModel.xcdatamodeld",
        ]
        if let modelFile = modelFiles[file], let root = Fixtures.root {
            return try NSManagedObjectModel.load(contentsOf: root.appendingPathComponent("apple/models/" + modelFile))
        }
        if file == "gilpa__iphone_sqlite_test__CoreDataBooks.sqlite" { return coreDataBooks() }
        throw Fixtures.FixtureMissing()
    }

    /// alemar11/CoreDataPlus SampleModel (version 1): Car < SportCar < ExpensiveSportCar, Person.
    static func sampleModel(withColorAndID: Bool = true) -> NSManagedObjectModel {
        let owner = NSRelationshipDescription(name: "owner", destination: nil, toMany: false)
        let cars = NSRelationshipDescription(name: "cars", destination: nil, toMany: true)
        inverse(owner, cars)
        var carProperties: [NSPropertyDescription] = []
        if withColorAndID { carProperties.append(attribute("color", .binaryData)) }
        let speed = attribute("currentDrivingSpeed", .integer64)
        speed.isTransient = true
        carProperties += [speed, attribute("maker", .string), attribute("markedForDeletionAsOf", .date), attribute("model", .string),
                          attribute("numberPlate", .string), owner]
        let car = entity("Car", carProperties)
        car.uniquenessConstraints = [["numberPlate"]]
        let expensive = entity("ExpensiveSportCar", [attribute("isLimitedEdition", .boolean)])
        let sport = entity("SportCar", [])
        sport.subentities = [expensive]
        car.subentities = [sport]
        let driving = attribute("isDriving", .boolean)
        driving.isTransient = true
        var personProperties: [NSPropertyDescription] = [attribute("firstName", .string)]
        if withColorAndID { personProperties.append(attribute("id", .uuid)) }
        personProperties += [driving, attribute("lastName", .string), attribute("updatedAt", .date), cars]
        let person = entity("Person", personProperties)
        person.uniquenessConstraints = [["firstName", "lastName"]]
        owner.destinationEntity = person
        cars.destinationEntity = car
        return NSManagedObjectModel(entities: [car, sport, expensive, person])
    }

    /// alemar11/CoreDataPlus SampleModel2 (programmatic): Book < GraphicNovel, Feedback, Page, Writer < Author.
    static func sampleModel2(coverName: String = "frontCover", writerSiteURL: Bool = false) -> NSManagedObjectModel {
        let author = NSRelationshipDescription(name: "author", destination: nil, toMany: false)
        let books = NSRelationshipDescription(name: "books", destination: nil, toMany: true)
        inverse(author, books)
        let pages = NSRelationshipDescription(name: "pages", destination: nil, toMany: true, deleteRule: .cascadeDeleteRule)
        let bookOfPage = NSRelationshipDescription(name: "book", destination: nil, toMany: false)
        inverse(pages, bookOfPage)
        // Declared in CoreDataPlus's order (uniqueID, title, price, cover, publishedAt, pagesCount): Apple's table has
        // ZPUBLISHEDAT before ZPRICE and ZUNIQUEID before the cover whatever the order (SQLSchema.rank(of:)).
        let book = entity("Book", [attribute("uniqueID", .uuid), attribute("title", .string), attribute("price", .decimal),
                                   attribute(coverName, .binaryData), attribute("publishedAt", .date), attribute("pagesCount", .integer64),
                                   author, pages])
        book.uniquenessConstraints = [["uniqueID"]]
        let novel = entity("GraphicNovel", [attribute("isBlackAndWhite", .boolean)])
        book.subentities = [novel]
        let feedback = entity("Feedback", [attribute("rating", .double), attribute("authorAlias", .string), attribute("comment", .string),
                                           attribute("bookID", .uuid)])
        let page = entity("Page", [attribute("isBookmarked", .boolean), attribute("number", .integer64), attribute("content", .binaryData), bookOfPage])
        let writer = entity("Writer", [attribute("age", .integer16)], abstract: true)
        var authorProperties: [NSPropertyDescription] = [attribute("alias", .string)]
        if writerSiteURL { authorProperties.append(attribute("siteURL", .uri)) }
        let authorEntity = entity("Author", authorProperties + [books])
        authorEntity.uniquenessConstraints = [["alias"]]
        writer.subentities = [authorEntity]
        author.destinationEntity = authorEntity
        books.destinationEntity = book
        pages.destinationEntity = page
        bookOfPage.destinationEntity = book
        return NSManagedObjectModel(entities: [book, novel, feedback, page, writer, authorEntity])
    }

    /// alemar11/CoreDataPlus SampleModel3 (version 1): User.
    static func sampleModel3() -> NSManagedObjectModel {
        let name = attribute("name", .string)
        name.isOptional = false
        return NSManagedObjectModel(entities: [entity("User", [name, attribute("petName", .string)])])
    }

    /// Apple's iPhoneCoreDataRecipes: Image, Ingredient, Recipe, RecipeType. (Declared in the 2009 store's
    /// column order; a new store orders columns by name whatever the declaration: ColumnOrderTests.)
    static func recipes() -> NSManagedObjectModel {
        let imageRecipe = NSRelationshipDescription(name: "recipe", destination: nil, toMany: false)
        let recipeImage = NSRelationshipDescription(name: "image", destination: nil, toMany: false, deleteRule: .cascadeDeleteRule)
        inverse(imageRecipe, recipeImage)
        let ingredientRecipe = NSRelationshipDescription(name: "recipe", destination: nil, toMany: false)
        let ingredients = NSRelationshipDescription(name: "ingredients", destination: nil, toMany: true, deleteRule: .cascadeDeleteRule)
        inverse(ingredientRecipe, ingredients)
        let type = NSRelationshipDescription(name: "type", destination: nil, toMany: false)
        let recipesOfType = NSRelationshipDescription(name: "recipes", destination: nil, toMany: true)
        inverse(type, recipesOfType)
        let image = entity("Image", [attribute("image", .binaryData), imageRecipe])
        let ingredient = entity("Ingredient", [attribute("displayOrder", .integer16), attribute("amount", .string), attribute("name", .string), ingredientRecipe])
        let recipe = entity("Recipe", [attribute("prepTime", .string), attribute("name", .string), attribute("instructions", .string),
                                       attribute("overview", .string), attribute("thumbnailImage", .binaryData), recipeImage, type, ingredients])
        let recipeType = entity("RecipeType", [attribute("name", .string), recipesOfType])
        imageRecipe.destinationEntity = recipe
        recipeImage.destinationEntity = image
        ingredientRecipe.destinationEntity = recipe
        ingredients.destinationEntity = ingredient
        type.destinationEntity = recipeType
        recipesOfType.destinationEntity = recipe
        return NSManagedObjectModel(entities: [image, ingredient, recipe, recipeType])
    }

    /// Apple's CoreDataBooks: Book, exactly as the store's hashes record it (author and title required).
    static func coreDataBooks() -> NSManagedObjectModel {
        let author = attribute("author", .string)
        let title = attribute("title", .string)
        author.isOptional = false
        title.isOptional = false
        return NSManagedObjectModel(entities: [entity("Book", [attribute("copyright", .date), author, title])])
    }

    /// Kodeco SurfJournal: JournalEntry.
    static func surfJournal() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("JournalEntry", [attribute("rating", .integer16), attribute("date", .date), attribute("height", .string),
                                                                attribute("location", .string), attribute("period", .string), attribute("wind", .string)])])
    }

    /// wibosco CoreDataMigration example, versions 1–3.
    static func migrationExample(_ version: Int) -> NSManagedObjectModel {
        switch version {
        case 1:
            return NSManagedObjectModel(entities: [entity("Post", [attribute("date", .date), attribute("color", .string), attribute("content", .string), attribute("postID", .string)])])
        case 2:
            return NSManagedObjectModel(entities: [entity("Post", [attribute("date", .date), attribute("content", .string), attribute("hexColor", .string), attribute("postID", .string)])])
        default:
            let sections = NSRelationshipDescription(name: "sections", destination: nil, toMany: true, isOptional: false, deleteRule: .cascadeDeleteRule)
            let post = NSRelationshipDescription(name: "post", destination: nil, toMany: false)
            inverse(sections, post)
            let postEntity = entity("Post", [attribute("date", .date), attribute("hexColor", .string), attribute("postID", .string), sections])
            let section = entity("Section", [attribute("index", .integer16), attribute("body", .string), attribute("title", .string), post])
            sections.destinationEntity = section
            post.destinationEntity = postEntity
            return NSManagedObjectModel(entities: [postEntity, section])
        }
    }
}

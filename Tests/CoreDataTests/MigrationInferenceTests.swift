import CoreData
import Testing

/// `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`: what lightweight migration
/// uses, run through `NSMigrationManager`, and its refusal (134190) naming what cannot be inferred.
@Suite struct MigrationInferenceTests {
    /// The library model with Book.title renamed to `name` (renaming identifier "title"), pages widened to
    /// Integer 64, Draft removed and Publisher added.
    static func renamedLibrary(pagesType: NSAttributeDescription.AttributeType = .integer64) -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author")
        let book = NSEntityDescription(name: "Book")
        let publisher = NSEntityDescription(name: "Publisher")
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        let bookAuthor = NSRelationshipDescription(name: "author", destination: author, toMany: false)
        books.inverseRelationship = bookAuthor
        bookAuthor.inverseRelationship = books
        author.properties = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "age", type: .integer64, defaultValue: 18), books]
        let name = NSAttributeDescription(name: "name", type: .string, isOptional: false)
        name.renamingIdentifier = "title"
        book.properties = [name, NSAttributeDescription(name: "pages", type: pagesType), bookAuthor]
        publisher.properties = [NSAttributeDescription(name: "name", type: .string)]
        return NSManagedObjectModel(entities: [author, book, publisher])
    }

    @Test func infersRenamesAdditionsAndRemovals() throws {
        let source = libraryModel()
        let inferred = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: Self.renamedLibrary())
        let byName = inferred.entityMappingsByName
        #expect(Set(byName.keys) == ["AuthorToAuthor", "BookToBook", "Publisher", "Draft"])
        #expect(byName["Publisher"]?.mappingType == .addEntityMappingType)
        #expect(byName["Draft"]?.mappingType == .removeEntityMappingType)
        #expect(byName["BookToBook"]?.mappingType == .transformEntityMappingType)
        let book = try #require(byName["BookToBook"])
        #expect(book.attributeMappings?.first { $0.name == "name" }?.valueExpression?.description == "$source.title")
        #expect(book.relationshipMappings?.first { $0.name == "author" }?.valueExpression?.description
                == #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "author", $source.author)"#)
        #expect(book.sourceEntityVersionHash == source.entitiesByName["Book"]?.versionHash)
    }

    @Test func inferredMappingMigratesAndReopens() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("library.sqlite")
        let context = try MigrationManagerTests.open(source, type: .sqlite, model: libraryModel())
        try context.performAndWait {
            let ann = insert("Author", ["name": "Ann"], into: context)
            insert("Book", ["title": "Dune", "pages": 412, "author": ann], into: context)
            insert("Book", ["title": "Emma", "pages": 300, "author": ann], into: context)
            insert("Draft", ["text": "gone", "author": ann], into: context)
            try context.save()
        }
        let destinationModel = Self.renamedLibrary()
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: libraryModel(), destinationModel: destinationModel)
        let destination = folder.appendingPathComponent("library.xml")
        try NSMigrationManager(sourceModel: libraryModel(), destinationModel: destinationModel)
            .migrateStore(from: source, type: .sqlite, mapping: mapping, to: destination, type: .xml)
        let reopened = try MigrationManagerTests.open(destination, type: .xml, model: destinationModel)
        try reopened.performAndWait {
            let books = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            let rows = Set(books.map { "\($0.value(forKey: "name") ?? "") \($0.value(forKey: "pages") ?? "") \((($0.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name")) ?? "")" })
            #expect(rows == ["Dune 412 Ann", "Emma 300 Ann"])
            let author = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first
            #expect((author?.value(forKey: "books") as? Set<NSManagedObject>)?.count == 2)
            #expect(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Publisher")) == 0)
        }
    }

    /// Animal (`name`) ← Dog (`breed`, and `age` when `withAge`).
    static func animals(withAge: Bool) -> NSManagedObjectModel {
        let animal = NSEntityDescription(name: "Animal", properties: [NSAttributeDescription(name: "name", type: .string)])
        let dog = NSEntityDescription(name: "Dog", properties: [NSAttributeDescription(name: "breed", type: .string)]
                                      + (withAge ? [NSAttributeDescription(name: "age", type: .integer16)] : []))
        animal.subentities = [dog]
        return NSManagedObjectModel(entities: [animal, dog])
    }

    /// The migration manager makes a subentity's instances from the subentity's own mapping, so an inferred
    /// mapping maps the properties it inherits too (as `properties` lists them).
    @Test func inferredMappingOfASubentityCarriesItsInheritedAttributes() throws {
        let inferred = try NSMappingModel.inferredMappingModel(forSourceModel: Self.animals(withAge: false), destinationModel: Self.animals(withAge: true))
        let dogMapping = try #require(inferred.entityMappingsByName["DogToDog"])
        #expect(Set((dogMapping.attributeMappings ?? []).compactMap(\.name)) == ["name", "breed", "age"])
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("animals.sqlite")
        let context = try MigrationManagerTests.open(source, type: .sqlite, model: Self.animals(withAge: false))
        try context.performAndWait {
            insert("Dog", ["name": "Rex", "breed": "collie"], into: context)
            insert("Animal", ["name": "Tom"], into: context)
            try context.save()
        }
        let destination = folder.appendingPathComponent("animals-2.sqlite")
        try NSMigrationManager(sourceModel: Self.animals(withAge: false), destinationModel: Self.animals(withAge: true))
            .migrateStore(from: source, type: .sqlite, mapping: inferred, to: destination, type: .sqlite)
        let reopened = try MigrationManagerTests.open(destination, type: .sqlite, model: Self.animals(withAge: true))
        try reopened.performAndWait {
            let dogs = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Dog"))
            #expect(dogs.map { "\($0.value(forKey: "name") ?? "nil") \($0.value(forKey: "breed") ?? "nil")" } == ["Rex collie"])
            let animals = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            #expect(Set(animals.map { "\($0.value(forKey: "name") ?? "nil")" }) == ["Rex", "Tom"])
        }
    }

    @Test func refusesWhatCannotBeInferred() throws {
        let error = try #require(throws: NSError.self) {
            try NSMappingModel.inferredMappingModel(forSourceModel: libraryModel(), destinationModel: Self.renamedLibrary(pagesType: .string))
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSInferredMappingModelError)
        #expect(error.code == 134190)
        #expect(error.localizedDescription.contains("Book.pages"))
    }
}

/// Version hashes of models built in code: two builds of one model give one hash, so a mapping model finds
/// models made in code as it finds compiled ones.
@Suite struct MigrationCodeModelHashTests {
    @Test func codeModelsAndInferredMappingsAgreeOnHashes() {
        let a = libraryModel(), b = libraryModel()
        for name in ["Author", "Book", "Draft"] {
            #expect(a.entitiesByName[name]?.versionHash == b.entitiesByName[name]?.versionHash, "\(name)")
        }
        let inferred = try? NSMappingModel.inferredMappingModel(forSourceModel: libraryModel(), destinationModel: MigrationInferenceTests.renamedLibrary())
        #expect(inferred?.entityMappingsByName["BookToBook"]?.sourceEntityVersionHash == a.entitiesByName["Book"]?.versionHash)
    }
}

import Foundation
import Testing
@testable import CoreDataStoreKit
import StoreTestSupport

/// The 21 current-format models and the Xcode 3 ones in the fixtures load with the expected shape; a damaged
/// Xcode 3 archive gives an error naming it.
@Suite(.enabled(if: Fixtures.available, "fixtures folder not found"))
struct FixtureModelTests {
    struct Expected: CustomStringConvertible, Sendable {
        let package: String
        let entities: Int
        let attributes: Int
        let relationships: Int
        let fetchedProperties: Int
        var description: String { package }
    }

    static let current: [Expected] = [
        .init(package: "JohnEstropia__CoreStore__CoreStoreTests__Model.xcdatamodeld", entities: 2, attributes: 16, relationships: 4, fetchedProperties: 0),
        .init(package: "SyncDB__Sync__Tests__Sync__Models__151-many-to-many.xcdatamodeld", entities: 2, attributes: 4, relationships: 2, fetchedProperties: 0),
        .init(package: "SyncDB__Sync__Tests__Sync__Models__151-ordered-many-to-many.xcdatamodeld", entities: 2, attributes: 4, relationships: 2, fetchedProperties: 0),
        .init(package: "SyncDB__Sync__Tests__Sync__Models__Recursive.xcdatamodeld", entities: 2, attributes: 4, relationships: 4, fetchedProperties: 0),
        .init(package: "SyncDB__Sync__Tests__Sync__Models__Unique.xcdatamodeld", entities: 3, attributes: 3, relationships: 4, fetchedProperties: 0),
        .init(package: "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__SampleModel3.xcdatamodeld", entities: 1, attributes: 2, relationships: 0, fetchedProperties: 0),
        .init(package: "alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld", entities: 4, attributes: 12, relationships: 2, fetchedProperties: 0),
        .init(package: "altstoreio__AltStore__AltStoreCore__Model__AltStore.xcdatamodeld", entities: 18, attributes: 131, relationships: 36, fetchedProperties: 0),
        .init(package: "atomicbird__momcom__momcomTests__momcomTests.xcdatamodeld", entities: 4, attributes: 13, relationships: 2, fetchedProperties: 1),
        .init(package: "kodecocodes__cdt-materials__02-nsmanagedobject-subclasses__projects__final__BowTies__BowTies__BowTies.xcdatamodeld", entities: 1, attributes: 10, relationships: 0, fetchedProperties: 0),
        .init(package: "kodecocodes__cdt-materials__03-the-core-data-stack__projects__final__DogWalk__DogWalk__DogWalk.xcdatamodeld", entities: 2, attributes: 2, relationships: 2, fetchedProperties: 0),
        .init(package: "kodecocodes__cdt-materials__04-intermediate-fetching__projects__final__BubbleTeaFinder__BubbleTeaFinder__BubbleTeaFinder.xcdatamodeld", entities: 5, attributes: 16, relationships: 8, fetchedProperties: 0),
        .init(package: "kodecocodes__cdt-materials__06-versioning-and-migration__projects__final__UnCloudNotes__UnCloudNotesDataModel.xcdatamodeld", entities: 3, attributes: 9, relationships: 2, fetchedProperties: 0),
        .init(package: "kodecocodes__cdt-materials__08-measuring-and-boosting-performance__projects__final__EmployeeDirectory__EmployeeDirectory__EmployeeDirectory.xcdatamodeld", entities: 3, attributes: 14, relationships: 4, fetchedProperties: 0),
        .init(package: "kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__SurfJournalModel.xcdatamodeld", entities: 1, attributes: 6, relationships: 0, fetchedProperties: 0),
        .init(package: "kodecocodes__cdt-materials__10-NSPersistentCloudKitContainer__projects__final__DogDoodies__DogDoodies__Model__DogDoodies.xcdatamodeld", entities: 2, attributes: 6, relationships: 2, fetchedProperties: 0),
        .init(package: "magicalpanda__MagicalRecord__Tests__Fixtures__TestModel.xcdatamodeld", entities: 12, attributes: 29, relationships: 9, fetchedProperties: 0),
        .init(package: "mastodon__mastodon-ios__MastodonSDK__Sources__CoreDataStack__CoreData.xcdatamodeld", entities: 11, attributes: 107, relationships: 42, fetchedProperties: 0),
        .init(package: "rentzsch__mogenerator__test__MogenSwiftTest__MogenSwiftTest__MogenSwiftTest.xcdatamodeld", entities: 3, attributes: 4, relationships: 2, fetchedProperties: 0),
        .init(package: "rentzsch__mogenerator__test__test.xcdatamodel", entities: 9, attributes: 24, relationships: 4, fetchedProperties: 0),
        .init(package: "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-Example__CoreData__Model__CoreDataMigration_Example.xcdatamodeld", entities: 2, attributes: 7, relationships: 2, fetchedProperties: 0),
    ]

    static let legacy: [Expected] = [
        .init(package: "fruitsamples__AbstractTree__AbstractTree__AbstractTree_DataModel.xcdatamodel", entities: 1, attributes: 1, relationships: 2, fetchedProperties: 0),
        .init(package: "fruitsamples__CoreRecipes__Hands-On_Examples__Example_3_-_Using_Core_Data_with_a_Simple_Cocoa_View__CoreRecipesCocoaView-End__Models__CoreRecipes.xcdatamodel",
              entities: 3, attributes: 10, relationships: 4, fetchedProperties: 0),
        .init(package: "fruitsamples__DepartmentAndEmployees__MyDocument.xcdatamodel", entities: 2, attributes: 6, relationships: 4, fetchedProperties: 0),
        .init(package: "fruitsamples__FancyStickiesUsingCoreDataSync__FancyStickiesUsingCoreData.xcdatamodel", entities: 1, attributes: 10, relationships: 0, fetchedProperties: 0),
        .init(package: "fruitsamples__iClass__iClassV2_DataModel.xcdatamodel", entities: 9, attributes: 14, relationships: 8, fetchedProperties: 1),
        .init(package: "fruitsamples__iPhoneCoreDataRecipes__DesktopRecipes__Recipes.xcdatamodel", entities: 4, attributes: 10, relationships: 6, fetchedProperties: 0),
        .init(package: "fruitsamples__iPhoneCoreDataRecipes__Recipes.xcdatamodel", entities: 4, attributes: 10, relationships: 6, fetchedProperties: 0),
        .init(package: "gilpa__iphone_sqlite_test__CoreDataBooks.xcdatamodel", entities: 1, attributes: 4, relationships: 0, fetchedProperties: 0),
    ]

    /// An Xcode 3 archive whose property list is damaged (no reader, ours or Foundation's, can parse it).
    static let damagedLegacy = "fruitsamples__CoreRecipes__Sample_Applications__CoreRecipesApp__MainApplication__Models__CoreRecipes.xcdatamodel"

    @Test(arguments: current)
    func loadsWithExpectedCounts(_ expected: Expected) throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.model(expected.package))
        #expect(model.entities.count == expected.entities)
        let own = model.entities.flatMap { entity in entity.properties.filter { $0.entity === entity } }
        #expect(own.filter { $0 is NSAttributeDescription }.count == expected.attributes)
        #expect(own.filter { $0 is NSRelationshipDescription }.count == expected.relationships)
        #expect(own.filter { $0 is NSFetchedPropertyDescription }.count == expected.fetchedProperties)
        for relationship in own.compactMap({ $0 as? NSRelationshipDescription }) {
            #expect(relationship.destinationEntity != nil, "\(relationship.entity.name ?? "").\(relationship.name)")
        }
        #expect(NSManagedObjectModel(contentsOf: try Fixtures.model(expected.package)) != nil)
    }

    @Test(arguments: legacy)
    func xcode3ModelsLoad(_ expected: Expected) throws {
        try loadsWithExpectedCounts(expected)
    }

    @Test func aDamagedXcode3ArchiveIsNamed() throws {
        let url = try Fixtures.model(Self.damagedLegacy)
        let error = #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: url) }
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains(Self.damagedLegacy) == true)
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
    }

    /// Xcode 3's source model and the model Apple compiled from it (shipped in the sample's app) are the same.
    @Test func xcode3ModelEqualsItsCompiledModel() throws {
        let source = try NSManagedObjectModel.load(contentsOf: Fixtures.model("fruitsamples__AbstractTree__AbstractTree__AbstractTree_DataModel.xcdatamodel"))
        let compiled = try NSManagedObjectModel.load(contentsOf: Fixtures.apple("mom/fruitsamples__AbstractTree__AbstractTree__AbstractTree.app__Contents__Resources__AbstractTree_DataModel.mom"))
        #expect(ModelComparison.differences(compiled, source) == [])
    }

    @Test func xcode3ModelDetails() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.model("fruitsamples__iClass__iClassV2_DataModel.xcdatamodel"))
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.isAbstract && person.subentities.compactMap(\.name).sorted() == ["Student", "Teacher"])
        #expect(model.entitiesByName["Course"]?.attributesByName["overview"]?.defaultValue as? String == "TBD")
        let courses = try #require(model.entitiesByName["Teacher"]?.propertiesByName["courses"] as? NSFetchedPropertyDescription)
        #expect(courses.destinationEntityName == "TeacherProxy" && courses.fetchPredicate != nil)
        #expect(model.configurations.sorted() == ["private", "public"])
        #expect(model.entities(forConfigurationName: "public")?.compactMap(\.name).sorted() == ["Course", "IDGenerator", "StudentProxy", "TeacherProxy"])
        #expect(model.fetchRequestTemplate(forName: "generators")?.entityName == "IDGenerator")
        let students = try #require(model.entitiesByName["Course"]?.relationshipsByName["students"])
        #expect(students.isToMany && students.inverseRelationship?.name == "course" && students.deleteRule == .nullifyDeleteRule)
    }

    @Test func inheritanceConstraintsAndDefaults() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.model("alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld"))
        let car = try #require(model.entitiesByName["Car"])
        let sport = try #require(model.entitiesByName["SportCar"])
        let expensive = try #require(model.entitiesByName["ExpensiveSportCar"])
        #expect(sport.superentity === car)
        #expect(expensive.superentity === sport)
        #expect(expensive.attributesByName["numberPlate"] != nil)
        #expect(car.uniquenessConstraints.map { $0.map { "\($0)" } } == [["numberPlate"]])
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.uniquenessConstraints.map { $0.map { "\($0)" } } == [["firstName", "lastName"]])
        #expect(expensive.attributesByName["isLimitedEdition"]?.defaultValue as? Bool == false)
        #expect(car.attributesByName["currentDrivingSpeed"]?.defaultValue as? Int64 == 0)
        #expect(car.attributesByName["currentDrivingSpeed"]?.isTransient == true)
        #expect(car.attributesByName["numberPlate"]?.isOptional == false)
        #expect(car.attributesByName["color"]?.valueTransformerName == "ColorTransformer")
        #expect(person.attributesByName["id"]?.preservesValueInHistoryOnDeletion == true)
        let owner = try #require(car.relationshipsByName["owner"])
        #expect(owner.inverseRelationship === person.relationshipsByName["cars"])
        #expect(owner.isToMany == false && person.relationshipsByName["cars"]?.isToMany == true)
        #expect(model.versionIdentifiers == ["1"])
    }

    @Test func fetchIndexesInANonCurrentVersion() throws {
        let url = try Fixtures.model("alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld/SampleModel2.xcdatamodel")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let car = try #require(model.entitiesByName["Car"])
        let index = try #require(car.indexes.first { $0.name == "byMakerAndNumberPlate" })
        #expect(index.elements.map(\.propertyName) == ["maker", "numberPlate"])
        #expect(index.elements.allSatisfy { $0.isAscending && $0.collationType == .binary })
    }

    @Test func everythingInTheMomcomModel() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.model("atomicbird__momcom__momcomTests__momcomTests.xcdatamodeld"))
        let entity = try #require(model.entitiesByName["Entity"])
        #expect(entity.superentity?.name == "AbstractEntity")
        #expect(model.entitiesByName["AbstractEntity"]?.isAbstract == true)
        #expect(entity.managedObjectClassName == "EntityClass")
        #expect(entity.renamingIdentifier == "myRenamingIdentifier")
        #expect(entity.versionHashModifier == "myVersionHashModifier")
        #expect(entity.userInfo?["someKey"] as? String == "randomValue")
        #expect(entity.compoundIndexes.map { $0.map { "\($0)" } } == [["booleanAttribute", "dateAttribute"], ["decimalAttribute", "doubleAttribute"]])
        let date = try #require(entity.attributesByName["dateAttribute"])
        #expect(date.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 388411200))
        #expect(date.validationPredicateFormats.count == 2)
        let int16 = try #require(entity.attributesByName["int16Attribute"])
        #expect(int16.validationPredicateFormats == ["SELF >= -3", "SELF <= 9"])
        #expect(int16.validationPredicates.count == 2 && int16.validationWarnings.count == 2)
        #expect(fetchedPredicateParses(entity))
        #expect(int16.defaultValue as? Int16 == 0)
        #expect(entity.attributesByName["decimalAttribute"]?.defaultValue as? Decimal == Decimal(0))
        #expect(entity.attributesByName["binaryAttribute"]?.userInfo?["binaryFoo"] as? String == "YES")
        #expect(entity.attributesByName["transformableAttribute"]?.valueTransformerName == "myValueTransformer")
        let others = try #require(entity.relationshipsByName["otherEntities"])
        #expect(others.minCount == 1 && others.maxCount == 9 && others.isToMany)
        let fetched = try #require(entity.propertiesByName["yesBooleans"] as? NSFetchedPropertyDescription)
        #expect(fetched.destinationEntityName == "Entity")
        #expect(fetched.fetchPredicateFormat == "booleanAttribute = YES")
        #expect(Set(model.fetchRequestTemplatesByName.keys) == ["FetchRequestDictionaries", "FetchRequestObjectIDs", "FetchRequestObjects"])
        let dictionaries = try #require(model.fetchRequestTemplate(forName: "FetchRequestDictionaries"))
        #expect(dictionaries.resultType == .dictionaryResultType && dictionaries.returnsDistinctResults)
        #expect(dictionaries.entity === entity)
        let objects = try #require(model.fetchRequestTemplate(forName: "FetchRequestObjects"))
        #expect(objects.fetchLimit == 100 && objects.fetchBatchSize == 10)
        #expect(model.fetchRequestTemplatePredicateFormats["FetchRequestObjectIDs"] == "booleanAttribute == 1 AND floatAttribute > 5")
        #expect(model.configurations == ["UnrelatedConfiguration"])
        #expect(model.entities(forConfigurationName: "UnrelatedConfiguration")?.compactMap(\.name) == ["UnrelatedEntity"])
    }

    func fetchedPredicateParses(_ entity: NSEntityDescription) -> Bool {
        (entity.propertiesByName["yesBooleans"] as? NSFetchedPropertyDescription)?.fetchPredicate?.parsedExpression != nil
    }

    @Test func orderedManyToManyAndConfigurations() throws {
        let ordered = try NSManagedObjectModel.load(contentsOf: Fixtures.model("SyncDB__Sync__Tests__Sync__Models__151-ordered-many-to-many.xcdatamodeld"))
        let tags = try #require(ordered.entitiesByName["Note"]?.relationshipsByName["tags"])
        #expect(tags.isToMany && tags.isOrdered && tags.inverseRelationship?.isToMany == true && tags.inverseRelationship?.isOrdered == true)

        let store = try NSManagedObjectModel.load(contentsOf: Fixtures.model("JohnEstropia__CoreStore__CoreStoreTests__Model.xcdatamodeld"))
        #expect(store.configurations == ["Config1", "Config2"])
        #expect(store.entities(forConfigurationName: "Config2")?.compactMap(\.name) == ["TestEntity2"])
        #expect(store.entitiesByName["TestEntity1AAA"]?.managedObjectClassName == "TestEntity1")
        #expect(store.entitiesByName["TestEntity2"]?.relationshipsByName["testToManyOrdered"]?.isOrdered == true)
    }

    @Test func templatesAndAbstractParents() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.model("rentzsch__mogenerator__test__test.xcdatamodel"))
        #expect(model.fetchRequestTemplatesByName.count == 5)
        #expect(model.fetchRequestTemplate(forName: "byParent")?.entityName == "Child")
        #expect(model.fetchRequestTemplatePredicateFormats["byHumanName"] == "humanName == $humanName")
        let byName = try #require(model.fetchRequestFromTemplate(withName: "byHumanName", substitutionVariables: ["humanName": "Ada"]))
        #expect(byName.entityName == "Human")
        #expect(byName.predicate?.canonicalFormat == NSPredicate(format: "humanName == %@", "Ada").canonicalFormat)
        #expect(model.fetchRequestTemplate(forName: "byHumanName")?.predicate?.canonicalFormat.contains("$humanName") == true)
        #expect(model.fetchRequestFromTemplate(withName: "nope", substitutionVariables: [:]) == nil)
        #expect(model.entitiesByName["Child"]?.superentity?.name == "Human")
        #expect(model.entitiesByName["Human"]?.subentities.count == 3)

        let magical = try NSManagedObjectModel.load(contentsOf: Fixtures.model("magicalpanda__MagicalRecord__Tests__Fixtures__TestModel.xcdatamodeld"))
        #expect(magical.entitiesByName["AbstractRelatedEntity"]?.isAbstract == true)
        #expect(magical.entitiesByName["ConcreteRelatedEntity"]?.superentity?.name == "AbstractRelatedEntity")
        let plain = try #require(magical.entitiesByName["SingleEntityWithNoRelationships"])
        #expect(plain.attributesByName["nullTestAttribute"]?.defaultValue as? Int64 == 100)
        #expect(magical.entitiesByName["SingleEntityRelatedToMappedEntityWithSecondaryMappings"]?.attributesByName["notImportedAttribute"]?.defaultValue as? Bool == true)
        #expect(plain.attributesByName["floatTestAttribute"]?.defaultValue as? Float == 0)
        #expect(plain.attributesByName["notInJsonAttribute"]?.defaultValue as? String == "Set From Core Data Model Editor")
    }

    @Test func manyOrderedRelationshipsAndConstraintsInAltStore() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.model("altstoreio__AltStore__AltStoreCore__Model__AltStore.xcdatamodeld"))
        let source = try #require(model.entitiesByName["Source"])
        let apps = try #require(source.relationshipsByName["apps"])
        #expect(apps.isOrdered && apps.deleteRule == .cascadeDeleteRule && apps.destinationEntity?.name == "StoreApp")
        #expect(model.entities.contains { !$0.uniquenessConstraints.isEmpty })
    }
}

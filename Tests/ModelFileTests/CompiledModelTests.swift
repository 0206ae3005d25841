import Foundation
import Testing
@testable import CoreDataStoreKit
import StoreTestSupport

/// Apple's compiled models (`.momd`, `.mom`, a store's `Z_MODELCACHE`) load, and equal their sources.
@Suite(.enabled(if: Fixtures.available, "fixtures folder not found"))
struct CompiledModelTests {
    static let pairs: [(momd: String, source: String, versions: [String])] = [
        ("mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd",
         "models/alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld",
         ["SampleModel", "SampleModel2", "SampleModel3"]),
        ("mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3.momd",
         "models/alemar11__CoreDataPlus__Tests__Resources__SampleModel3__SampleModel3.xcdatamodeld",
         ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"]),
    ]

    @Test func momdEqualsItsSource() throws {
        for pair in Self.pairs {
            let compiled = try NSManagedObjectModel.load(contentsOf: Fixtures.apple(pair.momd))
            let source = try NSManagedObjectModel.load(contentsOf: Fixtures.apple(pair.source))
            #expect(!compiled.entities.isEmpty)
            #expect(ModelComparison.differences(compiled, source) == [], "\(pair.momd)")
            for version in pair.versions {
                let mom = try NSManagedObjectModel.load(contentsOf: Fixtures.apple(pair.momd + "/" + version + ".mom"))
                let xml = try NSManagedObjectModel.load(contentsOf: Fixtures.apple(pair.source + "/" + version + ".xcdatamodel"))
                #expect(ModelComparison.differences(mom, xml) == [], "\(version)")
            }
        }
    }

    @Test func storeModelCacheEqualsTheSourceVersion() throws {
        let cache = try NSManagedObjectModel.load(contentsOf: Fixtures.apple(
            "mom/from_Z_MODELCACHE/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite.Z_MODELCACHE.mom"))
        let source = try NSManagedObjectModel.load(contentsOf: Fixtures.model(
            "alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        #expect(ModelComparison.differences(cache, source) == [])
        let url = try Fixtures.apple("mom/from_Z_MODELCACHE/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite.Z_MODELCACHE.mom")
        let fromData = try ModelFileLoader.model(fromCompiledData: Data(contentsOf: url), source: url)
        #expect(ModelComparison.differences(fromData, source) == [])
    }

    @Test(arguments: [
        "SampleModel2__Fixtures__SampleModel2_V1", "SampleModel2__Fixtures__SampleModel2_V2", "SampleModel3__Fixtures__SampleModel3_V1",
        "SampleModel__Fixtures__SampleModel_V2",
    ])
    func everyModelCacheLoads(_ name: String) throws {
        let url = try Fixtures.apple("mom/from_Z_MODELCACHE/alemar11__CoreDataPlus__Tests__Resources__\(name).sqlite.Z_MODELCACHE.mom")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        #expect(!model.entities.isEmpty)
    }

    @Test func fetchedPropertiesDerivedAttributesAndValidationFromAnArchive() throws {
        let url = try Fixtures.apple("mom/from_Z_MODELCACHE/alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite.Z_MODELCACHE.mom")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        #expect(model.entitiesByName["GraphicNovel"]?.superentity?.name == "Book")
        #expect(model.entitiesByName["Author"]?.superentity?.name == "Writer")
        let age = model.entitiesByName["Author"]?.properties.first { $0.name == "age" }
        #expect(age?.entity?.name == "Writer", "an inherited property is listed, not redeclared: it stays its superentity's")
        let author = try #require(model.entitiesByName["Author"])
        let feedbacks = try #require(author.propertiesByName["feedbacks"] as? NSFetchedPropertyDescription)
        #expect(feedbacks.destinationEntityName == "Feedback")
        #expect(feedbacks.fetchPredicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        let derived = model.entities.flatMap(\.properties).compactMap { $0 as? NSDerivedAttributeDescription }
        #expect(derived.contains { $0.derivationExpressionFormat == "count(pages)" })
        let title = try #require(model.entitiesByName["Book"]?.attributesByName["title"])
        #expect(title.validationPredicateFormatWarnings == ["Title must have a length between 3 and 50 chars.", "Title must contain 'title'."])
    }

    @Test func oldestCompiledModel() throws {
        let url = try Fixtures.apple("mom/fruitsamples__AbstractTree__AbstractTree__AbstractTree.app__Contents__Resources__AbstractTree_DataModel.mom")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let node = try #require(model.entitiesByName["Node"])
        #expect(node.managedObjectClassName == "NSManagedObject")
        #expect(node.attributesByName["name"]?.defaultValue as? String == "untitled node")
        #expect(node.relationshipsByName["children"]?.inverseRelationship === node.relationshipsByName["parent"])
        #expect(node.relationshipsByName["children"]?.deleteRule == .cascadeDeleteRule)
    }
}

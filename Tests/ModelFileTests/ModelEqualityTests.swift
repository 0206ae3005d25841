import Foundation
import Testing
@testable import CoreDataStoreKit

/// Two loads of one model version are equal models (`isEqual`, `==`, `hash`, `firstIndex(of:)`), as apps that
/// pick their migration steps from separately loaded versions need (WordPress's iterative migrator); different
/// versions are not.
@Suite(.enabled(if: Fixtures.available, "fixtures folder not found"))
struct ModelEqualityTests {
    static let package = "kodecocodes__cdt-materials__06-versioning-and-migration__projects__final__UnCloudNotes__UnCloudNotesDataModel.xcdatamodeld"
    static let versions = ["UnCloudNotesDataModel", "UnCloudNotesDataModel v2", "UnCloudNotesDataModel v3", "UnCloudNotesDataModel v4"]

    private func load(_ version: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: Fixtures.model(Self.package).appendingPathComponent(version + ".xcdatamodel"))
    }

    @Test func twoLoadsOfOneVersionAreEqualAndOtherVersionsAreNot() throws {
        let first = try Self.versions.map(load)
        let second = try Self.versions.map(load)
        for (index, model) in second.enumerated() {
            #expect(model !== first[index])
            #expect(model.isEqual(first[index]) && model == first[index])
            #expect(model.hash == first[index].hash)
            #expect(first.firstIndex(of: model) == index)
        }
        #expect(!first[0].isEqual(first[1]))
        #expect(Set(first + second).count == Self.versions.count)
    }

    @Test func aChangeThatChangesAVersionHashMakesModelsDiffer() throws {
        let model = try load(Self.versions[0])
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        #expect(copy.isEqual(model))
        let entity = try #require(copy.entities.first)
        let extra = NSAttributeDescription()
        extra.name = "addedForTheTest"
        extra.attributeType = .stringAttributeType
        entity.properties.append(extra)
        #expect(!copy.isEqual(model))
        #expect(!model.isEqual("not a model"))
    }
}

import CoreDataStoreKit
import Foundation
import Testing

/// `NSEntityDescription.properties` lists the inherited properties first, then the entity's own, as Apple's does
/// (its getter returns the values of `propertiesByName`); setting it sets only the entity's own, and model files
/// keep each property on the entity that declares it.
@Suite struct InheritedPropertiesTests {
    /// Vehicle (`wheels`, `maker`) ← Car (`seats`) ← SportsCar (`topSpeed`), built in code.
    static func vehicles() -> (model: NSManagedObjectModel, vehicle: NSEntityDescription, car: NSEntityDescription, sports: NSEntityDescription) {
        let vehicle = NSEntityDescription(name: "Vehicle", properties: [
            NSAttributeDescription(name: "wheels", type: .integer16), NSAttributeDescription(name: "maker", type: .string),
        ])
        let car = NSEntityDescription(name: "Car", properties: [NSAttributeDescription(name: "seats", type: .integer16)])
        let sports = NSEntityDescription(name: "SportsCar", properties: [NSAttributeDescription(name: "topSpeed", type: .double)])
        vehicle.subentities = [car]
        car.subentities = [sports]
        return (NSManagedObjectModel(entities: [vehicle, car, sports]), vehicle, car, sports)
    }

    /// The names of the properties `entity` declares itself, by the public API: those whose `entity` it is.
    static func ownNames(_ entity: NSEntityDescription?) -> [String] {
        (entity?.properties ?? []).filter { $0.entity === entity }.map(\.name)
    }

    @Test func aSubentityListsItsAncestorsPropertiesThenItsOwn() throws {
        let (_, vehicle, car, sports) = Self.vehicles()
        #expect(vehicle.properties.map(\.name) == ["wheels", "maker"], "an entity without superentity is unchanged")
        #expect(car.properties.map(\.name) == ["wheels", "maker", "seats"])
        #expect(sports.properties.map(\.name) == ["wheels", "maker", "seats", "topSpeed"])
        #expect(Set(sports.properties.map(\.name)) == Set(sports.propertiesByName.keys))
        // Inherited properties are the ancestor's own descriptions (not copies, unlike Apple's).
        #expect(sports.properties.first === vehicle.properties.first)
        #expect(sports.properties.map { $0.entity?.name ?? "" } == ["Vehicle", "Vehicle", "Car", "SportsCar"])
    }

    @Test func aSubentityThatDeclaresNothingListsWhatItInherits() {
        let (_, vehicle, _, _) = Self.vehicles()
        let trailer = NSEntityDescription(name: "Trailer")
        vehicle.subentities.append(trailer)
        #expect(trailer.properties.map(\.name) == ["wheels", "maker"])
        #expect(Self.ownNames(trailer).isEmpty)
        #expect(vehicle.properties.count == 2)
    }

    @Test func settingASubentitysPropertiesSetsOnlyItsOwn() {
        let (_, vehicle, car, sports) = Self.vehicles()
        car.properties = [NSAttributeDescription(name: "doors", type: .integer16), NSAttributeDescription(name: "electric", type: .boolean)]
        #expect(car.properties.map(\.name) == ["wheels", "maker", "doors", "electric"])
        #expect(Self.ownNames(car) == ["doors", "electric"])
        #expect(vehicle.properties.map(\.name) == ["wheels", "maker"], "the superentity keeps its properties")
        #expect(vehicle.properties.allSatisfy { $0.entity === vehicle })
        #expect(sports.properties.map(\.name) == ["wheels", "maker", "doors", "electric", "topSpeed"])
        #expect(car.propertiesByName["seats"] == nil)
        #expect(sports.attributesByName["electric"]?.attributeType == .booleanAttributeType)
    }

    /// The usual editing idioms read `properties` and write it back: the inherited ones stay their ancestor's.
    @Test func appendingToOrFilteringASubentitysPropertiesKeepsTheInheritedOnesWhereTheyAre() {
        let (_, vehicle, car, _) = Self.vehicles()
        car.properties.append(NSAttributeDescription(name: "doors", type: .integer16))
        #expect(car.properties.map(\.name) == ["wheels", "maker", "seats", "doors"])
        #expect(Self.ownNames(car) == ["seats", "doors"])
        #expect(vehicle.properties.allSatisfy { $0.entity === vehicle })
        car.properties.removeAll { $0.name == "seats" }
        #expect(car.properties.map(\.name) == ["wheels", "maker", "doors"])
        #expect(Self.ownNames(car) == ["doors"])
    }

    /// ExpensiveSportCar ← SportCar (which declares nothing) ← Car, in an Xcode model and as Apple's `momc`
    /// compiled it.
    static let carProperties = ["color", "currentDrivingSpeed", "maker", "markedForDeletionAsOf", "model", "numberPlate", "owner"]

    static func expectSampleModelInheritance(_ model: NSManagedObjectModel, _ source: String) throws {
        let expensive = try #require(model.entitiesByName["ExpensiveSportCar"], "\(source)")
        let sport = try #require(model.entitiesByName["SportCar"])
        let car = try #require(model.entitiesByName["Car"])
        #expect(car.properties.map(\.name) == carProperties, "\(source)")
        #expect(sport.properties.map(\.name) == carProperties, "\(source)")
        #expect(expensive.properties.map(\.name) == carProperties + ["isLimitedEdition"], "\(source)")
        #expect(Self.ownNames(expensive) == ["isLimitedEdition"], "\(source)")
        #expect(Self.ownNames(sport).isEmpty, "\(source)")
        #expect(expensive.properties.filter { $0.entity !== expensive }.allSatisfy { $0.entity === car }, "\(source)")
    }

    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func anXcodeModelsSubentitiesListInheritedProperties() throws {
        let url = try Fixtures.model("alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld/SampleModel.xcdatamodel")
        try Self.expectSampleModelInheritance(try NSManagedObjectModel.load(contentsOf: url), "SampleModel.xcdatamodel")
    }

    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func aCompiledModelsSubentitiesListInheritedProperties() throws {
        let url = try Fixtures.apple("mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd/SampleModel.mom")
        let model = try #require(NSManagedObjectModel(contentsOf: url))
        try Self.expectSampleModelInheritance(model, "SampleModel.mom")
    }

    /// A model written as a `.mom` and read back keeps each property on the entity that declares it (Apple's
    /// archives record only an entity's own properties), with the same version hashes.
    @Test func aWrittenModelKeepsEachPropertyOnItsDeclaringEntity() throws {
        let (model, _, _, _) = Self.vehicles()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("InheritedPropertiesTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Vehicles.mom")
        try MOMArchiveWriter.archive(model, file: file).write(to: file)
        let back = try #require(NSManagedObjectModel(contentsOf: file))
        #expect(Self.ownNames(back.entitiesByName["Vehicle"]) == ["maker", "wheels"])
        #expect(Self.ownNames(back.entitiesByName["Car"]) == ["seats"])
        #expect(Self.ownNames(back.entitiesByName["SportsCar"]) == ["topSpeed"])
        #expect(back.entitiesByName["SportsCar"]?.properties.map(\.name) == ["maker", "wheels", "seats", "topSpeed"])
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    /// A copied model's subentities inherit the copied superentity's properties, and a relationship whose inverse
    /// is inherited by its destination keeps that inverse.
    @Test func aCopiedModelKeepsInheritanceAndInheritedInverses() throws {
        let owner = NSEntityDescription(name: "Owner")
        let vehicle = NSEntityDescription(name: "Vehicle")
        let car = NSEntityDescription(name: "Car", properties: [NSAttributeDescription(name: "seats", type: .integer16)])
        let vehicles = NSRelationshipDescription(name: "vehicles", destination: vehicle, toMany: true)
        let vehicleOwner = NSRelationshipDescription(name: "owner", destination: owner, toMany: false)
        vehicles.inverseRelationship = vehicleOwner
        vehicleOwner.inverseRelationship = vehicles
        let cars = NSRelationshipDescription(name: "cars", destination: car, toMany: true)
        cars.inverseRelationship = vehicleOwner  // Car inherits `owner`
        owner.properties = [vehicles, cars]
        vehicle.properties = [vehicleOwner]
        vehicle.subentities = [car]
        let model = NSManagedObjectModel(entities: [car, owner, vehicle])
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        let copiedCar = try #require(copy.entitiesByName["Car"])
        #expect(copiedCar.properties.map(\.name) == ["owner", "seats"])
        #expect(copiedCar.properties.first?.entity === copy.entitiesByName["Vehicle"])
        let copiedCars = try #require(copy.entitiesByName["Owner"]?.relationshipsByName["cars"])
        #expect(copiedCars.inverseRelationship === copy.entitiesByName["Vehicle"]?.relationshipsByName["owner"])
        #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName)
    }
}

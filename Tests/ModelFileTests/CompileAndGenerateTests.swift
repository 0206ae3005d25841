import Foundation
import Testing
@testable import CoreDataStoreKit

/// `ModelCompiler` output loads back equal to its source; `EntityClassGenerator` writes the expected Swift.
@Suite(.enabled(if: Fixtures.available, "fixtures folder not found"))
struct CompileAndGenerateTests {
    @Test(arguments: [
        "atomicbird__momcom__momcomTests__momcomTests.xcdatamodeld",
        "altstoreio__AltStore__AltStoreCore__Model__AltStore.xcdatamodeld",
        "rentzsch__mogenerator__test__test.xcdatamodel",
        "mastodon__mastodon-ios__MastodonSDK__Sources__CoreDataStack__CoreData.xcdatamodeld",
    ])
    func compiledModelEqualsSource(_ package: String) throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Fixtures.model(package)
        let output = folder.appendingPathComponent("Model.momd")
        try ModelCompiler.compile(source, to: output)
        let compiled = try NSManagedObjectModel.load(contentsOf: output)
        let original = try NSManagedObjectModel.load(contentsOf: source)
        #expect(ModelComparison.differences(compiled, original) == [])
        let info = try #require(try PropertyListSerialization.propertyList(
            from: Data(contentsOf: output.appendingPathComponent("VersionInfo.plist")), options: [], format: nil) as? [String: Any])
        let current = try ModelFileLoader.currentVersionFile(of: source).deletingPathExtension().lastPathComponent
        #expect(info["NSManagedObjectModel_CurrentVersionName"] as? String == current)
        let hashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        #expect(hashes[current] == original.entityVersionHashesByName)
        // Compiling again over the old output replaces it.
        try ModelCompiler.compile(source, to: output)
        #expect(NSManagedObjectModel(contentsOf: output) != nil)
    }

    @Test func compilingACompiledModelIsRefused() throws {
        let url = try Fixtures.apple("mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd")
        let error = #expect(throws: NSError.self) { try ModelCompiler.compile(url, to: URL(fileURLWithPath: "/tmp/unused.momd")) }
        #expect(error?.code == NSFeatureUnsupportedError)
    }

    @Test func generatedClasses() throws {
        let url = try Fixtures.model("alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let generator = EntityClassGenerator(model: model, hints: try ModelFileLoader.codegenHints(contentsOf: url), sourceName: "SampleModel")
        let files = generator.files()
        #expect(files.map(\.name) == ["Car.swift", "ExpensiveSportCar.swift", "Person.swift", "SportCar.swift"])
        let car = try #require(files.first { $0.name == "Car.swift" }?.contents)
        #expect(car.contains("public class Car: NSManagedObject {"))
        #expect(car.contains("@nonobjc public class func fetchRequest() -> NSFetchRequest<Car> {"))
        #expect(car.contains("NSFetchRequest<Car>(entityName: \"Car\")"))
        #expect(car.contains("@Managed public var owner: Person?"))
        #expect(car.contains("@Managed public var maker: String?"))
        #expect(car.contains("@Managed public var currentDrivingSpeed: Int64\n"))
        #expect(car.contains("@Managed public var color: Color?"))
        let sport = try #require(files.first { $0.name == "SportCar.swift" }?.contents)
        #expect(sport.contains("public class SportCar: Car {"))
        let expensive = try #require(files.first { $0.name == "ExpensiveSportCar.swift" }?.contents)
        #expect(expensive.contains("public final class ExpensiveSportCar: SportCar {"))
        #expect(expensive.contains("@Managed public var isLimitedEdition: Bool\n"))
        let person = try #require(files.first { $0.name == "Person.swift" }?.contents)
        #expect(person.contains("@Managed public var cars: Set<Car>"))
        #expect(person.contains("public func addToCars(_ value: Car) { cars.insert(value) }"))
        #expect(person.contains("@Managed public var id: UUID?"))
    }

    @Test func generatedOrderedRelationshipsAndOptionalScalars() throws {
        let store = try NSManagedObjectModel.load(contentsOf: Fixtures.model("JohnEstropia__CoreStore__CoreStoreTests__Model.xcdatamodeld"))
        let hints = try ModelFileLoader.codegenHints(contentsOf: Fixtures.model("JohnEstropia__CoreStore__CoreStoreTests__Model.xcdatamodeld"))
        var generator = EntityClassGenerator(model: store, hints: hints, sourceName: "Model")
        generator.accessLevel = "internal"
        let second = try #require(generator.files().first { $0.name == "TestEntity2.swift" }?.contents)
        #expect(second.contains("final class TestEntity2: NSManagedObject {"))
        #expect(!second.contains("public"))
        #expect(second.contains("@Managed var testToManyOrdered: NSOrderedSet"))
        #expect(second.contains("@Managed var testNumber: Int32?"), "usesScalarValueType=NO gives an optional")
        #expect(second.contains("func addToTestToManyOrdered(_ value: TestEntity2) {"))
    }
}

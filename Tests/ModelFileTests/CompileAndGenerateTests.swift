import Foundation
import Testing
import CoreDataModelTools
@testable import CoreDataStoreKit
import StoreTestSupport

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

    /// Compiling the fixtures' sources gives what Xcode's momc gave for them: the same VersionInfo.plist values,
    /// and per version a `.mom` in Apple's form that reads back equal to Apple's, with Apple's property flags.
    @Test(arguments: [
        ("alemar11__CoreDataPlus__Tests__Resources__SampleModel3__SampleModel3.xcdatamodeld",
         "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3.momd"),
        ("alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld",
         "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd"),
    ])
    func compiledPackageIsWhatMomcWrote(_ source: String, _ compiled: String) throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("Model.momd")
        try ModelCompiler.compile(try Fixtures.model(source), to: output)
        let apple = try Fixtures.apple("mom/" + compiled)
        func info(_ momd: URL) throws -> [String: Any] {
            try #require(try PropertyListSerialization.propertyList(
                from: Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist")), options: [], format: nil) as? [String: Any])
        }
        let ours = try info(output)
        let theirs = try info(apple)
        for key in theirs.keys.sorted() {
            #expect((ours[key] as? NSObject)?.isEqual(theirs[key]) == true, "\(key)")
        }
        let appleVersions = try FileManager.default.contentsOfDirectory(atPath: apple.path).filter { $0.hasSuffix(".mom") }.sorted()
        let ourVersions = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".mom") }.sorted()
        #expect(ourVersions == appleVersions)
        for name in appleVersions {
            let ourData = try Data(contentsOf: output.appendingPathComponent(name))
            let appleData = try Data(contentsOf: apple.appendingPathComponent(name))
            #expect(ourData.starts(with: Array("bplist00".utf8)))
            let ourModel = try ModelFileLoader.model(fromCompiledData: ourData, source: output)
            let appleModel = try ModelFileLoader.model(fromCompiledData: appleData, source: apple)
            #expect(ModelComparison.differences(ourModel, appleModel) == [], "\(name)")
            #expect(try MOMArchiveWriterFormTests.propertyFlags(ourData) == MOMArchiveWriterFormTests.propertyFlags(appleData), "\(name)")
            // Every key both archives use refers to objects of the same classes (NSMutableDictionary, NSSet, …).
            let ourClasses = try MOMArchiveWriterFormTests.valueClasses(ourData)
            let appleClasses = try MOMArchiveWriterFormTests.valueClasses(appleData)
            for key in Set(ourClasses.keys).intersection(appleClasses.keys).sorted() {
                #expect(ourClasses[key] == appleClasses[key], "\(name): \(key)")
            }
            #expect(Set(appleClasses.keys).subtracting(ourClasses.keys).sorted() == [], "\(name): keys momc writes and we do not")
        }
    }

    /// A `.momd` written by earlier versions of `coredata compile` (this package's own format) still loads.
    @Test func formerCompiledFormatStillLoads() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = folder.appendingPathComponent("Old.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        let title: [String: Any] = ["kind": "attribute", "name": "title", "optional": true, "transient": false, "indexed": false,
                                    "type": 700, "externalStorage": false, "preserveAfterDeletion": false, "cloudEncryption": false,
                                    "default": "untitled"]
        let root: [String: Any] = [
            "format": "swift-coredata.compiled-model", "schemaVersion": 1, "versionIdentifiers": [String](), "configurations": [[String: Any]](),
            "fetchRequestTemplates": [[String: Any]](),
            "entities": [["name": "Note", "className": "NSManagedObject", "abstract": false, "uniquenessConstraints": [[String]](),
                          "compoundIndexes": [[String]](), "indexes": [[String: Any]](), "properties": [title]] as [String: Any]],
        ]
        try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0).write(to: momd.appendingPathComponent("Old.mom"))
        try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "Old"], format: .binary, options: 0)
            .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        let model = try NSManagedObjectModel.load(contentsOf: momd)
        #expect(model.entitiesByName["Note"]?.attributesByName["title"]?.defaultValue as? String == "untitled")
    }

    /// A template with a SUBQUERY compiles, and the compiled model holds it.
    @Test func aTemplateWithASubqueryIsCompiled() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Busy.xcdatamodel")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="children" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag"/>
                </entity>
                <fetchRequest name="Busy" entity="Tag" predicateString="SUBQUERY(children, $c, $c.name == 'a').@count &gt; 0"/>
            </model>
            """.utf8).write(to: source.appendingPathComponent("contents"))
        let output = folder.appendingPathComponent("Busy.momd")
        try ModelCompiler.compile(source, to: output)
        let compiled = try NSManagedObjectModel.load(contentsOf: output)
        #expect(compiled.fetchRequestTemplatesByName["Busy"]?.predicate?.predicateFormat == "SUBQUERY(children, $c, $c.name == \"a\").@count > 0")
    }

    /// A model with composite attributes (nested, with defaults) compiles: the compiled model has the same
    /// composites, elements in order, and the same version hashes as its source.
    @Test func aModelWithCompositesCompilesWithItsElements() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Places.xcdatamodel")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="place" optional="YES" attributeType="Composite" composite="Place"/>
                </entity>
                <composite name="Place">
                    <attribute name="street" optional="YES" attributeType="String"/>
                    <attribute name="city" optional="YES" attributeType="String" defaultValueString="Paris"/>
                    <attribute name="position" optional="YES" attributeType="Composite" composite="Position"/>
                </composite>
                <composite name="Position">
                    <attribute name="latitude" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="longitude" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                </composite>
            </model>
            """.utf8).write(to: source.appendingPathComponent("contents"))
        let output = folder.appendingPathComponent("Places.momd")
        try ModelCompiler.compile(source, to: output)
        let original = try NSManagedObjectModel.load(contentsOf: source)
        let compiled = try NSManagedObjectModel.load(contentsOf: output)
        let place = try #require(compiled.entitiesByName["Tag"]?.attributesByName["place"] as? NSCompositeAttributeDescription)
        #expect(place.elements.map(\.name) == ["street", "city", "position"], "the elements in their order")
        #expect(place.element(named: "city")?.defaultValue as? String == "Paris")
        let position = try #require(place.element(named: "position") as? NSCompositeAttributeDescription, "a nested composite")
        #expect(position.elements.map(\.name) == ["latitude", "longitude"])
        #expect(position.elements.allSatisfy { $0.attributeType == .doubleAttributeType })
        #expect(compiled.entityVersionHashesByName == original.entityVersionHashesByName)
        #expect(place.versionHash == original.entitiesByName["Tag"]?.attributesByName["place"]?.versionHash)
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
        // A subclass declares only its entity's own properties: the inherited ones are its superclass's.
        #expect(!expensive.contains("maker") && !expensive.contains("owner"), "\(expensive)")
        #expect(!sport.contains("@Managed"), "\(sport)")
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

import CoreData
import StoreTestSupport
import Foundation
import Testing

/// A store saved with one version of a versioned model package (`.xcdatamodeld`, `.momd`) is matched to that
/// version by the hashes it records, as Apple finds a migration's source model; lightweight migration to the
/// package's current version uses it as the old model.
@Suite struct ModelVersionSelectionTests {
    static let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                              NSInferMappingModelAutomaticallyOption: true]
    static let sampleSource = "apple/models/alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld"
    static let sampleCompiled = "apple/mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd"
    static let sample3Source = "apple/models/alemar11__CoreDataPlus__Tests__Resources__SampleModel3__SampleModel3.xcdatamodeld"
    static let sample3Compiled = "apple/mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3.momd"
    static let sampleV1 = "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite"
    static let sampleV2 = "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite"
    static let sample3V1 = "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite"

    static func fixture(_ path: String) throws -> URL {
        let url = try #require(Fixtures.root).appendingPathComponent(path)
        if !FileManager.default.fileExists(atPath: url.path) { try Test.cancel("\(path) is not in this fixture set") }
        return url
    }

    /// A copy of a package in a new temporary folder, with `current` made its current version.
    static func copy(_ path: String, current: String) throws -> URL {
        let source = try fixture(path)
        let target = TemporaryStore.directory().appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: target)
        if source.pathExtension == "momd" {
            let info = target.appendingPathComponent("VersionInfo.plist")
            var plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as? [String: Any])
            plist["NSManagedObjectModel_CurrentVersionName"] = current
            try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: info)
        } else {
            let marker: [String: Any] = ["_XCCurrentVersionName": current + ".xcdatamodel"]
            try PropertyListSerialization.data(fromPropertyList: marker, format: .xml, options: 0)
                .write(to: target.appendingPathComponent(".xccurrentversion"))
        }
        return target
    }

    @Test(arguments: [sampleSource, sampleCompiled])
    func versionsOfAPackageAreListedWithTheirModels(_ path: String) throws {
        let versions = try NSManagedObjectModel.versions(ofModelAt: try Self.fixture(path))
        #expect(versions.map(\.name) == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(versions.filter(\.isCurrent).map(\.name) == ["SampleModel"])
        #expect(versions[1].model.entitiesByName["LuxuryCar"] != nil)
        #expect(versions[0].model.entitiesByName["LuxuryCar"] == nil)
        #expect(versions.allSatisfy { $0.model.versionedPackageURL?.lastPathComponent == (path as NSString).lastPathComponent })
    }

    @Test(arguments: [(sampleV1, sampleSource, "SampleModel"), (sampleV2, sampleSource, "SampleModel2"),
                      (sampleV1, sampleCompiled, "SampleModel"), (sampleV2, sampleCompiled, "SampleModel2"),
                      (sample3V1, sample3Source, "SampleModel3"), (sample3V1, sample3Compiled, "SampleModel3")])
    func theVersionWhoseHashesTheStoreRecordsIsPicked(_ store: String, _ package: String, _ expected: String) throws {
        let url = try Fixtures.copy(store)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        let version = try NSManagedObjectModel.version(ofModelAt: try Self.fixture(package), matchingStoreMetadata: metadata)
        #expect(version?.name == expected)
        #expect(try NSManagedObjectModel.version(ofModelAt: try Self.fixture(package), matchingStoreMetadata: [:]) == nil)
    }

    /// SampleModel_V1 was saved with version SampleModel; with SampleModel2 made current (LuxuryCar renamed from
    /// ExpensiveSportCar, Car.color and Person.id removed) it migrates, keeping every object.
    @Test(arguments: [sampleSource, sampleCompiled])
    func anOlderVersionsStoreMigratesToTheCurrentVersion(_ path: String) throws {
        let package = try Self.copy(path, current: "SampleModel2")
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let url = try Fixtures.copy(Self.sampleV1)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try NSManagedObjectModel.load(contentsOf: package)
        #expect(model.entitiesByName["LuxuryCar"] != nil)

        let refused = thrownError { _ = try Stack(model: model, url: url) }
        #expect(refused?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(refused?.localizedDescription.contains("saved with version SampleModel of") == true, "\(refused?.localizedDescription ?? "")")

        let stack = try Stack(model: model, url: url, options: Self.migrate)
        #expect(try stack.count("Car") == 125)
        #expect(try stack.count("SportCar") == 10)
        #expect(try stack.count("LuxuryCar") == 5)
        #expect(try stack.count("Person") == 20)
        let makers = try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "LuxuryCar")
            request.sortDescriptors = [NSSortDescriptor(key: "maker", ascending: true)]
            return try stack.context.fetch(request).compactMap { $0.value(forKey: "maker") as? String }
        }
        #expect(makers.contains("McLaren") && makers.contains("Maserati"), "\(makers)")
        try stack.close()

        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata)?.name == "SampleModel2")
    }

    /// Every version is read to find the old one: a damaged version fails the open with 259, the store untouched.
    @Test func aDamagedVersionFailsTheMigrationAndLeavesTheStore() throws {
        let package = try Self.copy(Self.sampleSource, current: "SampleModel2")
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        try Data("<model><entity".utf8).write(to: package.appendingPathComponent("SampleModel3.xcdatamodel/contents"))
        let url = try Fixtures.copy(Self.sampleV1)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Data(contentsOf: url)
        let model = try NSManagedObjectModel.load(contentsOf: package)
        #expect(thrownError { _ = try Stack(model: model, url: url, options: Self.migrate) }?.code == NSFileReadCorruptFileError)
        #expect(try Data(contentsOf: url) == before)
    }

    /// Two sibling subentities with a `title` each share a table through `ZTITLE` and `ZTITLE1`: only the old
    /// model says which column was whose. From a package the migration finds it; from a lone model file it
    /// refuses (134190) rather than guess.
    @Test func numberedColumnsOfSiblingsMigrateWithTheOldVersion() throws {
        let package = TemporaryStore.directory().appendingPathComponent("Siblings.xcdatamodeld")
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        try Self.writeVersion("V1", note: false, in: package)
        try Self.writeVersion("V2", note: true, in: package)
        let marker: [String: Any] = ["_XCCurrentVersionName": "V1.xcdatamodel"]
        try PropertyListSerialization.data(fromPropertyList: marker, format: .xml, options: 0).write(to: package.appendingPathComponent(".xccurrentversion"))

        let url = TemporaryStore.url()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let v1 = try NSManagedObjectModel.load(contentsOf: package)
        let stack = try Stack(model: v1, url: url)
        try stack.context.performAndWait {
            let a = NSEntityDescription.insertNewObject(forEntityName: "A", into: stack.context)
            a.setValue("alpha", forKey: "title")
            let b = NSEntityDescription.insertNewObject(forEntityName: "B", into: stack.context)
            b.setValue("beta", forKey: "title")
            try stack.context.save()
        }
        try stack.close()

        let lone = try NSManagedObjectModel.load(contentsOf: package.appendingPathComponent("V2.xcdatamodel"))
        let before = try Data(contentsOf: url)
        #expect(thrownError { _ = try Stack(model: lone, url: url, options: Self.migrate) }?.code == NSInferredMappingModelError)
        #expect(try Data(contentsOf: url) == before)

        try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "V2.xcdatamodel"], format: .xml, options: 0)
            .write(to: package.appendingPathComponent(".xccurrentversion"))
        let v2 = try NSManagedObjectModel.load(contentsOf: package)
        let migrated = try Stack(model: v2, url: url, options: Self.migrate)
        let titles = try migrated.context.performAndWait {
            try ["A", "B"].map { name in
                try migrated.context.fetch(NSFetchRequest<NSManagedObject>(entityName: name)).map { $0.value(forKey: "title") as? String }
            }
        }
        #expect(titles == [["alpha"], ["beta"]])
        try migrated.close()
    }

    /// An `.xcdatamodel` version: abstract Item with subentities A and B, each with its own `title`; V2 adds
    /// `note` to Item.
    static func writeVersion(_ name: String, note: Bool, in package: URL) throws {
        let folder = package.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
                <entity name="A" parentEntity="Item" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                </entity>
                <entity name="B" parentEntity="Item" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Item" isAbstract="YES" syncable="YES">
                    <attribute name="created" optional="YES" attributeType="Date"/>\(note ? "\n            <attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>" : "")
                </entity>
            </model>
            """
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
    }
}

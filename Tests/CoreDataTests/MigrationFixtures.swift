import CoreData
import Testing

/// The shared Apple-written fixtures that the migration tests read: `$COREDATA_FIXTURES`, else
/// `../shared/fixtures` beside the package. Each fixture is copied into a temporary folder first, so nothing
/// is ever written into the shared folder; a missing fixture cancels (skips) the test.
enum MigrationFixtures {
    static let root: URL? = {
        if let path = ProcessInfo.processInfo.environment["COREDATA_FIXTURES"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return package.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    /// `apple/<relative>`, or a cancelled test when it is absent.
    static func apple(_ relative: String) throws -> URL {
        let url = (root ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("apple/" + relative)
        if !FileManager.default.fileExists(atPath: url.path) { try Test.cancel("fixture \(relative) is not in this fixture set") }
        return url
    }

    /// The fixture `xml/<flattened>__xcmapping.xml` as an `.xcmappingmodel` package named `name` in `folder`.
    static func mappingPackage(_ flattened: String, named name: String, in folder: URL) throws -> URL {
        let source = try apple("xml/" + flattened + ".xcmappingmodel__xcmapping.xml")
        let package = folder.appendingPathComponent(name + ".xcmappingmodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: package.appendingPathComponent("xcmapping.xml"))
        return package
    }

    /// A copy of the fixture `relative` in `folder`, named `name`.
    static func copy(_ relative: String, to folder: URL, named name: String) throws -> URL {
        let target = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: try apple(relative), to: target)
        return target
    }

    static let sampleModel = "mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd"
    static let sampleMapping = "alemar11__CoreDataPlus__Tests__Resources__SampleModel__MappingModels__V2toV3"
    static let sampleCompiledMapping = "mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__V2toV3.cdm"
    static let sampleStoreV2 = "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite"

    /// Version `version` (`SampleModel2`, `SampleModel3`) of the SampleModel fixture, compiled by Apple.
    static func sampleModelVersion(_ version: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: try apple(sampleModel + "/" + version + ".mom"))
    }
}

/// A fresh temporary folder for one test.
func makeMigrationFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("migration-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

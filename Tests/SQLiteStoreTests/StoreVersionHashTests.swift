import CoreData
import CoreDataSQLite
import Foundation
import Testing

/// The version hashes, digest and checksum in every Apple-written fixture store's `Z_METADATA` equal what
/// our loaded model computes: the model the store caches (`Z_MODELCACHE`), and the model file it was made
/// with where the fixtures have it.
@Suite(.enabled(if: Fixtures.available, "fixtures not found (set COREDATA_FIXTURES or put them in ../shared/fixtures)"))
struct StoreVersionHashTests {
    /// A fixture store and the model file (under `apple/models`) whose hashes it records, if the fixtures have one.
    struct Case: CustomStringConvertible, Sendable {
        let store: String
        let modelFile: String?
        /// Properties (`Entity.property`) the model file gained after the store was written; they are removed
        /// before comparing, and the file as it is must not match.
        var addedLater: [String] = []
        var description: String { store.components(separatedBy: "__").last ?? store }
    }

    static let migration = "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-Example__CoreData__Model__CoreDataMigration_Example.xcdatamodeld/"
    static let sampleModel = "alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld/"
    static let cases: [Case] = [
        .init(store: "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite", modelFile: nil),
        .init(store: "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite", modelFile: nil),
        .init(store: "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite",
              modelFile: "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"),
        .init(store: "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite",
              modelFile: sampleModel + "SampleModel.xcdatamodel"),
        .init(store: "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite",
              modelFile: sampleModel + "SampleModel2.xcdatamodel"),
        .init(store: "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite",
              modelFile: "fruitsamples__iPhoneCoreDataRecipes__Recipes.xcdatamodel"),
        // The repository's owner added `contents` to the model (and a ZCONTENTS column by hand) after Apple's
        // sample wrote the store.
        .init(store: "gilpa__iphone_sqlite_test__CoreDataBooks.sqlite", modelFile: "gilpa__iphone_sqlite_test__CoreDataBooks.xcdatamodel",
              addedLater: ["Book.contents"]),
        .init(store: "kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__CoreDataSeed__SurfJournalModel.sqlite",
              modelFile: "kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__SurfJournalModel.xcdatamodeld/SurfJournalModel.xcdatamodel"),
        .init(store: "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_1.sqlite",
              modelFile: migration + "CoreDataMigration_Example.xcdatamodel"),
        .init(store: "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_2.sqlite",
              modelFile: migration + "CoreDataMigration_Example 2.xcdatamodel"),
        .init(store: "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_3.sqlite",
              modelFile: migration + "CoreDataMigration_Example 3.xcdatamodel"),
    ]

    /// Checks that `model` computes every hash, the digest and the checksum `metadata` records.
    static func expectSameHashes(_ model: NSManagedObjectModel, _ metadata: [String: Any], _ label: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]
        #expect(!stored.isEmpty, "\(label): no hashes", sourceLocation: sourceLocation)
        #expect(Set(model.entityVersionHashesByName.keys) == Set(stored.keys), "\(label)", sourceLocation: sourceLocation)
        for (name, hash) in stored {
            #expect(model.entitiesByName[name]?.versionHash == hash, "\(label): \(name)", sourceLocation: sourceLocation)
        }
        if let digest = metadata["NSStoreModelVersionHashesDigest"] as? String {
            #expect(VersionHashing.digest(of: model.entityVersionHashesByName) == digest, "\(label): digest", sourceLocation: sourceLocation)
        }
        if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
            #expect(model.versionChecksum == checksum, "\(label): checksum", sourceLocation: sourceLocation)
        }
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(label)", sourceLocation: sourceLocation)
    }

    @Test("a store's recorded hashes are those of its cached model and its model file", arguments: cases)
    func storeHashesAreOurs(_ fixture: Case) throws {
        let url = try Fixtures.copy(fixture.store)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let metadata = try SQLiteStore.metadataForStore(at: url, options: nil)
        var checked = 0
        if let cached = try SQLiteStore.cachedModel(at: url) {
            Self.expectSameHashes(cached, metadata, "cached model")
            checked += 1
        }
        if let file = fixture.modelFile {
            let model = try NSManagedObjectModel.load(contentsOf: try #require(Fixtures.root).appendingPathComponent("apple/models/" + file))
            if !fixture.addedLater.isEmpty {
                #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
                for path in fixture.addedLater {
                    let parts = path.split(separator: ".").map(String.init)
                    let entity = try #require(model.entitiesByName[parts[0]])
                    #expect(entity.properties.contains { $0.name == parts[1] })
                    entity.properties.removeAll { $0.name == parts[1] }
                }
            }
            Self.expectSameHashes(model, metadata, file)
            checked += 1
        }
        #expect(checked > 0, "nothing to compare \(fixture) with")
    }

    @Test("a store opens with the model file whose hashes it records", arguments: cases.filter { $0.modelFile != nil && $0.addedLater.isEmpty })
    func storeOpensWithItsModelFile(_ fixture: Case) throws {
        let url = try Fixtures.copy(fixture.store)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let file = try #require(fixture.modelFile)
        let model = try NSManagedObjectModel.load(contentsOf: try #require(Fixtures.root).appendingPathComponent("apple/models/" + file))
        let stack = try Stack(model: model, url: url, options: [NSReadOnlyPersistentStoreOption: true])
        for entity in model.entities where entity.superentity == nil {
            #expect(try stack.count(entity.name ?? "") >= 0)
        }
        try stack.close()
    }

    /// Issue 17: SampleModel_V2 records the hashes of version SampleModel2 of its `.momd` and opens with it;
    /// the other versions are refused with 134100, as Apple refuses them.
    @Test func sampleModelV2OpensWithTheVersionWhoseHashesItRecords() throws {
        let store = "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite"
        let momd = try #require(Fixtures.root).appendingPathComponent("apple/mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd")
        if !FileManager.default.fileExists(atPath: momd.path) { try Test.cancel("SampleModel.momd is not in this fixture set") }
        for version in ["SampleModel", "SampleModel2", "SampleModel3"] {
            let url = try Fixtures.copy(store)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try NSManagedObjectModel.load(contentsOf: momd.appendingPathComponent(version + ".mom"))
            if version == "SampleModel2" {
                let stack = try Stack(model: model, url: url)
                #expect(try stack.count("Car") == 125)
                #expect(try stack.count("Person") == 20)
                try stack.close()
            } else {
                #expect(thrownError { _ = try Stack(model: model, url: url) }?.code == NSPersistentStoreIncompatibleVersionHashError, "\(version)")
            }
        }
    }

    /// `mergedModel(from:forStoreMetadata:)` finds, among every version of the models in the bundles, the one
    /// each store was saved with (as apps find the source model of a migration), where `mergedModel(from:)` gives
    /// only the current version; `init(byMerging:forStoreMetadata:)` chooses the same from loaded versions, and
    /// both give nil for metadata no version matches.
    @Test func mergedModelForStoreMetadataFindsTheVersionAStoreWasSavedWith() throws {
        let momd = try #require(Fixtures.root).appendingPathComponent("apple/mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd")
        if !FileManager.default.fileExists(atPath: momd.path) { try Test.cancel("SampleModel.momd is not in this fixture set") }
        let bundleFolder = FileManager.default.temporaryDirectory.appendingPathComponent("merged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bundleFolder) }
        try FileManager.default.createDirectory(at: bundleFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: momd, to: bundleFolder.appendingPathComponent("SampleModel.momd"))
        let bundle = try #require(Bundle(path: bundleFolder.path))
        let versions = try ["SampleModel", "SampleModel2", "SampleModel3"].map {
            try NSManagedObjectModel.load(contentsOf: momd.appendingPathComponent($0 + ".mom"))
        }
        for (store, version) in [("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite", 0),
                                 ("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite", 1)] {
            let url = try Fixtures.copy(store)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata), "\(store)")
            #expect(merged.entityVersionHashesByName == versions[version].entityVersionHashesByName, "\(store)")
            #expect(merged.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
            let chosen = try #require(NSManagedObjectModel(byMerging: versions, forStoreMetadata: metadata))
            #expect(chosen.entityVersionHashesByName == versions[version].entityVersionHashesByName)
            let stack = try Stack(model: merged, url: url)
            #expect(try stack.count("Car") == 125)
            try stack.close()
        }
        let current = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(current.entityVersionHashesByName == versions[0].entityVersionHashesByName)
        let unknown: [String: Any] = [NSStoreModelVersionHashesKey: ["Car": Data([1, 2, 3])]]
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: unknown) == nil)
        #expect(NSManagedObjectModel(byMerging: versions, forStoreMetadata: unknown) == nil)
    }

    @Test("every fixture store is in the table")
    func everyStoreIsChecked() throws {
        let folder = try #require(Fixtures.sqlite(""))
        let stores = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sqlite") }
        #expect(Set(stores) == Set(Self.cases.map(\.store)))
    }
}

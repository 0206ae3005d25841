import Foundation
import Testing
import CoreDataModelTools
@testable import CoreDataStoreKit

/// Our version hashes are Apple's: every entity hash and model checksum in the fixtures' compiled models
/// (`.momd` `VersionInfo.plist`) equals what the loaded `.mom`, and the `.xcdatamodel` it was compiled from,
/// compute.
@Suite(.enabled(if: Fixtures.available, "fixtures folder not found"))
struct VersionHashTests {
    /// One version of a compiled model package, with the source package it was compiled from.
    struct Version: CustomStringConvertible, Sendable {
        let momd: String
        let source: String
        let version: String
        var description: String { "\(momd.components(separatedBy: "__").last ?? momd)/\(version)" }
    }

    static let sampleModel = ("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd",
                              "alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld")
    static let sampleModel3 = ("alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3.momd",
                               "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__SampleModel3.xcdatamodeld")
    static let versions: [Version] =
        ["SampleModel", "SampleModel2", "SampleModel3"].map { Version(momd: sampleModel.0, source: sampleModel.1, version: $0) }
        + ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"].map { Version(momd: sampleModel3.0, source: sampleModel3.1, version: $0) }

    /// A `.momd`'s `VersionInfo.plist`.
    static func versionInfo(_ momd: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist"))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    @Test("every entity hash and checksum of a compiled model version is ours", arguments: versions)
    func compiledModelHashesAreApples(_ version: Version) throws {
        let momd = try Fixtures.apple("mom/" + version.momd)
        let info = try Self.versionInfo(momd)
        let allHashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        let expected = try #require(allHashes[version.version], "no hashes for \(version.version)")
        let compiled = try NSManagedObjectModel.load(contentsOf: momd.appendingPathComponent(version.version + ".mom"))
        let source = try NSManagedObjectModel.load(contentsOf: try Fixtures.model(version.source)
            .appendingPathComponent(version.version + ".xcdatamodel"))
        for model in [compiled, source] {
            #expect(Set(model.entityVersionHashesByName.keys) == Set(expected.keys))
            for (name, hash) in expected {
                #expect(model.entitiesByName[name]?.versionHash == hash, "\(version) \(name)")
            }
            if let checksums = info["NSManagedObjectModel_VersionChecksums"] as? [String: String] {
                #expect(model.versionChecksum == checksums[version.version])
            }
        }
    }

    @Test("compiling a fixture's source package writes the version hashes and checksums Apple's compiler wrote",
          arguments: [sampleModel, sampleModel3].map { [$0.0, $0.1] })
    func compiledVersionInfoIsApples(_ pair: [String]) throws {
        let apple = try Self.versionInfo(try Fixtures.apple("mom/" + pair[0]))
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("Model.momd")
        try ModelCompiler.compile(try Fixtures.model(pair[1]), to: output)
        let ours = try Self.versionInfo(output)
        #expect(ours["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]]
                == apple["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        let checksums = try #require(ours["NSManagedObjectModel_VersionChecksums"] as? [String: String])
        if let appleChecksums = apple["NSManagedObjectModel_VersionChecksums"] as? [String: String] {
            #expect(checksums == appleChecksums)
        }
        #expect(Set(checksums.keys) == Set((apple["NSManagedObjectModel_VersionHashes"] as? [String: Any] ?? [:]).keys))
    }

    @Test("the fixtures hold the hashes this suite checks")
    func fixtureCounts() throws {
        var entities = 0, checksums = 0
        for momd in Set(Self.versions.map(\.momd)) {
            let info = try Self.versionInfo(try Fixtures.apple("mom/" + momd))
            entities += (info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])?.values.map(\.count).reduce(0, +) ?? 0
            checksums += (info["NSManagedObjectModel_VersionChecksums"] as? [String: String])?.count ?? 0
        }
        #expect(entities == 18)
        #expect(checksums == 3)
        #expect(Self.versions.count == 6)
    }
}

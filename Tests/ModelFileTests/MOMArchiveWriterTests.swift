import Foundation
import Testing
@testable import CoreDataStoreKit
import StoreTestSupport

/// The `.mom` writer's round trip: every fixture model (Apple's `.mom` files, the models cached in stores, the
/// source packages) written in Apple's compiled form and read back has no differences and the same version
/// hashes, predicates and derived attributes included. No fixture is refused.
@Suite(.enabled(if: Fixtures.available, "fixtures not found"))
struct MOMArchiveWriterTests {
    /// Every `.mom` in the fixtures (`.momd` versions, Z_MODELCACHE extracts, the AbstractTree app's model).
    static let compiledFiles: [String] = {
        guard let root = Fixtures.root?.appendingPathComponent("apple/mom") else { return [] }
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { $0.hasSuffix(".mom") }.sorted()
    }()

    /// Every model package and loose `.xcdatamodel` in the fixtures.
    static let sourceModels: [String] = {
        guard let root = Fixtures.root?.appendingPathComponent("apple/models") else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
    }()

    static func roundTrip(_ url: URL) throws {
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let data = try MOMArchiveWriter.archive(model, file: url)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let back = try ModelFileLoader.model(fromCompiledData: data, source: url)
        #expect(ModelComparison.differences(model, back) == [], "\(url.lastPathComponent)")
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName, "\(url.lastPathComponent)")
        #expect(back.versionChecksum == model.versionChecksum)
        // Written a second time, the model reads back the same again.
        let again = try ModelFileLoader.model(fromCompiledData: try MOMArchiveWriter.archive(back, file: url), source: url)
        #expect(ModelComparison.differences(back, again) == [], "\(url.lastPathComponent)")
    }

    @Test(arguments: compiledFiles)
    func everyFixtureMomRoundTrips(_ path: String) throws {
        try Self.roundTrip(try Fixtures.apple("mom/" + path))
    }

    /// A source model written and read back equals it (predicates compared as parsed: a source spells
    /// `a = 1 AND b`, a `.mom` `(a == 1) AND (b)`), with its hashes.
    @Test(arguments: sourceModels)
    func everyFixtureSourceModelRoundTrips(_ name: String) throws {
        let url = try Fixtures.model(name)
        guard let model = try? NSManagedObjectModel.load(contentsOf: url) else { return }  // the damaged Xcode 3 archive
        let back = try ModelFileLoader.model(fromCompiledData: try MOMArchiveWriter.archive(model, file: url), source: url)
        #expect(ModelComparison.differences(model, back) == [], "\(name)")
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    /// Every version of every fixture package, not only the current one.
    @Test(arguments: sourceModels)
    func everyVersionOfEveryFixturePackageRoundTrips(_ name: String) throws {
        let url = try Fixtures.model(name)
        guard let versions = try? NSManagedObjectModel.versions(ofModelAt: url) else { return }
        for version in versions {
            let model = version.model
            let back = try ModelFileLoader.model(fromCompiledData: try MOMArchiveWriter.archive(model, file: version.url), source: version.url)
            #expect(ModelComparison.differences(model, back) == [], "\(name) \(version.name)")
            #expect(back.entityVersionHashesByName == model.entityVersionHashesByName, "\(name) \(version.name)")
        }
    }

    /// All fifteen fixture `.mom` files are written (none refused), so a change in coverage shows.
    @Test func noFixtureIsRefused() throws {
        var refused: [String] = []
        for path in Self.compiledFiles {
            let url = try Fixtures.apple("mom/" + path)
            if (try? MOMArchiveWriter.archive(try NSManagedObjectModel.load(contentsOf: url), file: url)) == nil { refused.append(url.lastPathComponent) }
        }
        #expect(refused == [])
        #expect(Self.compiledFiles.count == 15)
    }
}

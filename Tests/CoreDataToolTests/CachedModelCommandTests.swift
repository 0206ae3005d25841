import CoreData
import CoreDataModelCommands
import Foundation
import Testing
@testable import coredata

/// `coredata inspect` and `coredata query` read a SQLite store without `--model`, using the model Apple
/// cached in it, and leave the file as it was.
@Suite(.enabled(if: ToolFixtures.root != nil, "fixtures not found (set COREDATA_FIXTURES or put them in ../shared/fixtures)"))
struct CachedModelCommandTests {
    static let migrationExample3 = "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_3.sqlite"
    static let recipes = "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite"

    /// A copy of a fixture store (and its `-wal`/`-shm`) in a new temporary folder.
    func copy(_ name: String) throws -> URL {
        let source = try #require(ToolFixtures.root).appendingPathComponent("apple/sqlite/\(name)")
        if !FileManager.default.fileExists(atPath: source.path) { try Test.cancel("fixture \(name) is not in this fixture set") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tool-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent("store.sqlite")
        try FileManager.default.copyItem(at: source, to: target)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
        return target
    }

    @Test func inspectWithoutModelUsesTheCachedModel() throws {
        let url = try copy(Self.migrationExample3)
        let before = try Data(contentsOf: url)
        let lines = try InspectCommand.report([url.path])
        #expect(lines.contains("model:  cached in the store"), "\(lines)")
        #expect(lines.contains("type:   SQLite"))
        #expect(lines.contains { $0.hasPrefix("  Post ") && $0.hasSuffix(" 12") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  Section ") && $0.hasSuffix(" 14") }, "\(lines)")
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["store.sqlite"])
    }

    @Test func queryWithoutModelUsesTheCachedModel() throws {
        let url = try copy(Self.migrationExample3)
        let lines = try QueryCommand.report([url.path, "--entity", "Section", "--limit", "3"]).split(separator: "\n")
        #expect(lines.count == 6, "a header, a rule, three objects and the count: \(lines)")
        #expect(lines.last == "(3 Section objects; model: cached in the store)")
    }

    @Test func storeWithoutACachedModelNeedsModel() throws {
        let url = try copy(Self.recipes)
        do {
            _ = try InspectCommand.report([url.path])
            Issue.record("inspect succeeded without a model")
        } catch let error as UsageError {
            #expect(error.description.contains("has no cached model"), "\(error.description)")
            #expect(error.description.contains("--model"))
        }
    }

    @Test func otherStoreTypesNeedModel() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tool-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("store.xml")
        try Data("<?xml version=\"1.0\"?><database/>".utf8).write(to: url)
        #expect(throws: UsageError.self) { _ = try InspectCommand.report([url.path]) }
    }
}

enum ToolFixtures {
    /// `$COREDATA_FIXTURES`, or `../shared/fixtures` beside the package.
    static let root: URL? = {
        if let path = ProcessInfo.processInfo.environment["COREDATA_FIXTURES"] { return URL(fileURLWithPath: path) }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = package.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()
}

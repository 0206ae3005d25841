import CoreData
import Foundation
import Testing

/// `coredata validate <store>`: the report (integrity, model version hashes, objects per entity, each
/// problem) and its exit status, on stores of every type; objects that break the model's rules, a model that
/// does not match and a damaged SQLite file are reported; the store's folder is left as it was. Through the
/// tool's process.
@Suite struct ValidateCommandTests {
    static let integrity = [NSSQLiteStoreType: "ok (PRAGMA integrity_check)", NSXMLStoreType: "ok (the XML reads whole)",
                            NSBinaryStoreType: "ok (the file reads whole, its checksums match)"]

    /// `ToolLibrary`'s model with rules a store's values can break without changing any version hash: at most
    /// 100 pages, titles of at most 10 characters.
    static func strictModel() throws -> URL {
        let url = try ToolLibrary.folder().appendingPathComponent("Strict.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let contents = ToolLibrary.contents
            .replacingOccurrences(of: #"<attribute name="pages" optional="YES" attributeType="Integer 32"/>"#,
                                  with: #"<attribute name="pages" optional="YES" attributeType="Integer 32" maxValueString="100"/>"#)
            .replacingOccurrences(of: #"<attribute name="title" optional="YES" attributeType="String"/>"#,
                                  with: #"<attribute name="title" optional="YES" attributeType="String" maxValueString="10"/>"#)
        try Data(contents.utf8).write(to: url.appendingPathComponent("contents"))
        return url
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func aValidStoreGetsAReportAndExitZero(_ type: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: model)
        let before = try ToolLibrary.snapshot(of: store.deletingLastPathComponent())
        let run = try ToolProcess.run(["validate", store.path, "--model", model.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.isEmpty)
        #expect(run.output == """
            store:      \(store.path)
            type:       \(type)
            integrity:  \(Self.integrity[type] ?? "")
            model:      \(model.path)
            hashes:     match (2 entities)
            objects:
              Author                       1
              Book                         2
              3 objects, 0 invalid
            result:     valid

            """, "\(run.output)")
        #expect(try ToolLibrary.snapshot(of: store.deletingLastPathComponent()) == before, "nothing beside the store is created or changed")
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func objectsThatBreakTheRulesAreListed(_ type: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: model)
        let strict = try Self.strictModel()
        let run = try ToolProcess.run(["validate", store.path, "--model", strict.path])
        #expect(run.status == 1)
        #expect(run.error == "coredata validate: 2 problems found in \(store.path) (listed on standard output).\n", "\(run.error)")
        let lines = run.output.components(separatedBy: "\n")
        #expect(lines.contains("  Book                         2  (1 invalid)"), "\(run.output)")
        #expect(lines.contains("  3 objects, 1 invalid"))
        let problems = lines.filter { $0.hasPrefix("  Book/p") }
        #expect(problems.count == 2, "\(run.output)")
        #expect(problems.contains { $0.contains("pages") && $0.hasSuffix("(1610)") }, "too large: \(problems)")
        #expect(problems.contains { $0.contains("title") && $0.hasSuffix("(1660)") }, "too long: \(problems)")
        #expect(lines.contains("result:     2 problems"))
    }

    @Test func aModelThatDoesNotMatchIsReported() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSXMLStoreType, named: "library.xml", model: model)
        let other = try ToolModelVersions.writePackage().appendingPathComponent("V2.xcdatamodel")
        let run = try ToolProcess.run(["validate", store.path, "--model", other.path])
        #expect(run.status == 1)
        #expect(run.output.contains("hashes:     3 differ: Author, Book, Writer\nobjects:    not validated: the model does not match the store\n"), "\(run.output)")
        #expect(run.output.contains("  model: entity Writer's version hash differs from the store's\n"))
        #expect(run.error == "coredata validate: 3 problems found in \(store.path) (listed on standard output).\n", "\(run.error)")
        // Of a package, the version that matches is used.
        let package = try ToolProcess.run(["validate", store.path, "--model", other.deletingLastPathComponent().path])
        #expect(package.status == 0, "\(package.output)")
        #expect(package.output.contains("(version V1, not the current one)"))
    }

    /// A SQLite file with a page overwritten: `PRAGMA integrity_check` finds it, the report says so, exit 1.
    @Test func aDamagedSQLiteFileIsReported() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        var bytes = try Data(contentsOf: store)
        let pageSize = 4096
        try #require(bytes.count >= 3 * pageSize)
        let start = bytes.count - 2 * pageSize
        bytes.replaceSubrange(start..<start + pageSize, with: Data(repeating: 0xDE, count: pageSize))
        try bytes.write(to: store)
        let run = try ToolProcess.run(["validate", store.path])
        #expect(run.status == 1)
        #expect(run.output.contains("integrity:  1 problem (PRAGMA integrity_check)\n") || run.output.contains("problems (PRAGMA integrity_check)\n"), "\(run.output)")
        #expect(run.output.contains("\n  integrity: "), "\(run.output)")
        #expect(try Data(contentsOf: store) == bytes, "the file is not repaired or changed")
    }

    /// Apple's stores, read with the model they cache: every object is valid.
    @Test(arguments: ["alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
                      "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_3.sqlite"])
    func applesStoresAreValid(_ name: String) throws {
        guard ToolFixtures.root != nil else { try Test.cancel("fixtures not found") }
        let store = try CachedModelCommandTests().copy(name)
        let run = try ToolProcess.run(["validate", store.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.hasSuffix("result:     valid\n"))
    }
}

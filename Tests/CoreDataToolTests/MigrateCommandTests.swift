import CoreData
import Foundation
import Testing

/// `coredata migrate <store> --model <new>`: a store of every file type migrated in place to the package's
/// current version with the inferred mapping, progress lines from `NSMigrationManager.migrationProgress`,
/// the store reopening with the new model and its values; a store that already matches is left alone; a
/// change lightweight migration cannot infer is refused and the file is left as it was. Through the process.
@Suite struct MigrateCommandTests {
    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func migratesInPlaceWithProgress(_ type: String) throws {
        let package = try ToolModelVersions.writePackage()
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: package.appendingPathComponent("V1.xcdatamodel"))
        let run = try ToolProcess.run(["migrate", store.path, "--model", package.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.isEmpty)
        let from = "\(package.path) (version V1)", to = "\(package.path) (version V2)"
        #expect(run.output == """
            progress: 0% migrating from \(from) to \(to)
            progress: 0% Book: creating objects
            progress: 17% Book: 2 objects created
            progress: 17% Writer: creating objects
            progress: 33% Writer: 1 object created
            progress: 50% Book: relationships set
            progress: 67% Writer: relationships set
            progress: 83% Book: checked
            progress: 100% Writer: checked
            progress: 100% done
            migrated \(store.path) from \(from) to \(to)

            """, "\(run.output)")
        let books = try ToolProcess.run(["query", store.path, "--model", package.path, "--entity", "Book", "--sort", "name",
                                         "--fields", "name,subtitle,small,author.name", "--format", "csv"])
        #expect(books.status == 0, "\(books.error)")
        let rows = books.output.components(separatedBy: "\r\n").dropFirst().map { $0.split(separator: ",", maxSplits: 2).dropFirst(2).first.map(String.init) ?? "" }
        #expect(rows == ["\"Dune, \"\"the\"\" novel\nline2\",,-3,Le Guin", "Empty,,,Le Guin", ""], "\(books.output)")
        let writers = try ToolProcess.run(["query", store.path, "--model", package.path, "--entity", "Writer", "--count"])
        #expect(writers.output == "1\n", "\(writers.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.deletingLastPathComponent().path).allSatisfy { !$0.hasSuffix(".tmp") })

        let again = try ToolProcess.run(["migrate", store.path, "--model", package.path])
        #expect(again.status == 0)
        #expect(again.output == "\(store.path) already matches \(to); nothing to migrate\n")
    }

    /// Without a matching version in the package, `--from` names the old model; a SQLite store's cached model
    /// serves when neither is given.
    @Test func theOldModelComesFromFromOrTheStoresCache() throws {
        let package = try ToolModelVersions.writePackage()
        let v2 = package.appendingPathComponent("V2.xcdatamodel")
        let old = try ToolLibrary.writeModel()
        let xml = try ToolLibrary.writeStore(type: NSXMLStoreType, named: "library.xml", model: old)
        let missing = try ToolProcess.run(["migrate", xml.path, "--model", v2.path])
        #expect(missing.status == 64)
        #expect(missing.error.hasPrefix("coredata migrate: the store's entity version hashes match no version of \(v2.path); pass --from"), "\(missing.error)")
        let withFrom = try ToolProcess.run(["migrate", xml.path, "--model", v2.path, "--from", old.path])
        #expect(withFrom.status == 0, "\(withFrom.error)")
        #expect(withFrom.output.hasSuffix("migrated \(xml.path) from \(old.path) to \(v2.path)\n"), "\(withFrom.output)")

        let sqlite = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: old)
        let cached = try ToolProcess.run(["migrate", sqlite.path, "--model", v2.path])
        #expect(cached.status == 0, "\(cached.error)")
        #expect(cached.output.hasSuffix("migrated \(sqlite.path) from the model cached in the store to \(v2.path)\n"), "\(cached.output)")
        #expect(try ToolProcess.run(["query", sqlite.path, "--entity", "Writer", "--count"]).output == "1\n", "the store caches the new model")
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func aChangeThatCannotBeInferredLeavesTheStore(_ type: String) throws {
        let package = try ToolModelVersions.writePackage(withV3: true)
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: package.appendingPathComponent("V1.xcdatamodel"))
        let before = try ToolLibrary.snapshot(of: store.deletingLastPathComponent())
        let run = try ToolProcess.run(["migrate", store.path, "--model", package.appendingPathComponent("V3.xcdatamodel").path,
                                       "--from", package.path])
        #expect(run.status == 1)
        #expect(run.error.hasPrefix("coredata migrate: "), "\(run.error)")
        #expect(run.error.contains("Book.pages"), "the message names what cannot be inferred: \(run.error)")
        #expect(try ToolLibrary.snapshot(of: store.deletingLastPathComponent()) == before)
    }

    @Test(arguments: [
        (["migrate", "a.sqlite"], "--model is required: the model to migrate to"),
        (["migrate", "--model", "m"], "expected one store"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) throws {
        let run = try ToolProcess.run(arguments)
        #expect(run.status == 64)
        #expect(run.error.hasPrefix("coredata migrate: \(message)\n"), "\(run.error)")
    }
}

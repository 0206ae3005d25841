import CoreData
import Foundation
import Testing

/// `coredata convert <source> <destination> --to <type>`: a store copied into a new store of every type with
/// `migratePersistentStore`, progress lines when standard output is no terminal, the source left untouched,
/// the new store reopening with the same objects (its export equals the source's), an existing destination
/// refused. Through the tool's process.
@Suite struct ConvertCommandTests {
    static let types: [(String, String)] = [("sqlite", NSSQLiteStoreType), ("xml", NSXMLStoreType), ("binary", NSBinaryStoreType)]

    static func expectedOutput(from sourceType: String, to type: String, destination: String) -> String {
        "progress: 0% opening SOURCE\n"
            + "progress: 10% copying 3 objects into a new \(type) store\n"
            + "progress: 90% checking Author\n"
            + "progress: 95% checking Book\n"
            + "progress: 100% done\n"
            + "converted 3 objects from \(sourceType) to \(type): \(destination)\n"
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func convertsIntoEveryType(_ sourceType: String) throws {
        let model = try ToolLibrary.writeModel()
        let source = try ToolLibrary.writeStore(type: sourceType, named: "library.store", model: model, metadata: ["appVersion": "2.1"])
        let before = try ToolLibrary.snapshot(of: source.deletingLastPathComponent())
        let original = try ToolProcess.run(["export", source.path, "--model", model.path]).output
        for (option, type) in Self.types {
            let destination = try ToolLibrary.folder().appendingPathComponent("converted.\(option)")
            let run = try ToolProcess.run(["convert", source.path, destination.path, "--to", option, "--model", model.path])
            #expect(run.status == 0, "\(sourceType) → \(option): \(run.error)")
            #expect(run.error.isEmpty)
            #expect(run.output == Self.expectedOutput(from: sourceType, to: type, destination: destination.path)
                        .replacingOccurrences(of: "SOURCE", with: source.path), "\(run.output)")
            let reopened = try ToolProcess.run(["export", destination.path, "--model", model.path])
            #expect(reopened.status == 0, "\(reopened.error)")
            #expect(reopened.output == original, "\(sourceType) → \(option): the new store holds other objects or metadata")
            #expect(try ToolProcess.run(["inspect", destination.path, "--model", model.path]).output.contains("type:   \(type)"))
        }
        #expect(try ToolLibrary.snapshot(of: source.deletingLastPathComponent()) == before, "the source is left as it was")
    }

    /// The PostgreSQL store as a destination (and as a source, by its URI); skipped without a server.
    @Test func convertsIntoPostgreSQLAndBack() throws {
        guard let uri = ToolPostgreSQLServer.newStoreURI() else { try Test.cancel(Comment(rawValue: ToolPostgreSQLServer.unavailableReason)) }
        let model = try ToolLibrary.writeModel()
        let source = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let original = try ToolProcess.run(["export", source.path]).output
        let run = try ToolProcess.run(["convert", source.path, uri, "--to", "postgresql"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasSuffix("converted 3 objects from SQLite to PostgreSQL: \(uri)\n"), "\(run.output)")
        #expect(try ToolProcess.run(["export", uri, "--model", model.path]).output == original)
        let again = try ToolProcess.run(["convert", source.path, uri, "--to", "postgresql"])
        #expect(again.status == 1)
        #expect(again.error.hasPrefix("coredata convert: A store already exists at \(uri); the tool never overwrites one"), "\(again.error)")
        let back = try ToolLibrary.folder().appendingPathComponent("back.binary")
        let fromServer = try ToolProcess.run(["convert", uri, back.path, "--to", "binary", "--model", model.path])
        #expect(fromServer.status == 0, "\(fromServer.error)")
        #expect(try ToolProcess.run(["export", back.path, "--model", model.path]).output == original)
        let imported = try #require(ToolPostgreSQLServer.newStoreURI())
        let document = try ToolLibrary.folder().appendingPathComponent("export.json")
        try Data(original.utf8).write(to: document)
        let importRun = try ToolProcess.run(["import", document.path, imported, "--to", "postgresql", "--model", model.path])
        #expect(importRun.status == 0, "\(importRun.error)")
        #expect(try ToolProcess.run(["export", imported, "--model", model.path]).output == original, "import into PostgreSQL round-trips")
    }

    @Test func anExistingDestinationIsNeverOverwritten() throws {
        let model = try ToolLibrary.writeModel()
        let source = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let existing = try ToolLibrary.writeStore(type: NSBinaryStoreType, named: "taken.binary", model: model)
        let before = try ToolLibrary.snapshot(of: existing.deletingLastPathComponent())
        let run = try ToolProcess.run(["convert", source.path, existing.path, "--to", "binary"])
        #expect(run.status == 1)
        #expect(run.error.hasPrefix("coredata convert: A store already exists at \(existing.path); the tool never overwrites one"), "\(run.error)")
        #expect(try ToolLibrary.snapshot(of: existing.deletingLastPathComponent()) == before)
    }

    @Test func aSourceThatIsNoStoreFailsAndCreatesNothing() throws {
        let folder = try ToolLibrary.folder()
        let notAStore = folder.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notAStore)
        let destination = folder.appendingPathComponent("new.sqlite")
        let run = try ToolProcess.run(["convert", notAStore.path, destination.path, "--to", "sqlite"])
        #expect(run.status == 1)
        #expect(run.error.contains("is not a store of a known type"), "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(arguments: [
        (["convert", "a.sqlite", "b.xml"], "--to is required: sqlite, xml, binary or postgresql"),
        (["convert", "a.sqlite", "b.xml", "--to", "json"], "--to must be sqlite, xml, binary or postgresql, not json"),
        (["convert", "a.sqlite", "--to", "xml"], "expected a source store and a destination"),
        (["convert", "a.sqlite", "postgresql://localhost/db", "--to", "xml"], "postgresql://localhost/db is a PostgreSQL connection URI; pass --to postgresql"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) throws {
        let run = try ToolProcess.run(arguments)
        #expect(run.status == 64, "\(arguments)")
        #expect(run.error.hasPrefix("coredata convert: \(message)\n"), "\(run.error)")
    }
}

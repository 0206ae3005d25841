import CoreData
import Foundation
import Testing

/// `coredata inspect` and `query` tell a store's type by its content, whatever the file is called, and give
/// a directory, a missing file, an empty file and a file of no known type each its own message; a store
/// that carries no model asks for `--model`, saying why. Run through the tool's process.
@Suite struct StoreTypeByContentTests {
    static let storeTypes = [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType]

    @Test(arguments: storeTypes)
    func aStoreWithoutAKnownExtensionOpensAsWhatItHolds(_ type: String) throws {
        let model = try ToolLibrary.writeModel()
        for name in ["library.wiredatabase", "library"] {
            let store = try ToolLibrary.writeStore(type: type, named: name, model: model)
            let run = try ToolProcess.run(["inspect", store.path, "--model", model.path])
            #expect(run.status == 0, "\(name): \(run.error)")
            #expect(run.output.contains("type:   \(type)\n"), "\(run.output)")
            #expect(run.output.contains("  Book                         2\n"), "\(run.output)")
            #expect(run.output.contains("  Author                       1\n"), "\(run.output)")
        }
    }

    @Test func ourSQLiteStoreNeedsNoModel() throws {
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.wiredatabase", model: try ToolLibrary.writeModel())
        let inspect = try ToolProcess.run(["inspect", store.path])
        #expect(inspect.status == 0, "\(inspect.error)")
        #expect(inspect.output.contains("model:  cached in the store\n"))
        let query = try ToolProcess.run(["query", store.path, "--entity", "Book", "--count"])
        #expect(query.status == 0, "\(query.error)")
        #expect(query.output == "2\n")
    }

    @Test(arguments: [(NSXMLStoreType, "an XML store"), (NSBinaryStoreType, "a binary store")])
    func storesThatCarryNoModelAskForIt(_ type: String, _ name: String) throws {
        let store = try ToolLibrary.writeStore(type: type, named: "library.sqlite", model: try ToolLibrary.writeModel())
        for command in [["inspect", store.path], ["query", store.path, "--entity", "Book"]] {
            let run = try ToolProcess.run(command)
            #expect(run.status == 64)
            #expect(run.error.contains("library.sqlite is \(name), which does not carry its model; pass --model"), "\(run.error)")
        }
    }

    /// The `.mom` writer refuses a block predicate (which has no archived form), so such a store's Z_MODELCACHE
    /// is empty; the message says which stores have no cached model and why.
    @Test func aStoreWhoseModelTheCacheWriterRefusedSaysSo() throws {
        let name = NSAttributeDescription()
        (name.name, name.attributeType, name.isOptional) = ("name", .stringAttributeType, true)
        name.setValidationPredicates([NSPredicate { _, _ in true }], withValidationWarnings: ["never"])
        let entity = NSEntityDescription()
        entity.name = "Note"
        entity.properties = [name]
        let url = try ToolLibrary.folder().appendingPathComponent("notes.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel(entities: [entity]))
        try coordinator.remove(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil))
        let run = try ToolProcess.run(["inspect", url.path])
        #expect(run.status == 64)
        #expect(run.error.contains("notes.sqlite has no cached model"), "\(run.error)")
        #expect(run.error.contains("block predicate"))
        #expect(run.error.contains("pass --model"))
    }

    /// What is not a store: each case with its exit status and the words of its message.
    static let notStores: [(String, (URL) throws -> Void, String)] = [
        ("missing", { _ in }, "There is no store file at"),
        ("directory", { try FileManager.default.createDirectory(at: $0, withIntermediateDirectories: true) }, "is a directory, not a store file"),
        ("document", { url in
            let inner = url.appendingPathComponent("StoreContent")
            try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
            try Data("SQLite format 3\0".utf8).write(to: inner.appendingPathComponent("persistentStore"))
        }, "UIManagedDocument package: its store is"),
        ("empty", { try Data().write(to: $0) }, "is empty: it holds no store"),
        ("text", { try Data("hello, world\n".utf8).write(to: $0) }, "not a store of a known type (its first bytes: 68 65 6c 6c 6f"),
        ("plist", { try Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>".utf8).write(to: $0) },
         "an XML document without Apple's <database> element"),
        ("apple-binary", { try PropertyListSerialization.data(fromPropertyList: ["$archiver": "NSKeyedArchiver"], format: .binary, options: 0).write(to: $0) },
         "Apple's binary store"),
    ]

    @Test(arguments: notStores.map(\.0))
    func whatIsNotAStoreGetsItsOwnMessage(_ name: String) throws {
        let (_, make, message) = try #require(Self.notStores.first { $0.0 == name })
        let url = try ToolLibrary.folder().appendingPathComponent(name)
        try make(url)
        for command in [["inspect", url.path], ["query", url.path, "--entity", "Book"]] {
            let run = try ToolProcess.run(command)
            #expect(run.status == 1, "\(command): \(run.error)")
            #expect(run.error.hasPrefix("coredata \(command[0]): "), "\(run.error)")
            #expect(run.error.contains(message), "\(run.error)")
        }
    }

    @Test func typeOptionMustAgreeWithTheContent() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.xml", model: model)
        let wrong = try ToolProcess.run(["inspect", store.path, "--type", "xml"])
        #expect(wrong.status == 1)
        #expect(wrong.error.contains("holds a SQLite store, not an XML store (--type xml)"), "\(wrong.error)")
        let right = try ToolProcess.run(["inspect", store.path, "--type=sqlite"])
        #expect(right.status == 0, "\(right.error)")
        let unknown = try ToolProcess.run(["inspect", store.path, "--type", "csv"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("--type must be sqlite, xml or binary, not csv"), "\(unknown.error)")
    }
}

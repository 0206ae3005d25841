import CoreData
import Foundation
import StoreTestSupport
import Testing
@testable import coredata

/// `coredata inspect` and `query` leave a store's folder exactly as it was: no `-wal`, `-shm` or `-journal`
/// created beside a store that had none, no file changed, for this package's stores of every type and for
/// copies of Apple's SQLite stores (with and without a write-ahead log). Each test compares every file of
/// the folder, bytes and names, before and after.
@Suite struct ReadOnlyInspectionTests {
    /// The commands run on a store: inspect, and a query in every format and as a count.
    static func commands(_ store: URL, entity: String, model: URL?) -> [[String]] {
        let modelOption = model.map { ["--model", $0.path] } ?? []
        let query = ["query", store.path, "--entity", entity] + modelOption
        return [["inspect", store.path] + modelOption, query + ["--count"]]
            + QueryFormat.allCases.map { query + ["--format", $0.rawValue] }
    }

    /// Runs `commands` and checks that each succeeds and the folder is unchanged.
    func expectUntouched(_ folder: URL, _ commands: [[String]]) throws {
        let before = try ToolLibrary.snapshot(of: folder)
        for command in commands {
            let run = try ToolProcess.run(command)
            #expect(run.status == 0, "\(command): \(run.error)")
            let after = try ToolLibrary.snapshot(of: folder)
            #expect(after.keys.sorted() == before.keys.sorted(), "\(command[0]) created or removed files")
            #expect(after == before, "\(command[0]) changed a file")
        }
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func ourStoresAreLeftAsTheyWere(_ type: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: model)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.deletingLastPathComponent().path) == ["library.store"])
        try expectUntouched(store.deletingLastPathComponent(), Self.commands(store, entity: "Book", model: type == NSSQLiteStoreType ? nil : model))
    }

    /// Apple's stores in WAL mode (no `-wal` beside them) and in rollback-journal mode, read with the model
    /// they cache.
    @Test(arguments: [
        ("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite", "Car"),
        ("alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite", "Book"),
        ("alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite", "User"),
        ("wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_3.sqlite", "Post"),
    ])
    func applesStoresAreLeftAsTheyWere(_ name: String, _ entity: String) throws {
        guard ToolFixtures.root != nil else { try Test.cancel("fixtures not found") }
        let store = try CachedModelCommandTests().copy(name)
        try expectUntouched(store.deletingLastPathComponent(), Self.commands(store, entity: entity, model: nil))
    }

    /// A store a process left in the middle of a transaction in rollback-journal mode (a hot `-journal`, the
    /// transaction's 3,000 new books already in the file) is read from a copy in which SQLite rolled that
    /// transaction back: the tool shows the store as it was before it, and leaves both files as they were.
    /// So is a store whose journal SQLite ignores (the process was killed before it synced the journal, so
    /// before it changed the file), read where it is.
    @Test(arguments: [false, true])
    func aStoreWithAnUnfinishedTransactionIsReadAsBeforeIt(beforeTheJournalIsSynced: Bool) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let books = try ToolProcess.run(["query", store.path, "--entity", "Book", "--count"])
        let crashed = try ToolLibrary.folder().appendingPathComponent("library.sqlite")
        try copyStoreInTheMiddleOfATransaction(store, to: crashed, running: [
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
                + "INSERT INTO ZBOOK (Z_ENT, Z_OPT, ZTITLE) SELECT (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'), 1, "
                + "hex(randomblob(60)) FROM n",
        ], beforeTheJournalIsSynced: beforeTheJournalIsSynced)
        try expectUntouched(crashed.deletingLastPathComponent(), Self.commands(crashed, entity: "Book", model: nil))
        let count = try ToolProcess.run(["query", crashed.path, "--entity", "Book", "--count"])
        #expect(count.status == 0, "\(count.error)")
        #expect(count.output == books.output, "the books as before the unfinished transaction")
    }

    static let surfJournal = "kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__CoreDataSeed__SurfJournalModel.sqlite"
    static let surfJournalModel = "apple/models/kodecocodes__cdt-materials__09-multiple-managed-object-contexts__projects__final__SurfJournal__SurfJournal__SurfJournalModel.xcdatamodeld"

    /// Apple's SurfJournal store keeps its 5,000 rows in its `-wal`, which SQLite reads only through a `-shm`
    /// it creates or writes: the tool reads a temporary copy, whether the `-shm` is there or not.
    @Test(arguments: [true, false])
    func aStoreWhoseRowsAreInItsLogIsReadWithoutTouchingIt(withShm: Bool) throws {
        guard let root = ToolFixtures.root else { try Test.cancel("fixtures not found") }
        let model = root.appendingPathComponent(Self.surfJournalModel)
        let store = try CachedModelCommandTests().copy(Self.surfJournal)
        if !withShm { try FileManager.default.removeItem(atPath: store.path + "-shm") }
        let folder = store.deletingLastPathComponent()
        #expect(FileManager.default.fileExists(atPath: store.path + "-wal"))
        try expectUntouched(folder, Self.commands(store, entity: "JournalEntry", model: model))
        let count = try ToolProcess.run(["query", store.path, "--model", model.path, "--entity", "JournalEntry", "--count"])
        #expect(count.output == "5000\n", "\(count.error)")
        let sorted = try ToolProcess.run(["query", store.path, "--model", model.path, "--entity", "JournalEntry",
                                          "--sort", "-rating,date", "--limit", "1", "--fields", "rating,location", "--format", "csv"])
        #expect(sorted.output.hasSuffix(",JournalEntry,5,Bells Beach\r\n"), "\(sorted.output)")
    }
}

import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Files that are not usable stores throw Apple's codes and are left byte-for-byte as they were.
@Suite struct BadInputTests {
    func expectRejected(_ url: URL, model: NSManagedObjectModel = FixtureModels.sampleModel3(), code: Int,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        let before = fileBytes(url)
        let directoryBefore = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path))?.sorted()
        let error = thrownError { _ = try Stack(model: model, url: url) }
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == code, "\(error?.localizedDescription ?? "no error")", sourceLocation: sourceLocation)
        #expect(fileBytes(url) == before, "the file changed", sourceLocation: sourceLocation)
        let directoryAfter = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path))?.sorted()
        #expect(directoryAfter == directoryBefore, "files appeared beside the store", sourceLocation: sourceLocation)
    }

    @Test func notSQLite() throws {
        let url = TemporaryStore.url()
        try Data("this is not a database, just some text that is long enough to have a header".utf8).write(to: url)
        expectRejected(url, code: NSPersistentStoreInvalidTypeError)
    }

    @Test func truncated() throws {
        let url = TemporaryStore.url()
        let full = try Stack(model: FixtureModels.sampleModel3(), url: url)
        try full.context.performAndWait {
            for index in 0..<500 {
                let user = NSManagedObject(entity: try #require(full.coordinator.managedObjectModel.entitiesByName["User"]), insertInto: full.context)
                user.setValue(String(repeating: "name \(index) ", count: 20), forKey: "name")
            }
            try full.context.save()
        }
        try full.close()
        RawSQLite.execute(url, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
        let data = try #require(fileBytes(url))
        try data.prefix(data.count / 2 + 100).write(to: url)
        expectRejected(url, code: NSFileReadCorruptFileError)
    }

    @Test func sqliteWithoutCoreDataTables() throws {
        let url = TemporaryStore.url()
        RawSQLite.execute(url, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x');")
        expectRejected(url, code: NSPersistentStoreInvalidTypeError)
        #expect(thrownError { _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url) }?.code == NSPersistentStoreInvalidTypeError)
    }

    @Test func incompatibleModelOfOurOwnStore() throws {
        let url = TemporaryStore.url()
        try Stack(model: FixtureModels.sampleModel3(), url: url).close()
        let other = NSManagedObjectModel(entities: [entity("User", [attribute("name", .string), attribute("age", .integer32)])])
        expectRejected(url, model: other, code: NSPersistentStoreIncompatibleVersionHashError)
        let renamed = NSManagedObjectModel(entities: [entity("Member", [attribute("name", .string)])])
        expectRejected(url, model: renamed, code: NSPersistentStoreIncompatibleVersionHashError)
    }

    @Test(.enabled(if: Fixtures.available)) func incompatibleModelOfAnAppleStore() throws {
        let url = try Fixtures.copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite")
        let missingColumn = NSManagedObjectModel(entities: [entity("User", [attribute("name", .string), attribute("nickname", .string)])])
        expectRejected(url, model: missingColumn, code: NSPersistentStoreIncompatibleVersionHashError)
        expectRejected(url, model: FixtureModels.coreDataBooks(), code: NSPersistentStoreIncompatibleVersionHashError)
    }

    @Test func readOnlyStoreRefusesSaves() throws {
        let url = TemporaryStore.url()
        try Stack(model: FixtureModels.sampleModel3(), url: url).close()
        let stack = try Stack(model: FixtureModels.sampleModel3(), url: url, options: [NSReadOnlyPersistentStoreOption: true])
        let error = thrownError {
            try stack.context.performAndWait {
                let user = NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["User"]), insertInto: stack.context)
                user.setValue("x", forKey: "name")
                try stack.context.save()
            }
        }
        #expect(error?.code == NSPersistentStoreSaveError)
    }

    @Test func missingParentDirectoriesAreCreated() throws {
        let url = TemporaryStore.directory().appendingPathComponent("a/b/c/store.sqlite")
        let stack = try Stack(model: FixtureModels.sampleModel3(), url: url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        try stack.close()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(metadata[NSStoreTypeKey] as? String == "SQLite")
        #expect(metadata[NSStoreUUIDKey] as? String != nil)
    }

    @Test func pragmaOptionsAreValidated() throws {
        let url = TemporaryStore.url()
        let error = thrownError { _ = try Stack(model: FixtureModels.sampleModel3(), url: url, options: [NSSQLitePragmasOption: ["journal_mode": "WAL; DROP TABLE x"]]) }
        #expect(error?.code == NSPersistentStoreOpenError)
        let stack = try Stack(model: FixtureModels.sampleModel3(), url: TemporaryStore.url(), options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
        try stack.close()
    }
}

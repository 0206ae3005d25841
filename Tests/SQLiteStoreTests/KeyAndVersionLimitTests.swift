import Testing
import CoreData
import StoreTestSupport

/// `Z_MAX`, `Z_PK` and `Z_OPT` read from a file: damaged or exhausted numbers throw, never trap.
@Suite struct KeyAndVersionLimitTests {
    private func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("User", [attribute("name", .string)])])
    }

    /// A store with one saved user, closed, then changed with `sql`.
    private func store(then sql: String) throws -> URL {
        let url = TemporaryStore.url()
        let stack = try Stack(model: model(), url: url)
        try stack.context.performAndWait {
            let user = NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["User"]), insertInto: stack.context)
            user.setValue("first", forKey: "name")
            try stack.context.save()
        }
        try stack.close()
        RawSQLite.execute(url, sql)
        return url
    }

    /// The error of inserting one user and saving, or nil when it saved.
    private func insertError(_ url: URL) throws -> NSError? {
        let stack = try Stack(model: model(), url: url)
        defer { try? stack.close() }
        return thrownError {
            try stack.context.performAndWait {
                let user = NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["User"]), insertInto: stack.context)
                user.setValue("next", forKey: "name")
                try stack.context.save()
            }
        }
    }

    @Test(arguments: [
        "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807",
        "UPDATE Z_PRIMARYKEY SET Z_MAX = 'many'",
        "UPDATE Z_PRIMARYKEY SET Z_MAX = 1.5e19",
        "UPDATE ZUSER SET Z_PK = 9223372036854775807",
    ])
    func damagedKeyCountersAreDamage(_ sql: String) throws {
        let url = try store(then: sql)
        #expect(try insertError(url)?.code == NSFileReadCorruptFileError, "\(sql)")
        #expect(RawSQLite.rows(url, "SELECT COUNT(*) FROM ZUSER") == [["1"]], "nothing was inserted")
    }

    @Test func runningOutOfKeysFailsTheSave() throws {
        let url = try store(then: "UPDATE Z_PRIMARYKEY SET Z_MAX = \(StoreNumberLimits.largestStoredNumber)")
        #expect(try insertError(url)?.code == NSPersistentStoreSaveError)
        #expect(RawSQLite.rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'User'") == [["\(StoreNumberLimits.largestStoredNumber)"]], "Z_MAX is unchanged")
    }

    @Test func keysContinueAfterTheLargerOfZMaxAndTheRows() throws {
        let url = try store(then: "UPDATE Z_PRIMARYKEY SET Z_MAX = 40")
        #expect(try insertError(url) == nil)
        #expect(RawSQLite.rows(url, "SELECT Z_PK FROM ZUSER ORDER BY Z_PK") == [["1"], ["41"]])
        #expect(RawSQLite.rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'User'") == [["41"]])
    }

    @Test(arguments: ["9223372036854775807", "'stale'"])
    func damagedVersionsAreDamage(_ version: String) throws {
        let url = try store(then: "UPDATE ZUSER SET Z_OPT = \(version)")
        let stack = try Stack(model: model(), url: url)
        defer { try? stack.close() }
        #expect(thrownError { _ = try stack.fetch("User") }?.code == NSFileReadCorruptFileError)
    }
}

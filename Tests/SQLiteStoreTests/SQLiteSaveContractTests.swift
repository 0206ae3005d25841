import Testing
import CoreData
import StoreTestSupport
import CoreDataSQLite

/// The SQLite store's side of the save contract, called directly on a store (no context in between).
@Suite struct SQLiteSaveContractTests {
    private func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("User", [attribute("name", .string)])])
    }

    @Test func uncheckedUpdateOfAGoneRowConflictsAndWritesNothing() throws {
        let model = model()
        let user = try #require(model.entitiesByName["User"])
        let url = TemporaryStore.url()
        let store = try SQLiteStore(StoreOpenRequest(model: model, configurationName: nil, url: url, options: [:]))
        defer { store.close() }
        func row(_ key: Int64, _ name: String) -> StoreRow {
            StoreRow(key: ObjectKey(entityNumber: user.entityNumber, primaryKey: key), version: 1, values: [name])
        }
        var changes = StoreChangeSet()
        changes.inserted = [row(1, "new")]
        changes.updated = [StoreRowUpdate(row: row(7, "gone"), expectedVersion: nil, changedSlots: [0])]
        do {
            _ = try store.save(changes)
            Issue.record("the save succeeded")
        } catch let conflict as StoreVersionConflict {
            #expect(conflict.conflicts.map(\.key.primaryKey) == [7])
            #expect(conflict.conflicts.first?.current == nil)
        }
        #expect(RawSQLite.rows(url, "SELECT COUNT(*) FROM ZUSER") == [["0"]], "the insert in the same save was not written")
    }

    @Test func versionsReportedOnlyForUncheckedUpdates() throws {
        let model = model()
        let user = try #require(model.entitiesByName["User"])
        let store = try SQLiteStore(StoreOpenRequest(model: model, configurationName: nil, url: TemporaryStore.url(), options: [:]))
        defer { store.close() }
        let key = ObjectKey(entityNumber: user.entityNumber, primaryKey: 1)
        func update(_ name: String, expected: Int64?) -> StoreChangeSet {
            var changes = StoreChangeSet()
            changes.updated = [StoreRowUpdate(row: StoreRow(key: key, version: 1, values: [name]), expectedVersion: expected, changedSlots: [0])]
            return changes
        }
        var insert = StoreChangeSet()
        insert.inserted = [StoreRow(key: key, version: 0, values: ["a"])]
        #expect(try store.save(insert).versions.isEmpty, "inserts are version 1")
        #expect(try store.save(update("b", expected: 1)).versions.isEmpty, "a checked update is expected + 1")
        #expect(try store.save(update("c", expected: nil)).versions == [key: 3])
        #expect(try store.rows(for: [key]).first?.version == 3)
    }
}

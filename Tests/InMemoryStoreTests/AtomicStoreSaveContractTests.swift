import Testing
import CoreData
import CoreDataInMemory

/// The atomic engine's side of the save contract, called directly on a store (no context in between).
@Suite struct AtomicStoreSaveContractTests {
    let model: NSManagedObjectModel
    let thing: NSEntityDescription
    let store: InMemoryStore

    init() throws {
        let thing = NSEntityDescription(name: "Thing")
        thing.properties = [NSAttributeDescription(name: "name", type: .string)]
        model = NSManagedObjectModel(entities: [thing])
        self.thing = thing
        store = try InMemoryStore(StoreOpenRequest(model: model, configurationName: nil, url: nil, options: [:]))
    }

    private func row(_ key: Int64, _ name: String, version: Int64 = 1) -> StoreRow {
        StoreRow(key: ObjectKey(entityNumber: thing.entityNumber, primaryKey: key), version: version, values: [name])
    }

    private func keys() throws -> Set<Int64> {
        let fetch = StoreFetchRequest(entity: thing, result: .keys)
        guard case .keys(let keys) = try store.fetch(fetch) else { return [] }
        return Set(keys.map(\.primaryKey))
    }

    @Test func uncheckedUpdateOfAGoneRowConflictsAndWritesNothing() throws {
        var changes = StoreChangeSet()
        changes.inserted = [row(1, "new")]
        changes.updated = [StoreRowUpdate(row: row(7, "gone"), expectedVersion: nil, changedSlots: [0])]
        do {
            _ = try store.save(changes)
            Issue.record("the save succeeded")
        } catch let conflict as StoreVersionConflict {
            #expect(conflict.conflicts.count == 1)
            #expect(conflict.conflicts.first?.key.primaryKey == 7)
            #expect(conflict.conflicts.first?.current == nil)
        }
        #expect(try keys().isEmpty, "the insert in the same save was not written")
    }

    @Test func versionsReportedOnlyForUncheckedUpdates() throws {
        var insert = StoreChangeSet()
        insert.inserted = [row(1, "a"), row(2, "b")]
        #expect(try store.save(insert).versions.isEmpty, "inserts are version 1")
        var checked = StoreChangeSet()
        checked.updated = [StoreRowUpdate(row: row(1, "a2"), expectedVersion: 1, changedSlots: [0])]
        #expect(try store.save(checked).versions.isEmpty, "a checked update is expected + 1")
        var unchecked = StoreChangeSet()
        unchecked.updated = [StoreRowUpdate(row: row(1, "a3"), expectedVersion: nil, changedSlots: [0])]
        let key = ObjectKey(entityNumber: thing.entityNumber, primaryKey: 1)
        #expect(try store.save(unchecked).versions == [key: 3])
        #expect(try store.rows(for: [key]).first?.version == 3)
    }

    @Test func keyAllocationNeverOverflows() throws {
        let limit = StoreNumberLimits.largestStoredNumber
        #expect(StoreNumberLimits.keys(after: limit - 2, count: 2) == (limit - 1)...limit)
        #expect(StoreNumberLimits.keys(after: limit - 2, count: 3) == nil)
        #expect(StoreNumberLimits.keys(after: Int64.max, count: 1) == nil)
        #expect(StoreNumberLimits.keys(after: 0, count: Int.max) == nil)
        #expect(StoreNumberLimits.keys(after: 5, count: 0) == nil)
        let code = errorCode { _ = try store.allocatePrimaryKeys(for: thing, count: Int.max) }
        #expect(code == NSPersistentStoreSaveError)
        #expect(try store.allocatePrimaryKeys(for: thing, count: 2) == [1, 2], "a refused allocation uses up no keys")
    }
}

private func errorCode(_ body: () throws -> Void) -> Int? {
    do { try body() } catch { return (error as NSError).code }
    return nil
}

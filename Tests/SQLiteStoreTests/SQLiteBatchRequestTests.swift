import CoreData
import StoreTestSupport
import Foundation
import Synchronization
import Testing

/// The SQLite store's own paths for batch updates and inserts: chunked inserts, `Z_OPT` and `Z_MAX` as
/// written on disk, joins and block predicates in updates, and a uniqueness constraint that refuses a batch.
@Suite struct SQLiteBatchRequestTests {
    func codedModel() -> NSManagedObjectModel {
        let code = entity("Code", [attribute("value", .string), attribute("n", .integer64)])
        code.uniquenessConstraints = [["value"]]
        return NSManagedObjectModel(entities: [code])
    }

    func execute(_ stack: Stack, _ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        try stack.context.performAndWait { try stack.context.execute(request) }
    }

    @Test func deletesOfAnUnreferencedTableCountWithoutCollectingKeys() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: codedModel(), url: url)
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: (0..<10).map { ["value": "c\($0)", "n": $0] }))
        let some = NSFetchRequest<NSFetchRequestResult>(entityName: "Code")
        some.predicate = NSPredicate(format: "n < 4")
        let counted = NSBatchDeleteRequest(fetchRequest: some)
        counted.resultType = .resultTypeCount
        #expect(((try execute(stack, counted) as? NSBatchDeleteResult)?.result as? NSNumber)?.intValue == 4)
        let status = try execute(stack, NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Code"))) as? NSBatchDeleteResult
        #expect((status?.result as? NSNumber)?.boolValue == true)
        #expect(try stack.count("Code") == 0)
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: (0..<3).map { ["value": "d\($0)", "n": $0] }))
        let all = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Code"))
        all.resultType = .resultTypeCount
        #expect(((try execute(stack, all) as? NSBatchDeleteResult)?.result as? NSNumber)?.intValue == 3, "every row, deleted as a truncation")
        let none = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Code"))
        none.resultType = .resultTypeCount
        #expect(((try execute(stack, none) as? NSBatchDeleteResult)?.result as? NSNumber)?.intValue == 0)
    }

    /// A batch delete of every row of a table is one plain `DELETE`, which SQLite runs as a truncation; rows of
    /// no entity (a damaged file's), which no fetch selects, are left, so that delete then takes the row-by-row path.
    @Test func deletingEveryRowTruncatesUnlessRowsOfNoEntityMustStay() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: codedModel(), url: url)
        let deletes = Mutex<[String]>([])
        let observation = SQLDebugLog.addObserver { record in
            if record.database == url.path, record.sql.hasPrefix("DELETE") { deletes.withLock { $0.append(record.sql) } }
        }
        defer { SQLDebugLog.removeObserver(observation) }
        func deleteAll() throws -> Int? {
            let all = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Code"))
            all.resultType = .resultTypeCount
            return ((try execute(stack, all) as? NSBatchDeleteResult)?.result as? NSNumber)?.intValue
        }
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: (0..<5).map { ["value": "c\($0)", "n": $0] }))
        #expect(try deleteAll() == 5)
        #expect(deletes.withLock { $0 } == ["DELETE FROM ZCODE"], "one truncation")
        RawSQLite.execute(url, "INSERT INTO ZCODE (Z_PK, Z_ENT, Z_OPT, ZVALUE) VALUES (90, 42, 1, 'ghost')")
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: (0..<3).map { ["value": "d\($0)", "n": $0] }))
        #expect(try deleteAll() == 3, "the row of no entity is not counted")
        #expect(try stack.count("Code") == 0)
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT ZVALUE FROM ZCODE") == [["ghost"]], "the row of no entity stays")
    }

    @Test func insertsManyRowsInChunksWithKeysInOrder() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: everythingModel(), url: url)
        let objects: [[String: Any]] = (0..<1_000).map { ["i64": $0, "title": "note \($0)"] }
        let request = NSBatchInsertRequest(entityName: "Note", objects: objects)
        request.resultType = .objectIDs
        let ids = try #require((try execute(stack, request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        #expect(ids.count == 1_000)
        #expect(try stack.count("Note") == 1_000)
        let rows = RawSQLite.rows(url, "SELECT Z_PK, Z_ENT, Z_OPT, ZI64 FROM ZNOTE ORDER BY Z_PK")
        #expect(rows.count == 1_000)
        #expect(rows.allSatisfy { $0[2] == "1" && Int($0[0])! == Int($0[3])! + 1 }, "keys follow the order of the objects, Z_OPT is 1")
        #expect(RawSQLite.rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") == [["1000"]])
        // A later save allocates after the batch.
        try stack.context.performAndWait {
            let note = NSManagedObject(entity: stack.coordinator.managedObjectModel.entitiesByName["PinnedNote"]!, insertInto: stack.context)
            note.setValue("saved", forKey: "title")
            try stack.context.save()
        }
        #expect(RawSQLite.rows(url, "SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'saved'") == [["1001"]])
    }

    @Test func updateRaisesZOPTOnlyOnMatchingRows() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: everythingModel(), url: url)
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Note", objects: (0..<10).map { ["i64": $0] }))
        let request = NSBatchUpdateRequest(entityName: "Note")
        request.predicate = NSPredicate(format: "i64 >= 5")
        request.propertiesToUpdate = ["title": "high", "flag": true]
        _ = try execute(stack, request)
        let rows = RawSQLite.rows(url, "SELECT ZI64, Z_OPT, ZTITLE, ZFLAG FROM ZNOTE ORDER BY ZI64")
        #expect(rows.prefix(5).allSatisfy { $0[1] == "1" && $0[2] == "NULL" && $0[3] == "NULL" })
        #expect(rows.suffix(5).allSatisfy { $0[1] == "2" && $0[2] == "high" && $0[3] == "1" })
    }

    @Test func updateThroughAJoinAndWithABlockPredicate() throws {
        let stack = try Stack(model: everythingModel(), url: TemporaryStore.url())
        try stack.context.performAndWait {
            let model = stack.coordinator.managedObjectModel
            for index in 0..<4 {
                let note = NSManagedObject(entity: model.entitiesByName["Note"]!, insertInto: stack.context)
                note.setValue(Int64(index), forKey: "i64")
                let step = NSManagedObject(entity: model.entitiesByName["Step"]!, insertInto: stack.context)
                step.setValue(note, forKey: "note")
                step.setValue("step \(index)", forKey: "text")
            }
            try stack.context.save()
        }
        let joined = NSBatchUpdateRequest(entityName: "Step")
        joined.predicate = NSPredicate(format: "note.i64 < 2")
        joined.propertiesToUpdate = ["text": "early"]
        joined.resultType = .updatedObjectsCountResultType
        #expect(((try execute(stack, joined) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue == 2)
        let block = NSBatchUpdateRequest(entityName: "Step")
        block.predicate = NSPredicate { object, _ in
            // Stores hand block predicates their row views, which read like managed objects.
            ((object as? PredicateKeyValueReading)?.predicateValue(forKey: "text") as? String) == "step 3"
        }
        block.propertiesToUpdate = ["text": "last"]
        block.resultType = .updatedObjectIDsResultType
        #expect(((try execute(stack, block) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])?.count == 1)
        // Registered objects are not refreshed by batch requests: read in a new context.
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = stack.coordinator
        let texts = try fresh.performAndWait {
            try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Step")).compactMap { $0.value(forKey: "text") as? String }.sorted()
        }
        #expect(texts == ["early", "early", "last", "step 2"])
    }

    @Test func statusAndCountUpdatesLeaveNoStaleRowForOtherContexts() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: codedModel(), url: url)
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: (0..<6).map { ["value": "c\($0)", "n": $0] }))
        // Another context reads every row: its objects hold those rows, which the coordinator keeps for faults.
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = stack.coordinator
        let byValue = NSFetchRequest<NSManagedObject>(entityName: "Code")
        byValue.sortDescriptors = [NSSortDescriptor(key: "value", ascending: true)]
        let read = try reader.performAndWait { try reader.fetch(byValue) }
        #expect(read.count == 6)
        let counted = NSBatchUpdateRequest(entityName: "Code")
        counted.predicate = NSPredicate(format: "n >= 3")
        counted.propertiesToUpdate = ["n": Int64(42)]
        counted.resultType = .updatedObjectsCountResultType
        #expect(((try execute(stack, counted) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue == 3)
        let status = NSBatchUpdateRequest(entityName: "Code")
        status.predicate = NSPredicate(format: "n < 3")
        status.propertiesToUpdate = ["n": Int64(7)]
        #expect(((try execute(stack, status) as? NSBatchUpdateResult)?.result as? NSNumber)?.boolValue == true)
        let block = NSBatchUpdateRequest(entityName: "Code")
        block.predicate = NSPredicate { object, _ in
            ((object as? PredicateKeyValueReading)?.predicateValue(forKey: "value") as? String) == "c0"
        }
        block.propertiesToUpdate = ["n": Int64(8)]
        block.resultType = .updatedObjectsCountResultType
        #expect(((try execute(stack, block) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue == 1, "a predicate SQL cannot evaluate counts too")
        // The reader's objects were never filled: filling them now must read the new rows, not the ones read before.
        #expect(reader.performAndWait { read.map { $0.value(forKey: "n") as? Int64 } } == [8, 7, 7, 42, 42, 42])
        try stack.close()
        let reopened = try Stack(model: codedModel(), url: url)
        let stored = try reopened.context.performAndWait { try reopened.context.fetch(byValue).map { $0.value(forKey: "n") as? Int64 } }
        #expect(stored == [8, 7, 7, 42, 42, 42])
        #expect(RawSQLite.rows(url, "SELECT Z_OPT FROM ZCODE ORDER BY ZVALUE") == [["3"], ["2"], ["2"], ["2"], ["2"], ["2"]])
    }

    @Test func aUniquenessViolationInsertsNothing() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: codedModel(), url: url)
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: [["value": "a"]]))
        let error = thrownError {
            _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: (0..<100).map { ["value": $0 == 70 ? "a" : "v\($0)"] }))
        }
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        #expect(try stack.count("Code") == 1)
        _ = try execute(stack, NSBatchInsertRequest(entityName: "Code", objects: [["value": "b"]]))
        let clash = NSBatchUpdateRequest(entityName: "Code")
        clash.propertiesToUpdate = ["value": "same"]
        #expect(thrownError { _ = try execute(stack, clash) }?.code == NSManagedObjectConstraintMergeError)
        #expect(RawSQLite.rows(url, "SELECT ZVALUE, Z_OPT FROM ZCODE ORDER BY ZVALUE") == [["a", "1"], ["b", "1"]])
    }
}

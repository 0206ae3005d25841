import CoreData
import Foundation
import StoreTestSupport
import Testing

/// A store that a killed process left in the middle of a transaction in rollback-journal mode (a hot
/// `-journal` beside it, as a copy into the file killed part-way leaves) migrates when it is next added with
/// the migration options: SQLite rolls the unfinished transaction back first, so the migration starts from the
/// store as it was before that transaction and nothing of it is lost.
@Suite struct HotJournalMigrationTests {
    static let itemCount = 2000

    static func model(version: Int) -> NSManagedObjectModel {
        var properties: [NSPropertyDescription] = [NSAttributeDescription(name: "title", type: .string),
                                                   NSAttributeDescription(name: "number", type: .integer64)]
        if version == 2 {
            properties.append(NSAttributeDescription(name: "grade", type: .integer64, isOptional: false, defaultValue: 7))
        }
        let model = NSManagedObjectModel()
        model.entities = [NSEntityDescription(name: "Item", properties: properties)]
        return model
    }

    /// A version 1 store of `itemCount` items, then a copy of its file and journal taken while a transaction
    /// that runs `statements` (by default, rewriting every title) is under way, its pages spilled into the
    /// file (or, `beforeTheJournalIsSynced`, none yet: the journal is one SQLite ignores): the state a crash
    /// leaves. Returns the copy, and the store's UUID.
    static func crashedStore(running statements: [String] = [], beforeTheJournalIsSynced: Bool = false) throws -> (url: URL, uuid: String) {
        let directory = TemporaryStore.directory()
        let original = directory.appendingPathComponent("original.sqlite")
        let stack = try Stack(model: model(version: 1), url: original)
        try stack.context.performAndWait {
            for index in 0..<itemCount {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context)
                item.setValue("item \(index)", forKey: "title")
                item.setValue(Int64(index), forKey: "number")
            }
            try stack.context.save()
        }
        try stack.close()

        let uuid = try #require(stack.store.metadata[NSStoreUUIDKey] as? String)
        let crashed = directory.appendingPathComponent("crashed.sqlite")
        try copyStoreInTheMiddleOfATransaction(original, to: crashed,
                                               running: statements + ["UPDATE ZITEM SET ZTITLE = 'changed ' || hex(randomblob(40))"],
                                               beforeTheJournalIsSynced: beforeTheJournalIsSynced)
        return (crashed, uuid)
    }

    /// `beforeTheJournalIsSynced`: a process killed in a commit's first steps (or in SQLite's switch out of WAL
    /// mode, as folding a log before a file swap does) leaves a journal whose header begins with zeros beside a
    /// file it never changed; SQLite ignores such a journal, and so must the migration.
    @Test(arguments: [false, true])
    func aStoreWithAnUnfinishedTransactionMigratesFromItsStateBeforeIt(beforeTheJournalIsSynced: Bool) throws {
        let url = try Self.crashedStore(beforeTheJournalIsSynced: beforeTheJournalIsSynced).url
        let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                           NSInferMappingModelAutomaticallyOption: true]
        for step in ["migrated", "reopened"] {
            let stack = try Stack(model: Self.model(version: 2), url: url, options: options)
            try stack.context.performAndWait {
                let items = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                #expect(items.count == Self.itemCount, "\(step): every item")
                let titles = Set(items.compactMap { $0.value(forKey: "title") as? String })
                #expect(titles == Set((0..<Self.itemCount).map { "item \($0)" }), "\(step): the titles as before the unfinished transaction")
                #expect(items.allSatisfy { $0.value(forKey: "grade") as? Int64 == 7 }, "\(step): the new attribute takes its default")
            }
            try stack.close()
            let journalSize = (try? FileManager.default.attributesOfItem(atPath: url.path + "-journal"))?[.size] as? Int ?? 0
            #expect(journalSize == 0, "\(step): no journal is left to roll back")
        }
    }
}

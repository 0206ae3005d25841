import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Persistent history tokens across a lightweight migration.
struct HistoryAcrossMigrationTests {
    /// A token taken before a lightweight migration still finds every save made after it: the migrated store
    /// keeps its transaction numbers (restarting them would make `fetchHistory(after:)` skip the later saves).
    @Test func tokenFromBeforeALightweightMigrationFindsLaterSaves() throws {
        let url = TemporaryStore.url()
        let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber]
        let v1 = try Stack(model: NoteStore.model(), url: url, options: tracking)
        for index in 0..<3 { try NoteStore.insert(v1, "v1 \(index)") }
        let token = try #require(v1.coordinator.currentPersistentHistoryToken(fromStores: nil))
        try v1.close()

        let modelV2 = NSManagedObjectModel(entities: [entity("Note", [attribute("title", .string), attribute("body", .string)])])
        var options = tracking
        options[NSMigratePersistentStoresAutomaticallyOption] = true
        options[NSInferMappingModelAutomaticallyOption] = true
        let v2 = try Stack(model: modelV2, url: url, options: options)
        for index in 0..<2 {
            try v2.context.performAndWait {
                NSManagedObject(entity: try #require(modelV2.entitiesByName["Note"]), insertInto: v2.context).setValue("v2 \(index)", forKey: "title")
                try v2.context.save()
            }
        }
        let later = try v2.context.performAndWait {
            (try v2.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
        }
        #expect(later.count == 2, "saves after the migration: \(later.count) found with the old token \(token); numbers now \(RawSQLite.rows(url, "SELECT Z_PK FROM ATRANSACTION"))")
        try v2.close()
    }
}

import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Regressions found by review: SQLite saves that move unique values between rows, persistent history through
/// a lightweight migration, and values set in `awakeFromFetch`.
struct SaveOrderAndHistoryMigrationTests {
    static let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber]
    static let migrating: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber,
                                                NSMigratePersistentStoresAutomaticallyOption: true,
                                                NSInferMappingModelAutomaticallyOption: true]

    func history(_ context: NSManagedObjectContext) throws -> [NSPersistentHistoryTransaction] {
        try context.performAndWait {
            (try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult)?
                .result as? [NSPersistentHistoryTransaction] ?? []
        }
    }

    // MARK: Saving: clearConstrainedValues

    /// Account: `email` unique, `note` free.
    static func accountModel() -> NSManagedObjectModel {
        let account = entity("Account", [attribute("email", .string), attribute("note", .string)])
        account.uniquenessConstraints = [["email"]]
        return NSManagedObjectModel(entities: [account])
    }

    /// Two accounts swap their emails while another coordinator has changed the first one's note. The stale row
    /// is skipped by `clearConstrainedValues` (its `Z_OPT` does not match) but the other row's update then writes
    /// the stale row's email, which it still holds: the store throws 133021 (a uniqueness violation) instead of the
    /// version conflict, so the merge policy never sees the conflict it could resolve and the save fails.
    @Test func aSwapWithAStaleRowReportsTheVersionConflict() throws {
        let url = TemporaryStore.url()
        let model = Self.accountModel()
        let first = try Stack(model: model, url: url)
        try first.context.performAndWait {
            for email in ["a@example.com", "b@example.com"] {
                NSManagedObject(entity: try #require(model.entitiesByName["Account"]), insertInto: first.context).setValue(email, forKey: "email")
            }
            try first.context.save()
        }
        let accounts = try first.fetch("Account", sort: [NSSortDescriptor(key: "email", ascending: true)])
        #expect(accounts.count == 2)

        // Another coordinator changes a@example.com's note (its Z_OPT moves on).
        let second = try Stack(model: model, url: url)
        try second.context.performAndWait {
            let other = try #require(try second.fetch("Account", NSPredicate(format: "email == %@", "a@example.com")).first)
            other.setValue("changed elsewhere", forKey: "note")
            try second.context.save()
        }

        // Default policy: the save fails with the optimistic-locking conflict (133020) on a@example.com.
        let errorPolicy = thrownError {
            try first.context.performAndWait {
                accounts[0].setValue("b@example.com", forKey: "email")
                accounts[1].setValue("a@example.com", forKey: "email")
                try first.context.save()
            }
        }
        #expect(errorPolicy?.code == NSManagedObjectMergeError, "\(errorPolicy.map { "\($0.code) \($0.localizedDescription)" } ?? "no error")")

        // A merge policy resolves that conflict, and the swap is saved.
        let merged = thrownError {
            try first.context.performAndWait {
                first.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
                try first.context.save()
            }
        }
        #expect(merged == nil, "\(merged.map { "\($0.code) \($0.localizedDescription)" } ?? "")")
        let check = try Stack(model: model, url: url)
        let rows = try check.context.performAndWait {
            try check.fetch("Account", sort: [NSSortDescriptor(key: "email", ascending: true)])
                .map { "\($0.value(forKey: "email") as? String ?? "-") \($0.value(forKey: "note") as? String ?? "-")" }
        }
        #expect(rows == ["a@example.com -", "b@example.com changed elsewhere"])
    }

    // MARK: History through a lightweight migration

    /// An entity renamed with `renamingIdentifier` keeps its rows in the migration (`SQLMigrationPlan` maps
    /// entities by renaming identifier first), but `copyHistory` renumbers changes by the old *name* only: every
    /// change of the renamed entity is dropped, and its transactions come back empty.
    @Test func historyOfARenamedEntitySurvivesAMigration() throws {
        let url = TemporaryStore.url()
        let v1 = NSManagedObjectModel(entities: [entity("Note", [attribute("title", .string)])])
        let old = try Stack(model: v1, url: url, options: Self.tracking)
        try old.context.performAndWait {
            NSManagedObject(entity: try #require(v1.entitiesByName["Note"]), insertInto: old.context).setValue("kept", forKey: "title")
            try old.context.save()
        }
        try old.close()

        let memo = entity("Memo", [attribute("title", .string)])
        memo.renamingIdentifier = "Note"
        let v2 = NSManagedObjectModel(entities: [memo])
        let new = try Stack(model: v2, url: url, options: Self.migrating)
        #expect(try new.context.performAndWait { try new.fetch("Memo").compactMap { $0.value(forKey: "title") as? String } } == ["kept"])
        let transactions = try history(new.context)
        #expect(transactions.count == 1)
        #expect(transactions.first?.changes?.map { $0.changedObjectID.entity.name } == ["Memo"])
        try new.close()
    }

    /// Two root entities that become subentities of one new parent share a table after the migration, so the
    /// later table's keys are shifted (`computeOffsets`); `copyHistory` copies `ZENTITYPK` unshifted, so the
    /// history's object ID for the truck names a key that is now a car's row.
    @Test func historyKeysFollowKeysShiftedByAMigration() throws {
        let url = TemporaryStore.url()
        let v1 = NSManagedObjectModel(entities: [entity("Car", [attribute("name", .string)]), entity("Truck", [attribute("name", .string)])])
        let old = try Stack(model: v1, url: url, options: Self.tracking)
        try old.context.performAndWait {
            for (name, entityName) in [("beetle", "Car"), ("mini", "Car"), ("volvo", "Truck")] {
                NSManagedObject(entity: try #require(v1.entitiesByName[entityName]), insertInto: old.context).setValue(name, forKey: "name")
            }
            try old.context.save()
        }
        try old.close()

        let car = entity("Car", [])
        let truck = entity("Truck", [])
        let vehicle = entity("Vehicle", [attribute("name", .string)], abstract: true)
        vehicle.subentities = [car, truck]
        let v2 = NSManagedObjectModel(entities: [vehicle, car, truck])
        let new = try Stack(model: v2, url: url, options: Self.migrating)
        let volvo = try new.context.performAndWait {
            let volvo = try #require(try new.fetch("Truck").first)
            #expect(volvo.value(forKey: "name") as? String == "volvo")
            return volvo
        }
        let changes = try history(new.context).flatMap { $0.changes ?? [] }
        let truckChanges = changes.filter { $0.changedObjectID.entity.name == "Truck" }
        #expect(truckChanges.map(\.changedObjectID) == [volvo.objectID])
        // The object the history names is the truck, not a car.
        let named = new.context.performAndWait {
            truckChanges.first.flatMap { try? new.context.existingObject(with: $0.changedObjectID).value(forKey: "name") as? String }
        }
        #expect(named == "volvo")
        try new.close()
    }

    // MARK: Unchanged transformable values written back as stored

    /// Values an object sets in `awakeFromFetch` are baseline values: not changes, but what the object holds. A
    /// store that writes whole rows (XML here) writes them when the object is saved for another change, and does
    /// so for a string (`rowValue` returns the slot, and `noteChange` made it the committed value), but for a
    /// transformable attribute `rowValue` now returns the committed bytes, which `noteChange` deliberately left
    /// alone: the object keeps showing the new value while the old one is saved.
    @Test func baselineValuesOfTransformablesAreWrittenLikeOtherAttributes() throws {
        let url = TemporaryStore.directory().appendingPathComponent("store.xml")
        func model(awakening: Bool) -> NSManagedObjectModel {
            let item = entity("Item", [attribute("label", .string), attribute("tags", .transformable), attribute("rank", .integer64)])
            if awakening { item.managedObjectClassName = NSStringFromClass(BaselineSettingObject.self) }
            return NSManagedObjectModel(entities: [item])
        }
        func open(awakening: Bool) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model(awakening: awakening))
            try coordinator.addPersistentStore(type: .xml, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return (coordinator, context)
        }
        do {
            let (_, context) = try open(awakening: false)
            try context.performAndWait {
                let item = NSManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"]), insertInto: context)
                item.setValue("stored", forKey: "label")
                item.setValue(["stored"] as NSArray, forKey: "tags")
                try context.save()
            }
        }
        do {
            let (_, context) = try open(awakening: true)
            try context.performAndWait {
                let item = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
                #expect(item.value(forKey: "label") as? String == "baseline")
                #expect(item.value(forKey: "tags") as? [String] == ["baseline"])
                item.setValue(Int64(1), forKey: "rank")
                try context.save()
            }
        }
        let (_, context) = try open(awakening: false)
        let stored = try context.performAndWait { () -> (String?, [String]?) in
            let item = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
            return (item.value(forKey: "label") as? String, item.value(forKey: "tags") as? [String])
        }
        #expect(stored.0 == "baseline", "the string's baseline value is written with the row")
        #expect(stored.1 == ["baseline"], "the transformable's baseline value is written with the row, as the string's is")
    }
}

/// Sets baseline values in `awakeFromFetch` with primitive setters, as Apple's documentation recommends.
final class BaselineSettingObject: NSManagedObject {
    override func awakeFromFetch() {
        super.awakeFromFetch()
        setPrimitiveValue("baseline", forKey: "label")
        setPrimitiveValue(["baseline"] as NSArray, forKey: "tags")
    }
}

import CoreData
import Foundation
import Testing

/// A transformable attribute archived by the default transformer keeps `NSNull` wherever it occurs, as often as
/// it occurs (an array or dictionary parsed from JSON with several `null`s): saved, reopened and read back equal.
/// swift-corelibs-foundation's archiver alone stops the process on such values (its `NSNull.hash` changes from
/// call to call), so this suite would crash without `ArchivedNull`.
@Suite struct TransformableNullTests {
    /// A value of JSON's shape with `nulls` NSNulls at every depth, and `index` to tell values apart.
    static func document(_ index: Int, nulls: Int) -> NSDictionary {
        let list = NSMutableArray()
        for position in 0..<nulls {
            list.add(NSNull())
            list.add(NSString(string: "entry \(index).\(position)"))
        }
        return NSDictionary(dictionary: [
            "index": NSNumber(value: index),
            "list": list,
            "nested": NSDictionary(dictionary: ["missing": NSNull(), "also missing": NSNull(), "items": NSArray(array: [NSNull(), NSNull()])]),
        ])
    }

    @Test func nullsInArchivedValuesAreKeptAcrossASaveAndAReopen() throws {
        let entity = NSEntityDescription(name: "Record")
        entity.properties = [NSAttributeDescription(name: "index", type: .integer64),
                             NSAttributeDescription(name: "document", type: .transformable)]
        let model = NSManagedObjectModel(entities: [entity])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("transformable-null-\(UUID().uuidString)/store.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let count = 300
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                for index in 0..<count {
                    let record = NSEntityDescription.insertNewObject(forEntityName: "Record", into: context)
                    record.setValue(Int64(index), forKey: "index")
                    record.setValue(Self.document(index, nulls: index % 40 + 2), forKey: "document")
                }
                try context.save()
            }
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let records = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Record"))
            #expect(records.count == count)
            for record in records {
                let index = Int(record.value(forKey: "index") as? Int64 ?? -1)
                let document = try #require(record.value(forKey: "document") as? NSDictionary, "record \(index)")
                #expect(document == Self.document(index, nulls: index % 40 + 2), "record \(index)")
                let list = try #require(document["list"] as? NSArray)
                #expect(list.firstObject is NSNull, "record \(index): NSNull comes back as NSNull")
            }
        }
    }
}

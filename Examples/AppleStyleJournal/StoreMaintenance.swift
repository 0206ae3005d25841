//
//  StoreMaintenance.swift
//  Journal
//
//  What apps do to their stores besides reading and writing: batch deletes merged into the view context, and
//  backups through the coordinator.
//

import CoreData

/// Deletes every entry older than `date` with a batch delete and merges the deletions into the view context.
public func deleteEntries(olderThan date: Date, in container: NSPersistentContainer) throws -> Int {
    let fetchRequest: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "Entry")
    fetchRequest.predicate = NSPredicate(format: "createdAt < %@", date as NSDate)
    let deleteRequest = NSBatchDeleteRequest(fetchRequest: fetchRequest)
    deleteRequest.resultType = .resultTypeObjectIDs

    let context = container.newBackgroundContext()
    let deleted: [NSManagedObjectID] = try context.performAndWait {
        let result = try context.execute(deleteRequest) as? NSBatchDeleteResult
        return result?.result as? [NSManagedObjectID] ?? []
    }
    let changes: [AnyHashable: Any] = [NSDeletedObjectsKey: deleted]
    NSManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [container.viewContext])
    return deleted.count
}

/// Copies the container's store to `url` as a SQLite store, leaving the live store as it is.
public func backUpStore(of container: NSPersistentContainer, to url: URL) throws {
    guard let store = container.persistentStoreCoordinator.persistentStores.first, let storeURL = store.url else { return }
    let backupCoordinator = NSPersistentStoreCoordinator(managedObjectModel: container.managedObjectModel)
    let source = try backupCoordinator.addPersistentStore(ofType: store.type, configurationName: nil, at: storeURL,
                                                          options: [NSReadOnlyPersistentStoreOption: true])
    _ = try backupCoordinator.migratePersistentStore(source, to: url, options: nil, withType: NSSQLiteStoreType)
}

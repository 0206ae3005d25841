//
//  JournalContainer.swift
//  Journal
//
//  A container subclass, as Apple's documentation recommends for apps that keep their model in a framework.
//

import CoreData

public final class JournalContainer: NSPersistentContainer {
    override public class func defaultDirectoryURL() -> URL {
        super.defaultDirectoryURL().appendingPathComponent("Journal", isDirectory: true)
    }

    /// A container for the store at `url` of `type`, with persistent history where the store keeps it, the
    /// view context merging from its parent and object-trump merging, as apps set it up.
    public static func make(storeURL url: URL, type: String) throws -> JournalContainer {
        let container = JournalContainer(name: "Journal")
        let description = NSPersistentStoreDescription(url: url)
        description.type = type
        description.shouldMigrateStoreAutomatically = true
        description.shouldInferMappingModelAutomatically = true
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        container.persistentStoreDescriptions = [description]

        var loadError: Error?
        container.loadPersistentStores { _, error in
            loadError = error
        }
        if let loadError {
            throw loadError
        }
        container.viewContext.automaticallyMergesChangesFromParent = true
        container.viewContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        container.viewContext.name = "viewContext"
        container.viewContext.transactionAuthor = "app"
        return container
    }

    /// Saves the view context if it has changes, as apps' `saveContext()` does.
    public func saveContext() throws {
        let context = viewContext
        if context.hasChanges {
            try context.save()
        }
    }
}

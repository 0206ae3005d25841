import Testing
import CoreData
import StoreTestSupport

/// `NSPersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:options:)`: a SQLite store's
/// metadata replaced without adding the store, kept by a later open; the store types that cannot do it say so.
@Suite struct MetadataWithoutAddingTests {
    @Test func aSQLiteStoresMetadataIsReplacedInTheFile() throws {
        let directory = TemporaryDirectory(prefix: "metadata")
        let url = directory.file("store.sqlite")
        try populate(try openStore(.sqlite, at: url, model: everyTypeModel()), items: 2)
        let before = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)

        var metadata = before
        metadata["appVersion"] = "2.1"
        metadata[NSStoreUUIDKey] = nil
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)

        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(after["appVersion"] as? String == "2.1")
        #expect(after[NSStoreUUIDKey] as? String == before[NSStoreUUIDKey] as? String, "the store keeps its UUID")
        let context = try openStore(.sqlite, at: url, model: everyTypeModel())
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(store.metadata["appVersion"] as? String == "2.1", "an open reads the new metadata")
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 2)
    }

    @Test func missingFilesAndOtherStoreTypesAreErrors() throws {
        let directory = TemporaryDirectory(prefix: "metadata")
        let missing = errorCode { try NSPersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: NSSQLiteStoreType, at: directory.file("none.sqlite")) }
        #expect(missing == NSFileReadNoSuchFileError)
        let xml = directory.file("store.xml")
        _ = try openStore(.xml, at: xml, model: everyTypeModel())
        let unsupported = errorCode { try NSPersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: NSXMLStoreType, at: xml) }
        #expect(unsupported == NSPersistentStoreUnsupportedRequestTypeError)
    }
}

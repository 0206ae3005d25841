import Testing
import CoreData
import StoreTestSupport
import CoreDataBinary

/// Keys, versions and high-water marks near `Int64.max` in a well-formed binary file: damage, never a trap.
@Suite struct BinaryKeyLimitTests {
    /// A store file holding one Tag, read back, changed by `edit` and written again by the store's encoder
    /// (so length and checksum are right and only the numbers are wrong).
    private func crafted(_ edit: (inout AtomicStoreSnapshot) -> Void) throws -> (TemporaryDirectory, URL, Data) {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let model = everyTypeModel()
        let context = try openStore(.binary, at: url, model: model)
        try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("t", forKey: "name")
            try context.save()
        }
        var snapshot = try BinaryStore.readSnapshot(from: url)
        edit(&snapshot)
        let writer = try BinaryStore(StoreOpenRequest(model: model, configurationName: nil, url: directory.file("scratch.binary"), options: [:]))
        let craftedURL = directory.file("crafted.binary")
        try writer.writeSnapshot(snapshot, to: craftedURL)
        return (directory, craftedURL, try Data(contentsOf: craftedURL))
    }

    @Test(arguments: ["key", "version", "high-water mark"])
    func hugeNumbersAreDamage(_ field: String) throws {
        let (directory, url, contents) = try crafted { snapshot in
            switch field {
            case "key": snapshot.objects[0].reference.primaryKey = Int64.max
            case "version": snapshot.objects[0].version = Int64.max
            default: snapshot.primaryKeyHighWater["Tag"] = StoreNumberLimits.largestStoredNumber + 1
            }
        }
        let code = errorCode { _ = try openStore(.binary, at: url, model: everyTypeModel()) }
        #expect(code == NSFileReadCorruptFileError, "a \(field) past the limit")
        #expect(try Data(contentsOf: url) == contents, "the file is left as it was")
        _ = directory
    }

    @Test func runningOutOfKeysFailsTheSave() throws {
        let (directory, url, contents) = try crafted { $0.primaryKeyHighWater["Tag"] = StoreNumberLimits.largestStoredNumber }
        let code = try saveCodeAfterInsertingATag(.binary, at: url)
        #expect(code == NSPersistentStoreSaveError)
        #expect(try Data(contentsOf: url) == contents, "nothing was written")
        _ = directory
    }
}

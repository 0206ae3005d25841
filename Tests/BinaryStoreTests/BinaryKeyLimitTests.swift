import Testing
import CoreData
import StoreTestSupport
@testable import CoreDataBinary

/// Keys, versions and high-water marks near `Int64.max` in a well-formed binary file: damage, never a trap.
@Suite struct BinaryKeyLimitTests {
    /// A store file holding one Tag, read back, changed by `edit` and written again by the store's encoder
    /// (so lengths and checksum are right and only the numbers are wrong): in Apple's format, or in the earlier
    /// one (`legacy`), which also records versions.
    private func crafted(legacy: Bool = false, _ edit: (inout AtomicStoreSnapshot) -> Void) throws -> (TemporaryDirectory, URL, Data) {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        let model = everyTypeModel()
        let context = try openStore(.binary, at: url, model: model)
        try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("t", forKey: "name")
            try context.save()
        }
        let request = StoreOpenRequest(model: model, configurationName: nil, url: url, options: [:])
        var snapshot = try BinaryStore.matchNames(in: BinaryStore.readSnapshot(from: url), to: request)
        edit(&snapshot)
        let craftedURL = directory.file("crafted.binary")
        if legacy {
            try Data(BinaryStoreEncoder().encode(snapshot)).write(to: craftedURL)
        } else {
            let writer = try BinaryStore(StoreOpenRequest(model: model, configurationName: nil, url: directory.file("scratch.binary"), options: [:]))
            try writer.writeSnapshot(snapshot, to: craftedURL)
        }
        return (directory, craftedURL, try Data(contentsOf: craftedURL))
    }

    @Test(arguments: ["key", "version", "high-water mark"])
    func hugeNumbersAreDamage(_ field: String) throws {
        // Apple's format records no versions: the version case uses the earlier format.
        let (directory, url, contents) = try crafted(legacy: field == "version") { snapshot in
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

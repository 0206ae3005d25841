import Testing
import CoreData
import StoreTestSupport
import CoreDataBinary
import CoreDataXML

/// Load and save times of 100,000 objects in the binary, XML and SQLite stores, in one run, for
/// `Docs/Performance.md`.
/// Runs only when `COREDATA_BENCHMARK` is set; use a release build:
/// `COREDATA_BENCHMARK=1 swift test -c release --filter AtomicStoreBenchmark`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["COREDATA_BENCHMARK"] != nil, "set COREDATA_BENCHMARK=1 to run"))
struct AtomicStoreBenchmark {
    static let objectCount = 100_000

    private func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    @Test(arguments: [NSBinaryStoreType, NSXMLStoreType, NSSQLiteStoreType])
    func loadAndSave100k(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory()
        let url = directory.file("bench.\(typeName.lowercased())")
        let model = everyTypeModel()
        let itemEntity = try #require(model.entitiesByName["Item"])

        let context = try openStore(type, at: url, model: model)
        var insertSave = 0.0, rewrite = 0.0
        try context.performAndWait { () throws -> Void in
            for index in 0..<Self.objectCount {
                let item = NSManagedObject(entity: itemEntity, insertInto: context)
                item.setValue("item number \(index)", forKey: "title")
                item.setValue(Int64(index) * 7, forKey: "count64")
                item.setValue(Int16(truncatingIfNeeded: index), forKey: "count16")
                item.setValue(Double(index) / 3, forKey: "ratio")
                item.setValue(index % 2 == 0, forKey: "isDone")
                item.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index)), forKey: "createdAt")
            }
            insertSave = try seconds { try context.save() }
            let one = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
            one.setValue("changed", forKey: "title")
            rewrite = try seconds { try context.save() }
        }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0

        var reopened: NSManagedObjectContext?
        let open = try seconds { reopened = try openStore(type, at: url, model: model) }
        let loaded = try #require(reopened)
        var count = 0
        let fetch = try seconds {
            try loaded.performAndWait { () throws -> Void in
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.returnsObjectsAsFaults = false
                count = try loaded.fetch(request).count
            }
        }
        #expect(count == Self.objectCount)

        func ms(_ value: Double) -> String { String(format: "%.0f ms", value * 1000) }
        let summary = "BENCHMARK \(typeName): file \(size / 1024) KiB | save 100k inserts \(ms(insertSave)) | save after 1 change \(ms(rewrite)) | open \(ms(open)) | fetch all \(ms(fetch))"
        guard typeName != NSSQLiteStoreType else {
            print(summary + " | format only: not an atomic store")
            return
        }
        // The file format alone: reading the file into a snapshot, and writing a snapshot to a new file.
        let storeClass: AtomicStore.Type = typeName == NSXMLStoreType ? XMLStore.self : BinaryStore.self
        var snapshot: AtomicStoreSnapshot?
        let read = try seconds { snapshot = try storeClass.readSnapshot(from: url) }
        let writer = try storeClass.init(StoreOpenRequest(model: model, configurationName: nil, url: nil, options: [:]))
        let copy = directory.file("copy")
        let write = try seconds { try writer.writeSnapshot(try #require(snapshot), to: copy) }
        #expect(snapshot?.objects.count == Self.objectCount)

        print(summary + " | format only: read \(ms(read)), write \(ms(write))")
    }
}

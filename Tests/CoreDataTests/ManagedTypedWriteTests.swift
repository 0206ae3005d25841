import Foundation
import Testing
import CoreData

/// Sets through `@Managed` properties (`TypedSample`, from `ManagedTypedReadTests`): in the attribute's own type, in
/// other types converted to it, through a property named for another attribute, and nil through an optional. Each
/// set lands in its attribute's slot, is a change of the object (reported as an update of a saved object), and is
/// what a reopened store holds.
@Suite struct ManagedTypedWriteTests {
    static func read(_ url: URL, _ model: NSManagedObjectModel) throws -> [String: Any] {
        let reader = try ManagedTypedReadTests.context(model, at: url)
        return try reader.performAndWait {
            let sample = try #require(try reader.fetch(NSFetchRequest<TypedSample>(entityName: "TypedSample")).first)
            return sample.committedValues(forKeys: ["small", "medium", "large", "ratio", "name", "note"])
        }
    }

    @Test func setsThroughEveryKindOfPropertyLandInTheirAttributesAfterReopening() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-writes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        let model = ManagedTypedReadTests.model()
        let writer = try ManagedTypedReadTests.context(model, at: url)
        let sample = try writer.performAndWait {
            let sample = TypedSample(context: writer)
            sample.small = 3
            sample.largeAsInt = 41  // an Int converted to the Int64 attribute `large`
            sample.ratio = 0.5
            sample.mediumAsOptional = 12  // an optional of the storage type, named for `medium`
            sample.nameAsOptional = "named"
            sample.note = "first"
            #expect(sample.value(forKey: "large") as? NSNumber == 41)
            #expect(sample.large == 41 && sample.medium == 12 && sample.name == "named")
            try writer.save()
            return sample
        }
        var values = try Self.read(url, model)
        #expect(values["small"] as? NSNumber == 3)
        #expect(values["large"] as? NSNumber == 41)
        #expect(values["medium"] as? NSNumber == 12)
        #expect(values["ratio"] as? NSNumber == 0.5)
        #expect(values["name"] as? String == "named")
        #expect(values["note"] as? String == "first")

        // On the saved object: each set is a change, reported as an update, and written by the next save.
        try writer.performAndWait {
            var updated: Set<NSManagedObject> = []
            let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: writer, queue: nil) { note in
                updated.formUnion(note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? [])
            }
            defer { NotificationCenter.default.removeObserver(token) }
            sample.largeAsDouble = 1e10  // a Double converted to the Int64 attribute
            sample.small = -3
            sample.mediumAsOptional = nil  // nil through an optional
            sample.note = nil
            #expect(Set(sample.changedValues().keys) == ["large", "small", "medium", "note"])
            writer.processPendingChanges()
            #expect(updated == [sample])
            #expect(sample.large == 10_000_000_000 && sample.mediumAsOptional == nil && sample.medium == 0)
            try writer.save()
            #expect(!sample.hasChanges)
        }
        values = try Self.read(url, model)
        #expect(values["small"] as? NSNumber == -3)
        #expect(values["large"] as? NSNumber == 10_000_000_000)
        #expect(values["medium"] is NSNull)
        #expect(values["note"] is NSNull)
        #expect(values["name"] as? String == "named")
    }
}

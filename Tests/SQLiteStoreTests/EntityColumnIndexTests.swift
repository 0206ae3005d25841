import CoreData
import Foundation
import Testing

/// A table shared by subentities has an index on `Z_ENT` (`<TABLE>_Z_ENT_INDEX`) unless the root entity's
/// `userInfo` has `_NSEntityOmitSubentityColumnIndex` set to a string reading `yes` or `1` (any case), as in
/// Apple's store; any other value keeps the index (SQLiteStore.md, "Schema").
@Suite struct EntityColumnIndexTests {
    static func model(option: Any?) -> NSManagedObjectModel {
        let animal = NSEntityDescription(name: "Animal")
        let dog = NSEntityDescription(name: "Dog")
        animal.properties = [NSAttributeDescription(name: "name", type: .string)]
        dog.properties = [NSAttributeDescription(name: "breed", type: .string)]
        animal.subentities = [dog]
        if let option { animal.userInfo = ["_NSEntityOmitSubentityColumnIndex": option] }
        return NSManagedObjectModel(entities: [animal, dog])
    }

    @Test(arguments: [("YES", false), ("yes", false), ("1", false), ("no", true), ("0", true), ("true", true)])
    func theEntityColumnIndexFollowsTheOption(_ option: String, _ indexed: Bool) throws {
        try Self.check(option: option, indexed: indexed)
    }

    @Test func withoutTheOptionOrWithANumberTheIndexIsMade() throws {
        try Self.check(option: nil, indexed: true)
        try Self.check(option: NSNumber(value: 1), indexed: true)
    }

    /// Creates a store, saves a dog, reopens it: the index is there or not, and the dog reads back.
    static func check(option: Any?, indexed: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: model(option: option), url: url)
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Dog", into: stack.context).setValue("Rex", forKey: "name")
            try stack.context.save()
        }
        try stack.close()
        let indexes = RawSQLite.rows(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZANIMAL'").map { $0[0] }
        #expect(indexes.contains("ZANIMAL_Z_ENT_INDEX") == indexed, "\(String(describing: option)): \(indexes)", sourceLocation: sourceLocation)
        let reopened = try Stack(model: model(option: option), url: url)
        defer { try? reopened.close() }
        #expect(try reopened.fetch("Dog").count == 1, sourceLocation: sourceLocation)
    }
}

import Foundation
import Testing
import CoreData

/// Numbers, a date, a decimal, a UUID (values a shared slot array is copied bit for bit for on the first write) and a
/// string (which makes the array copy itself).
final class CopySample: NSManagedObject {
    @Managed var count: Int64
    @Managed var small: Int16
    @Managed var ratio: Double
    @Managed var flag: Bool
    @Managed var moment: Date
    @Managed var amount: Decimal
    @Managed var token: UUID
    @Managed var label: String?
}

/// The first write to a new object (which shares its entity's default values) or to a fetched one (which shares its
/// committed values) changes that object's value only: the object's other values, other objects' values, the entity's
/// defaults and the committed values stay as they were, before and after a save and a reopen.
@Suite struct FirstWriteCopyTests {
    static let token = UUID(uuid: (9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6))
    static let moment = Date(timeIntervalSinceReferenceDate: 1_000.25)

    static func model() -> NSManagedObjectModel {
        let entity = NSEntityDescription(name: "CopySample")
        entity.managedObjectClassName = "CopySample"
        entity.properties = [
            NSAttributeDescription(name: "count", type: .integer64, defaultValue: 7),
            NSAttributeDescription(name: "small", type: .integer16, defaultValue: 3),
            NSAttributeDescription(name: "ratio", type: .double, defaultValue: 1.5),
            NSAttributeDescription(name: "flag", type: .boolean, defaultValue: true),
            NSAttributeDescription(name: "moment", type: .date, defaultValue: moment),
            NSAttributeDescription(name: "amount", type: .decimal, defaultValue: Decimal(string: "2.25")!),
            NSAttributeDescription(name: "token", type: .uuid, defaultValue: token),
            NSAttributeDescription(name: "label", type: .string),
        ]
        return NSManagedObjectModel(entities: [entity])
    }

    /// The values of a sample, compared as text.
    static func values(_ sample: CopySample) -> [String] {
        ["\(sample.count)", "\(sample.small)", "\(sample.ratio)", "\(sample.flag)", "\(sample.moment.timeIntervalSinceReferenceDate)",
         "\(sample.amount)", sample.token.uuidString, sample.label ?? "nil"]
    }

    static let defaults = ["7", "3", "1.5", "true", "1000.25", "2.25", token.uuidString, "nil"]

    /// The default values with some changed, by position in `values(_:)`.
    static func defaults(changing changes: [Int: String]) -> [String] {
        var result = defaults
        for (index, value) in changes { result[index] = value }
        return result
    }

    static let longLabel = "a label longer than fifteen bytes"

    @Test func newObjectsEachChangeOnlyTheirOwnValues() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FirstWriteCopyTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("samples.sqlite")
        let model = Self.model()
        let context = try ManagedTypedReadTests.context(model, at: url)
        try context.performAndWait {
            let first = CopySample(context: context)
            first.count = 9
            let second = CopySample(context: context)
            #expect(Self.values(second) == Self.defaults)
            second.setValue(4.0, forKey: "ratio")
            let third = CopySample(context: context)
            third.label = Self.longLabel
            third.small = 5
            let firstValues: [String] = Self.defaults(changing: [0: "9"])
            #expect(Self.values(first) == firstValues)
            let secondValues: [String] = Self.defaults(changing: [2: "4.0"])
            #expect(Self.values(second) == secondValues)
            let thirdValues: [String] = Self.defaults(changing: [1: "5", 7: Self.longLabel])
            #expect(Self.values(third) == thirdValues)
            #expect(Self.values(CopySample(context: context)) == Self.defaults)
            try context.save()
        }
        let reopened = try ManagedTypedReadTests.context(model, at: url)
        try reopened.performAndWait {
            let request = NSFetchRequest<CopySample>(entityName: "CopySample")
            request.sortDescriptors = [NSSortDescriptor(key: "count", ascending: false), NSSortDescriptor(key: "small", ascending: true),
                                       NSSortDescriptor(key: "ratio", ascending: false)]
            let found: [[String]] = try reopened.fetch(request).map(Self.values)
            let expected: [[String]] = [Self.defaults(changing: [0: "9"]), Self.defaults(changing: [2: "4.0"]), Self.defaults,
                                        Self.defaults(changing: [1: "5", 7: Self.longLabel])]
            #expect(found == expected)
        }
    }

    @Test func fetchedObjectsKeepTheirCommittedValuesUntilSaved() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FirstWriteCopyTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("samples.sqlite")
        let model = Self.model()
        let context = try ManagedTypedReadTests.context(model, at: url)
        try context.performAndWait {
            _ = CopySample(context: context)
            CopySample(context: context).label = "labelled"
            try context.save()
        }
        let reopened = try ManagedTypedReadTests.context(model, at: url)
        try reopened.performAndWait {
            let request = NSFetchRequest<CopySample>(entityName: "CopySample")
            request.sortDescriptors = [NSSortDescriptor(key: "label", ascending: true)]
            let samples = try reopened.fetch(request)
            try #require(samples.count == 2)
            for sample in samples {
                let label = sample.label ?? "nil"
                sample.count = 11
                sample.amount = Decimal(string: "5.5")!
                let changed: [String] = Self.defaults(changing: [0: "11", 5: "5.5", 7: label])
                #expect(Self.values(sample) == changed)
                let committed = sample.committedValues(forKeys: ["count", "amount", "token"])
                #expect((committed["count"] as? NSNumber)?.int64Value == 7)
                #expect((committed["amount"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "2.25")!)
                #expect((committed["token"] as? UUID) == Self.token)
            }
            reopened.rollback()
            let rolledBack: [[String]] = samples.map(Self.values)
            #expect(rolledBack == [Self.defaults, Self.defaults(changing: [7: "labelled"])])
            samples[0].small = 4
            try reopened.save()
        }
        let again = try ManagedTypedReadTests.context(model, at: url)
        try again.performAndWait {
            let request = NSFetchRequest<CopySample>(entityName: "CopySample")
            request.sortDescriptors = [NSSortDescriptor(key: "label", ascending: true)]
            let saved: [[String]] = try again.fetch(request).map(Self.values)
            #expect(saved == [Self.defaults(changing: [1: "4"]), Self.defaults(changing: [7: "labelled"])])
        }
    }
}

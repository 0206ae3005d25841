import Foundation
import Testing
import CoreData

/// One `@Managed` property of each attribute storage type, in the property's own type (read without a dynamic
/// cast), and properties of other types that read the same attributes through conversion.
final class TypedSample: NSManagedObject {
    @Managed var small: Int16
    @Managed var medium: Int32
    @Managed var large: Int64
    @Managed var ratio: Double
    @Managed var fraction: Float
    @Managed var flag: Bool
    @Managed var amount: Decimal
    @Managed var name: String
    @Managed var note: String?
    @Managed var moment: Date
    @Managed var bytes: Data
    @Managed var token: UUID
    @Managed var link: URL
    @Managed var tags: [String]?
    @Managed("large") var largeAsInt: Int
    @Managed("large") var largeAsDouble: Double
    @Managed("medium") var mediumAsOptional: Int32?
    @Managed("name") var nameAsOptional: String?
}

@Suite struct ManagedTypedReadTests {
    static func model() -> NSManagedObjectModel {
        let entity = NSEntityDescription(name: "TypedSample")
        entity.properties = [
            NSAttributeDescription(name: "small", type: .integer16, defaultValue: 0),
            NSAttributeDescription(name: "medium", type: .integer32, defaultValue: 0),
            NSAttributeDescription(name: "large", type: .integer64, defaultValue: 0),
            NSAttributeDescription(name: "ratio", type: .double, defaultValue: 0),
            NSAttributeDescription(name: "fraction", type: .float, defaultValue: 0),
            NSAttributeDescription(name: "flag", type: .boolean, defaultValue: false),
            NSAttributeDescription(name: "amount", type: .decimal),
            NSAttributeDescription(name: "name", type: .string),
            NSAttributeDescription(name: "note", type: .string),
            NSAttributeDescription(name: "moment", type: .date),
            NSAttributeDescription(name: "bytes", type: .binaryData),
            NSAttributeDescription(name: "token", type: .uuid),
            NSAttributeDescription(name: "link", type: .uri),
            NSAttributeDescription(name: "tags", type: .transformable),
        ]
        return NSManagedObjectModel(entities: [entity])
    }

    static func context(_ model: NSManagedObjectModel, at url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static let token = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    static let moment = Date(timeIntervalSinceReferenceDate: 123_456.5)
    static let longName = "a name longer than fifteen bytes, stored out of line: ü"

    /// What `sample` reads, through every property, after the values `write` sets.
    static func expectWritten(_ sample: TypedSample) {
        #expect(sample.small == -12)
        #expect(sample.medium == 70_000)
        #expect(sample.large == 5_000_000_000)
        #expect(sample.ratio == 2.25)
        #expect(sample.fraction == 1.5)
        #expect(sample.flag == true)
        #expect(sample.amount == Decimal(string: "1234.5678"))
        #expect(sample.name == longName)
        #expect(sample.note == nil)
        #expect(sample.moment == moment)
        #expect(sample.bytes == Data([0, 1, 2, 250]))
        #expect(sample.token == token)
        #expect(sample.link == URL(string: "https://example.com/a?b=c"))
        #expect(sample.tags == ["one", "two"])
        #expect(sample.largeAsInt == 5_000_000_000, "an Int64 attribute read as Int converts")
        #expect(sample.largeAsDouble == 5_000_000_000, "an Int64 attribute read as Double converts")
        #expect(sample.mediumAsOptional == 70_000, "an optional of the storage type")
        #expect(sample.nameAsOptional == longName)
    }

    @Test func everyStorageTypeReadsBackThroughItsOwnTypeAndThroughConversionsAfterReopening() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-reads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        let model = Self.model()
        let writer = try Self.context(model, at: url)
        try writer.performAndWait {
            let sample = TypedSample(context: writer)
            sample.small = -12
            sample.medium = 70_000
            sample.large = 5_000_000_000
            sample.ratio = 2.25
            sample.fraction = 1.5
            sample.flag = true
            sample.amount = Decimal(string: "1234.5678") ?? 0
            sample.name = Self.longName
            sample.note = nil
            sample.moment = Self.moment
            sample.bytes = Data([0, 1, 2, 250])
            sample.token = Self.token
            sample.link = URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")
            sample.tags = ["one", "two"]
            Self.expectWritten(sample)
            try writer.save()
            Self.expectWritten(sample)
        }
        let reader = try Self.context(model, at: url)
        try reader.performAndWait {
            let fetched = try reader.fetch(NSFetchRequest<TypedSample>(entityName: "TypedSample"))
            #expect(fetched.count == 1)
            guard let sample = fetched.first else { return }
            Self.expectWritten(sample)
            sample.large = 7
            sample.note = "set"
            #expect(sample.large == 7 && sample.largeAsInt == 7 && sample.note == "set")
            sample.setValue(NSNumber(value: 9), forKey: "large")
            #expect(sample.large == 9, "a value set through key-value coding, converted to the storage type")
        }
    }

    @Test func aValueOfAnotherTypeKeptForValidationReadsThroughTheCast() throws {
        let context = try inMemoryContext(model: Self.model())
        context.performAndWait {
            let sample = TypedSample(context: context)
            sample.setValue("not a number", forKey: "large")
            #expect(sample.large == 0, "a value that is not the attribute's type reads as the empty value")
            #expect(sample.value(forKey: "large") as? String == "not a number")
            sample.setValue(nil, forKey: "name")
            #expect(sample.name == "" && sample.nameAsOptional == nil)
        }
    }
}

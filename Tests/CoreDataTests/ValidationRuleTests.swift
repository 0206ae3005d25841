import CoreData
import Foundation
import Testing

/// The value rules of Xcode's model editor (minimum and maximum of numbers, dates and string or data lengths, a
/// regular expression) give Apple's validation errors at save and from `validateValue(_:forKey:)`, on a model
/// read from an `.xcdatamodel` file, as an app loads it. Tests that use a container's view context run on the main
/// actor, as an app's view context code does.
@Suite struct ValidationRuleTests {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Ticket" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="seats" attributeType="Integer 16" minValueString="1" maxValueString="10" defaultValueString="1" usesScalarValueType="YES"/>
                <attribute name="code" optional="YES" attributeType="String" minValueString="2" maxValueString="5" regularExpressionString="[A-Z]+"/>
                <attribute name="issued" optional="YES" attributeType="Date" minDateTimeInterval="0" maxDateTimeInterval="1000000000"/>
                <attribute name="stamp" optional="YES" attributeType="Binary" maxValueString="4"/>
                <attribute name="price" optional="YES" attributeType="Double" minValueString="0.5"/>
            </entity>
        </model>
        """

    private let folder: URL
    private let model: NSManagedObjectModel

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ValidationRuleTests-\(UUID().uuidString)")
        let modelFolder = folder.appendingPathComponent("Tickets.xcdatamodel")
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
        try Data(Self.contents.utf8).write(to: modelFolder.appendingPathComponent("contents"))
        model = try #require(NSManagedObjectModel(contentsOf: modelFolder))
    }

    private func container() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Tickets", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: folder.appendingPathComponent("Tickets.sqlite"))]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    @Test(arguments: [
        ("seats", 11 as Any, NSValidationNumberTooLargeError), ("seats", 0 as Any, NSValidationNumberTooSmallError),
        ("code", "ABCDEF" as Any, NSValidationStringTooLongError), ("code", "A" as Any, NSValidationStringTooShortError),
        ("code", "abc" as Any, NSValidationStringPatternMatchingError),
        ("issued", Date(timeIntervalSinceReferenceDate: 2_000_000_000) as Any, NSValidationDateTooLateError),
        ("issued", Date(timeIntervalSinceReferenceDate: -5) as Any, NSValidationDateTooSoonError),
        ("stamp", Data([1, 2, 3, 4, 5]) as Any, NSValidationStringTooLongError), ("price", 0.25 as Any, NSValidationNumberTooSmallError),
    ]) @MainActor
    func aValueBreakingARuleFailsTheSaveWithApplesCode(key: String, value: Any, code: Int) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = try container().viewContext
        let ticket = NSEntityDescription.insertNewObject(forEntityName: "Ticket", into: context)
        ticket.setValue(value, forKey: key)
        var checked: Any? = value
        let direct = #expect(throws: NSError.self) { try ticket.validateValue(&checked, forKey: key) }
        #expect(direct?.code == code && direct?.domain == NSCocoaErrorDomain)
        let saving = #expect(throws: NSError.self) { try context.save() }
        #expect(saving?.code == code, "\(saving?.localizedDescription ?? "")")
        #expect(saving?.userInfo[NSValidationKeyErrorKey] as? String == key)
        #expect(saving?.localizedDescription.contains(key) == true)
    }

    @Test @MainActor func valuesWithinTheRulesSaveAndReopen() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = try container().viewContext
        let ticket = NSEntityDescription.insertNewObject(forEntityName: "Ticket", into: context)
        ticket.setValue(10, forKey: "seats")
        ticket.setValue("AB", forKey: "code")
        ticket.setValue(Date(timeIntervalSinceReferenceDate: 1_000_000_000), forKey: "issued")
        ticket.setValue(Data([1, 2, 3, 4]), forKey: "stamp")
        ticket.setValue(0.5, forKey: "price")
        try context.save()
        let reopened = try container().viewContext
        let saved = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Ticket"))
        #expect(saved.count == 1)
        #expect((saved.first?.value(forKey: "seats") as? NSNumber)?.intValue == 10)
        #expect(saved.first?.value(forKey: "code") as? String == "AB")
    }

    @Test @MainActor func severalBrokenRulesAreReportedTogether() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = try container().viewContext
        let ticket = NSEntityDescription.insertNewObject(forEntityName: "Ticket", into: context)
        ticket.setValue(99, forKey: "seats")
        ticket.setValue("lower", forKey: "code")
        let error = #expect(throws: NSError.self) { try context.save() }
        #expect(error?.code == NSValidationMultipleErrorsError)
        let codes = Set((error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []).map(\.code))
        #expect(codes == [NSValidationNumberTooLargeError, NSValidationStringPatternMatchingError])
    }

    /// `validateForUpdate()` on a fault checks the stored values (it fires the fault), as Apple's does.
    @Test func aFaultIsValidatedWithItsStoredValues() throws {
        let person = NSEntityDescription(name: "Person")
        person.properties = [NSAttributeDescription(name: "name", type: .string, isOptional: false)]
        let writer = try inMemoryContext(model: NSManagedObjectModel(entities: [person]))
        let id = try writer.performAndWait { () throws -> NSManagedObjectID in
            let object = NSEntityDescription.insertNewObject(forEntityName: "Person", into: writer)
            object.setValue("Ann", forKey: "name")
            try writer.save()
            return object.objectID
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = writer.persistentStoreCoordinator
        try reader.performAndWait {
            let fault = reader.object(with: id)
            #expect(fault.isFault)
            try fault.validateForUpdate()
        }
    }
}

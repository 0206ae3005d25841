import CoreData
import Foundation
import GeneratedModelExample
import Testing

/// The classes `CoreDataModelPlugin` generated from `Company.xcdatamodeld`, used as an app uses them: made with
/// `init(context:)`, filled through typed `@Managed` properties and relationship accessors, saved, and read back
/// after a reopen with `fetchRequest()` and `NSPredicate(format:)`. This suite fails when the generated code
/// does not compile or does not work.
@Suite @MainActor struct GeneratedClassTests {
    static let birthday = Date(timeIntervalSince1970: 631_152_000)
    static let id = UUID(uuidString: "6B1E4A57-0C7B-4E0B-9D35-2A4B7C9D1E2F")!

    @Test(arguments: CompanyStore.allCases)
    func everyAttributeTypeRoundTrips(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        let ada = Person(context: stack.context)
        ada.name = "Ada"
        ada.nickname = "Countess"
        ada.age = 36
        ada.level = 7
        ada.badge = 9_007_199_254_740_993
        ada.rating = 4.75
        ada.height = 1.65
        ada.active = false
        ada.salary = Decimal(string: "1234.56")
        ada.birthday = Self.birthday
        ada.photo = Data([0, 1, 2, 255])
        ada.id = Self.id
        ada.homepage = URL(string: "https://example.com/ada")
        let plain = Person(context: stack.context)
        plain.name = "Plain"
        try stack.context.save()

        let context = try stack.reopened()
        let request: NSFetchRequest<Person> = Person.fetchRequest()
        let found = try fetchOne(request, in: context, "name == %@", "Ada")
        #expect(found.nickname == "Countess")
        #expect(found.age == 36)
        #expect(found.level == 7)
        #expect(found.badge == 9_007_199_254_740_993)
        #expect(found.rating == 4.75)
        #expect(found.height == 1.65)
        #expect(found.active == false)
        #expect(found.salary == Decimal(string: "1234.56"))
        #expect(found.birthday == Self.birthday)
        #expect(found.photo == Data([0, 1, 2, 255]))
        #expect(found.id == Self.id)
        #expect(found.homepage == URL(string: "https://example.com/ada"))

        // Defaults from the model, and nil for optional values never set.
        let other = try fetchOne(Person.fetchRequest() as NSFetchRequest<Person>, in: context, "name == %@", "Plain")
        #expect(other.active == true)
        #expect(other.age == 0)
        #expect(other.level == nil, "usesScalarValueType=NO gives an optional scalar")
        #expect(other.nickname == nil)
        #expect(other.homepage == nil)
    }

    @Test(arguments: CompanyStore.allCases)
    func predicatesOverGeneratedAttributes(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        for (name, age, rating) in [("Ada", 36, 4.5), ("Grace", 85, 5.0), ("Linus", 28, 3.0)] as [(String, Int16, Double)] {
            let person = Person(context: stack.context)
            person.name = name
            person.age = age
            person.rating = rating
            person.birthday = Self.birthday.addingTimeInterval(Double(age) * 86_400)
        }
        try stack.context.save()

        let context = try stack.reopened()
        let request: NSFetchRequest<Person> = Person.fetchRequest()
        request.predicate = NSPredicate(format: "age > %d AND rating >= %f", 30, 4.5)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(try context.fetch(request).map(\.name) == ["Ada", "Grace"])
        request.predicate = NSPredicate(format: "name BEGINSWITH[c] %@ OR birthday < %@", "li", Self.birthday.addingTimeInterval(30 * 86_400) as NSDate)
        #expect(try context.fetch(request).map(\.name) == ["Linus"])
        request.predicate = NSPredicate(format: "nickname == nil")
        #expect(try context.count(for: request) == 3)
    }

    @Test(arguments: CompanyStore.allCases)
    func requiredAttributeIsValidatedOnSave(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        let nameless = Person(context: stack.context)
        nameless.nickname = "no name"
        let error = #expect(throws: NSError.self) { try stack.context.save() }
        #expect(error?.code == NSValidationMissingMandatoryPropertyError)
        nameless.name = "Named"
        try stack.context.save()
        let request: NSFetchRequest<Person> = Person.fetchRequest()
        #expect(try stack.reopened().count(for: request) == 1)
    }
}

import CoreData
import Foundation
import GeneratedModelExample
import Testing

/// An entity whose Codegen setting is Category/Extension: the class is written by hand, the build plugin writes
/// the extension with its `@NSManaged` properties and relationship methods, and generates their accessors.
@Suite @MainActor struct CategoryCodegenTests {
    @Test(arguments: CompanyStore.allCases)
    func generatedExtensionPropertiesWorkAndPersist(_ kind: CompanyStore) throws {
        let stack = try CompanyStack(kind)
        let context = stack.context
        let badge = Badge(context: context)
        badge.code = "GOLD"
        badge.level += 2
        let office = Office(context: context)
        office.city = "Lyon"
        badge.addToHolders(office)
        #expect(badge.label == "GOLD-3")
        #expect(office.badges?.count == 1, "the inverse follows the generated relationship method")
        try context.save()

        let reopened = try stack.reopened()
        let saved = try reopened.fetch(Badge.fetchRequest())
        #expect(saved.map(\.label) == ["GOLD-3"])
        #expect((saved.first?.holders?.allObjects as? [Office])?.map(\.city) == ["Lyon"])
    }
}

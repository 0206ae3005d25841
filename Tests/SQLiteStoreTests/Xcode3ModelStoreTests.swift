import CoreData
import Foundation
import Testing

/// Apple's sample stores open with the Xcode 3 models they were made with, read from the models' `elements`
/// archives, and save through them.
struct Xcode3ModelStoreTests {
    struct Case: CustomStringConvertible, Sendable {
        let store: String
        let model: String
        let counts: [String: Int]
        var description: String { model }
    }

    static let cases = [
        Case(store: "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite", model: "fruitsamples__iPhoneCoreDataRecipes__Recipes.xcdatamodel",
             counts: ["Image": 7, "Ingredient": 31, "Recipe": 7, "RecipeType": 5]),
        Case(store: "gilpa__iphone_sqlite_test__CoreDataBooks.sqlite", model: "gilpa__iphone_sqlite_test__CoreDataBooks.xcdatamodel", counts: ["Book": 12]),
    ]

    @Test(.enabled(if: Fixtures.available), arguments: cases)
    func appleStoreOpensWithItsXcode3Model(_ test: Case) throws {
        let modelURL = try #require(Fixtures.root?.appendingPathComponent("apple/models/\(test.model)"))
        if !FileManager.default.fileExists(atPath: modelURL.path) { try Test.cancel("fixture \(test.model) is not in this fixture set") }
        let model = try NSManagedObjectModel.load(contentsOf: modelURL)
        let url = try Fixtures.copy(test.store)
        let stack = try Stack(model: model, url: url)
        for (entity, count) in test.counts {
            #expect(try stack.count(entity) == count, "\(entity)")
        }
        let entityName = try #require(test.counts.keys.sorted().first)
        try stack.context.performAndWait {
            let first = try #require(try stack.fetch(entityName).first)
            stack.context.delete(first)
            try stack.context.save()
        }
        #expect(try stack.count(entityName) == (test.counts[entityName] ?? 0) - 1)
        try stack.close()
    }
}

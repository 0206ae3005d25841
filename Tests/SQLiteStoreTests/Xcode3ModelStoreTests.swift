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

    /// The CoreDataBooks model file gained an attribute (`contents`) after Apple's sample wrote the store: its
    /// version hash differs from the store's, so the store refuses it, as Apple's Core Data does.
    @Test(.enabled(if: Fixtures.available)) func aModelChangedAfterTheStoreWasWrittenIsRefused() throws {
        let modelURL = try #require(Fixtures.root?.appendingPathComponent("apple/models/gilpa__iphone_sqlite_test__CoreDataBooks.xcdatamodel"))
        if !FileManager.default.fileExists(atPath: modelURL.path) { try Test.cancel("the CoreDataBooks model is not in this fixture set") }
        let model = try NSManagedObjectModel.load(contentsOf: modelURL)
        let url = try Fixtures.copy("gilpa__iphone_sqlite_test__CoreDataBooks.sqlite")
        let error = thrownError { _ = try Stack(model: model, url: url) }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.localizedDescription.contains("Book") == true)
    }
}

import CoreData
import Testing

/// The key-value coding conveniences of `NSObject` that managed objects have on Apple's platforms.
struct KeyValueCodingTests {
    @Test func keyPathsAndSeveralKeys() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            let book = Book(context: context)
            book.setValuesForKeys(["title": "Dune", "pages": 412, "author": author, "tags": NSNull()])
            book.setValue("Frank", forKeyPath: "author.name")
            #expect(author.name == "Frank" && book.pages == 412)
            #expect(book.value(forKeyPath: "author.name") as? String == "Frank")
            #expect((author.value(forKeyPath: "books.title") as? NSSet) == NSSet(array: ["Dune"]))
            let values = book.dictionaryWithValues(forKeys: ["title", "tags"])
            #expect(values["title"] as? String == "Dune" && values["tags"] is NSNull)
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(Book.fetchRequest()).first)
            #expect(fetched.hasFault(forRelationshipNamed: "author"))
            #expect(fetched.faultingState == 0)
            _ = fetched.author?.name
            #expect(!fetched.hasFault(forRelationshipNamed: "author"))
            #expect(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Author"]?.subentitiesByName.isEmpty == true)
        }
    }
}

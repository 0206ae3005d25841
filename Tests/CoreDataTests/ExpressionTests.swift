import Foundation
import CoreData
import Testing

/// `NSExpression` and `NSExpressionDescription`, written as Apple's documentation shows them, in a file that
/// imports Foundation too: `NSExpression(...)` resolves to the usable class there, and spelling the type needs
/// `CoreData.NSExpression` (Foundation on Linux declares an unusable class of the same name).
struct ExpressionTests {
    @Test func kindsAndParts() {
        let key = NSExpression(forKeyPath: "author.name")
        #expect(key.expressionType == .keyPath && key.keyPath == "author.name")
        let constant = NSExpression(forConstantValue: 42)
        #expect(constant.expressionType == .constantValue && (constant.constantValue as? Int64) == 42)
        let sum = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
        #expect(sum.expressionType == .function && sum.function == "sum:" && sum.arguments?.first?.keyPath == "pages")
        #expect(NSExpression.expressionForEvaluatedObject().expressionType == .evaluatedObject)
        #expect(NSExpression(forVariable: "limit").variable == "limit")
        #expect(CoreData.NSExpression.ExpressionType.function.rawValue == 4 && CoreData.NSExpression.ExpressionType.aggregate.rawValue == 14)
        #expect(sum.description == "sum:(pages)")
    }

    /// Apple's Swift overlay makes key-path expressions from Swift key paths; they name the same keys and fetch
    /// the same as the string spelling (WordPress's `CoreDataQuery` builds its queries so).
    @Test func swiftKeyPathsNameTheirProperties() throws {
        let context = try inMemoryContext()
        #expect(NSExpression(forKeyPath: \Book.title).keyPath == "title")
        #expect(NSExpression(forKeyPath: \Book.author?.name).keyPath == "author.name")
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Le Guin"
            for pages in [120, 300, 450] {
                let book = Book(context: context)
                book.title = "\(pages) pages"
                book.pages = pages
                book.author = author
            }
            try context.save()
            let total = NSExpressionDescription()
            total.name = "total"
            total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: \Book.pages)])
            total.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [total]
            request.predicate = NSPredicate(format: "%@ == %@", NSExpression(forKeyPath: \Book.author?.name), "Le Guin")
            #expect(try context.fetch(request).first?["total"] as? Int64 == 870)
        }
    }

    /// An `NSExpression` given for `%@` in a predicate format stands for itself (Apple's substitution), not for
    /// a constant object: a key path, a function and a variable.
    @Test func anExpressionArgumentStandsForItself() {
        let book: [String: Any] = ["pages": 300, "ratings": [4, 5, 3, 5]]
        let byKey = NSPredicate(format: "%@ > 200", NSExpression(forKeyPath: "pages"))
        #expect(byKey.predicateFormat == "pages > 200")
        #expect(byKey.evaluate(with: book))
        let count = NSPredicate(format: "%@ == 4", NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "ratings")]))
        #expect(count.predicateFormat == "count:(ratings) == 4")
        #expect(count.evaluate(with: book))
        let variable = NSPredicate(format: "pages < %@", NSExpression(forVariable: "limit"))
        #expect(variable.withSubstitutionVariables(["limit": 400]).evaluate(with: book))
        #expect(!variable.withSubstitutionVariables(["limit": 100]).evaluate(with: book))
    }

    @Test func evaluationInMemory() {
        let book: [String: Any] = ["pages": 300, "ratings": [4, 5, 3, 5], "title": "Dune"]
        func value(_ expression: CoreData.NSExpression) -> Any? { expression.expressionValue(with: book, context: nil) }
        #expect(value(NSExpression(format: "pages * 2")) as? Int64 == 600)
        #expect(value(NSExpression(forFunction: "average:", arguments: [NSExpression(forKeyPath: "ratings")])) as? Double == 4.25)
        #expect(value(NSExpression(forFunction: "median:", arguments: [NSExpression(forKeyPath: "ratings")])) as? Double == 4.5)
        #expect(value(NSExpression(forFunction: "mode:", arguments: [NSExpression(forKeyPath: "ratings")])) as? Int == 5)
        #expect(value(NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "ratings")])) as? Int == 5)
        #expect(value(NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "title")])) as? String == "DUNE")
        #expect(value(NSExpression(forFunction: "divide:by:", arguments: [NSExpression(forKeyPath: "pages"), NSExpression(forConstantValue: 0)])) == nil,
                "a division by zero is nil, not a trap")
        let variables = NSMutableDictionary(dictionary: ["extra": 5])
        #expect(NSExpression(format: "pages + $extra").expressionValue(with: book, context: variables) as? Int64 == 305)
        let malformed = NSExpression(format: "pages + ")
        #expect(malformed.parseError?.code == 2048 && value(malformed) == nil)
    }

    @Test func sumAndObjectIDsThroughAStore() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Ann"
            for (title, pages) in [("A", 100), ("B", 250)] {
                let book = Book(context: context)
                book.title = title
                book.pages = pages
                book.author = author
            }
            try context.save()

            // As Apple's documentation writes it.
            let keypathExp = NSExpression(forKeyPath: "pages")
            let expression = NSExpression(forFunction: "sum:", arguments: [keypathExp])
            let sumDesc = NSExpressionDescription()
            sumDesc.expression = expression
            sumDesc.name = "sum"
            sumDesc.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
            request.returnsObjectsAsFaults = false
            request.propertiesToFetch = [sumDesc]
            request.resultType = .dictionaryResultType
            let result = try context.fetch(request) as? [[String: Any]]
            #expect((result?.first?["sum"] as? NSNumber)?.int64Value == 350)

            let idDesc = NSExpressionDescription()
            idDesc.name = "objectID"
            idDesc.expression = NSExpression.expressionForEvaluatedObject()
            idDesc.expressionResultType = .objectIDAttributeType
            let ids = NSFetchRequest<NSDictionary>(entityName: "Book")
            ids.resultType = .dictionaryResultType
            ids.propertiesToFetch = [idDesc, "title"]
            ids.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let rows = try context.fetch(ids)
            let first = try #require(rows.first?["objectID"] as? NSManagedObjectID)
            #expect((try context.existingObject(with: first) as? Book)?.title == "A")

            let unknown = NSExpressionDescription()
            unknown.name = "x"
            unknown.expression = NSExpression(forFunction: "frobnicate:", arguments: [keypathExp])
            request.propertiesToFetch = [unknown]
            #expect(throws: NSError.self) { try context.fetch(request) }
            do { _ = try context.fetch(request) } catch let error as NSError {
                #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError && error.localizedDescription.contains("frobnicate:"))
            }
        }
    }

    @Test func batchUpdatesTakeConstantExpressions() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            for title in ["A", "B"] { Book(context: context).title = title }
            try context.save()
            let update = NSBatchUpdateRequest(entityName: "Book")
            update.propertiesToUpdate = ["pages": NSExpression(forConstantValue: 500)]
            update.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 2)
            context.reset()
            #expect(try context.fetch(Book.fetchRequest()).map(\.pages) == [500, 500])
            update.propertiesToUpdate = ["pages": NSExpression(format: "pages + 1")]
            #expect(throws: NSError.self) { try context.execute(update) }
        }
    }
}

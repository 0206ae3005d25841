import Foundation
import CoreData
import Testing

/// Aggregates of to-many key paths in dictionary fetches.
struct ToManyAggregateTests {
    /// `count:` of a to-many key path per group counts the destinations (books per author), as Apple's join
    /// does, rather than each author row as 1.
    @Test func countOfAToManyKeyPathCountsItsDestinationsPerGroup() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let ann = Author(context: context)
            ann.name = "Ann"
            for title in ["A", "B", "C"] {
                let book = Book(context: context)
                book.title = title
                book.author = ann
            }
            try context.save()
            let count = NSExpressionDescription()
            count.name = "books"
            count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "books")])
            count.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSDictionary>(entityName: "Author")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["name", count]
            request.propertiesToGroupBy = ["name"]
            let rows = try context.fetch(request)
            #expect((rows.first?["books"] as? NSNumber)?.intValue == 3)
        }
    }
}

import CoreData
import Testing

// This file imports only CoreData, as a Core Data source file of an app does, so `NSComparisonPredicate` and its
// nested types are spelled as on Apple's platforms.

/// A query builder in the style of WordPress's `CoreDataQuery`: comparisons made from key paths and values.
private func compare(_ keyPath: String, _ type: NSComparisonPredicate.Operator, _ value: Any?,
                     options: NSComparisonPredicate.Options = []) -> NSPredicate {
    NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: keyPath), rightExpression: NSExpression(forConstantValue: value),
                          modifier: .direct, type: type, options: options)
}

/// `NSComparisonPredicate(leftExpression:rightExpression:modifier:type:options:)`: the same predicate as its format,
/// evaluated in memory, fetched from a store (inside compound predicates too), and refused when it cannot be used.
@Suite struct ComparisonPredicateTests {
    @Test func aComparisonIsThePredicateOfItsFormat() {
        let title = compare("title", .beginsWith, "Du", options: [.caseInsensitive, .diacriticInsensitive])
        #expect(title.predicateFormat == NSPredicate(format: "title BEGINSWITH[cd] %@", "Du").predicateFormat)
        #expect(title.isEqual(NSPredicate(format: "title BEGINSWITH[cd] 'Du'")))
        #expect(title.evaluate(with: ["title": "dune"]) && !title.evaluate(with: ["title": "Emma"]))
        let between = compare("pages", .between, [100, 300])
        #expect(between.evaluate(with: ["pages": 300]) && !between.evaluate(with: ["pages": 301]))
        let anyTag = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "tags"), rightExpression: NSExpression(forConstantValue: "sf"),
                                           modifier: .any, type: .equalTo)
        #expect(anyTag.predicateFormat == "ANY tags == \"sf\"")
        #expect(anyTag.comparisonPredicateModifier == .any && anyTag.predicateOperatorType == .equalTo)
        #expect(anyTag.leftExpression.keyPath == "tags" && anyTag.options.isEmpty)
        #expect(NSComparisonPredicate.Operator.contains.rawValue == 99 && NSComparisonPredicate.Operator.between.rawValue == 100)
    }

    @Test func fetchesTakeComparisonsAlsoInsideCompoundPredicates() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            for (title, pages) in [("Dune", 412), ("Emma", 474), ("dust", 90)] {
                let book = Book(context: context)
                book.title = title
                book.pages = pages
            }
            try context.save()
            let request = NSFetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: true)]
            request.predicate = compare("title", .beginsWith, "du", options: .caseInsensitive)
            #expect(try context.fetch(request).map(\.title) == ["dust", "Dune"])
            request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
                compare("pages", .greaterThan, 100), NSCompoundPredicate(notPredicateWithSubpredicate: compare("title", .equalTo, "Emma")),
            ])
            #expect(try context.fetch(request).map(\.title) == ["Dune"])
            request.predicate = compare("title", .in, ["Emma", "dust"])
            #expect(try context.count(for: request) == 2)
        }
    }

    @Test func aCustomSelectorComparisonIsRefusedByAFetch() throws {
        let context = try inMemoryContext()
        let predicate = compare("title", .customSelector, "x")
        #expect(!predicate.evaluate(with: ["title": "x"]))
        let error = context.performAndWait {
            let request = NSFetchRequest<Book>(entityName: "Book")
            request.predicate = predicate
            return #expect(throws: NSError.self) { try context.fetch(request) }
        }
        #expect(error?.code == 134091)
    }
}

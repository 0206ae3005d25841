import Testing
import CoreData

/// Values set on relationships are checked: a wrong value is refused and reported at save, and Apple's to-many
/// forms validate.
@Suite struct RelationshipValueCheckTests {
    @Test func wrongRelationshipValuesAreReportedNotApplied() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            let book = Book(context: context)
            book.title = "Kept"
            book.author = author
            book.setValue("not an author", forKey: "author")
            #expect(book.author === author, "the relationship is left unchanged")
            let otherBook = Book(context: context)
            otherBook.title = "Other"
            book.setValue(otherBook, forKey: "author")
            #expect(book.author === author, "an object of the wrong entity is refused too")
            do {
                try context.save()
                Issue.record("the save should fail")
            } catch let error as NSError {
                #expect(error.code == NSManagedObjectValidationError)
            }
            book.author = author
            try context.save()
        }
    }

    @Test func validateValueAcceptsAppleToManyForms() throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            let author = Author(context: context)
            let book = Book(context: context)
            book.author = author
            var value: Any? = author.value(forKey: "books")
            try author.validateValue(&value, forKey: "books")
        }
    }
}

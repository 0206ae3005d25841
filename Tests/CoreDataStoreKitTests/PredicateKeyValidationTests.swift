import Testing
@testable import CoreDataStoreKit

@Suite struct PredicateKeyValidationTests {
    /// The entities, kept alive together (relationships hold their destinations weakly, as Apple's do).
    static let entities: [NSEntityDescription] = makeEntities()

    static func model() -> NSEntityDescription { entities[0] }

    /// Person —address→ Address (to-one), Person —books→> Book (to-many); Employee is a subentity of Person.
    static func makeEntities() -> [NSEntityDescription] {
        let address = NSEntityDescription(name: "Address", properties: [
            NSAttributeDescription(name: "city", type: .string),
        ])
        let book = NSEntityDescription(name: "Book", properties: [
            NSAttributeDescription(name: "title", type: .string),
            NSAttributeDescription(name: "price", type: .double),
        ])
        let person = NSEntityDescription(name: "Person", properties: [
            NSAttributeDescription(name: "name", type: .string),
            NSAttributeDescription(name: "age", type: .integer64),
            NSRelationshipDescription(name: "address", destination: address, toMany: false),
            NSRelationshipDescription(name: "books", destination: book, toMany: true),
        ])
        let employee = NSEntityDescription(name: "Employee", properties: [
            NSAttributeDescription(name: "salary", type: .double),
        ])
        person.subentities = [employee]
        return [person, address, book, employee]
    }

    @Test(arguments: [
        "name == 'a'", "address.city == 'x'", "ANY books.title == 'x'", "books.@count > 1",
        "books.@sum.price > 1", "SUBQUERY(books, $b, $b.price > 1 AND title == 'x').@count > 0",
        "name.length > 3", "SELF.name == 'a'", "salary > 1", "age + 1 > $limit", "CAST(age, 'NSString') == '1'",
        "books[FIRST].title == 'x'",
    ])
    func acceptsKnownKeys(_ format: String) throws {
        try NSPredicate.parse(format: format).validateKeys(against: Self.model())
    }

    @Test(arguments: [
        ("nmae == 'a'", "nmae"), ("address.town == 'x'", "address.town"), ("ANY books.author == 'x'", "books.author"),
        ("name.first == 'x'", "name.first"), ("SUBQUERY(books, $b, $b.pages > 1).@count > 0", "pages"),
        ("books.@sum.cost > 1", "books.cost"),
    ])
    func rejectsUnknownKeys(_ format: String, _ key: String) throws {
        let predicate = try NSPredicate.parse(format: format)
        do {
            try predicate.validateKeys(against: Self.model())
            Issue.record("accepted \(format)")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == PredicateFormatError.code)
            #expect(error.userInfo[PredicateFormatError.keyKey] as? String == key)
        }
    }

    @Test func malformedFormatThrowsItsParseError() {
        #expect(throws: NSError.self) { try NSPredicate(format: "name ==").validateKeys(against: Self.model()) }
    }

    @Test func sortKeys() throws {
        try NSSortDescriptor(key: "address.city", ascending: true).validateKey(against: Self.model())
        #expect(throws: NSError.self) { try NSSortDescriptor(key: "books.title", ascending: true).validateKey(against: Self.model()) }
        #expect(throws: NSError.self) { try NSSortDescriptor(key: "nope", ascending: true).validateKey(against: Self.model()) }
    }
}

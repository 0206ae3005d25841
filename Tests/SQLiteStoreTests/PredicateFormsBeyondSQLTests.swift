import CoreData
import Foundation
import Testing

/// Predicate forms the SQL compiler has no SQL for (`TERNARY`, `ANYKEY`, set operations, built-in functions by
/// name, as compiled models from real apps hold them) are evaluated in memory by the SQLite store, with the
/// in-memory store's meaning (Docs/Decisions.md, "Predicate forms beyond SQL").
@Suite struct PredicateFormsBeyondSQLTests {
    static let cases: [(format: String, expected: Set<String>)] = [
        ("TERNARY(age > 40, name, note) == 'E'", ["E"]),
        ("count:(books) == 2", ["Ann", "a?e"]),
        ("age > 20 AND count:(books) == 1", ["e"]),
        ("modulus:by:(age, 10) == 0", ["Ann", "", "a?e"]),
        ("(books.title UNION {'Zed'}).@count == 3", ["Ann", "a?e"]),
        ("'Swift' IN books.title MINUS {'Ode'}", ["Ann"]),
        ("ANYKEY == 'x'", []),
    ]

    @Test(arguments: PredicateMeaningTests.stores, cases.map(\.format))
    func formsAreEvaluatedWithOneMeaning(_ type: NSPersistentStore.StoreType, _ format: String) throws {
        let expected = try #require(Self.cases.first { $0.format == format }?.expected)
        #expect(try PredicateMeaningTests().authors(format, on: type) == expected, "\(format) on \(type.rawValue)")
    }
}

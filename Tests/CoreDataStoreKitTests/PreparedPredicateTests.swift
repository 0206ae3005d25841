import Foundation
import Testing
@testable import CoreDataStoreKit

/// A prepared predicate (`InMemoryQuery.filter`, a store's in-memory fetch) answers exactly as the evaluator
/// (`PredicateNode.evaluate(with:)`) for every comparison of a key with a constant, whatever the value read:
/// every operator, constants of each kind, `[cd]`, and values of the types a row can hold, mixed.
@Suite struct PreparedPredicateTests {
    /// Values a row may hold, of every kind the fast paths and the evaluator tell apart.
    static let values: [Any?] = [
        nil, NSNull(), Int64(0), Int64(5), Int64(-7), Int64.max, Int(5), Int32(5), Int16(-7), Double(5), 5.5, -0.0,
        Double.nan, Double.infinity, Float(5.5), true, false, Decimal(5), Decimal(string: "5.5") ?? 0,
        NSNumber(value: 5), NSNumber(value: 5.5), NSDecimalNumber(string: "5"), "5", "", "abc", "ABC", "Abd",
        "café", "CAFÉ", "cafe", "zebra", NSString(string: "abc"), Date(timeIntervalSinceReferenceDate: 0),
        Date(timeIntervalSinceReferenceDate: 100), NSDate(timeIntervalSinceReferenceDate: 0),
        Date(timeIntervalSinceReferenceDate: .nan), Optional<Int64>.some(5) as Any, Optional<String>.none as Any,
        [Int64(5)], ["abc"], Set([Int64(5)]), UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") as Any,
        Data([1, 2]), URL(string: "https://example.com") as Any,
    ]

    /// Constants of every kind a comparison may have, including collections for `IN`.
    static let constants: [Any] = [
        Int64(5), Int64(0), 5.5, Double.nan, true, Decimal(5), NSNumber(value: 5), "abc", "ABC", "", "café", "ab",
        "c", Date(timeIntervalSinceReferenceDate: 0), [Int64(5), Int64(7)], [5.5, Double.nan], ["abc", "zebra"],
        ["ABC", Int64(5), NSNull()], [String](), [Date(timeIntervalSinceReferenceDate: 0)], NSNull(),
    ]

    static let operators = ["<", "<=", ">", ">=", "==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "IN", "LIKE"]

    @Test func everyComparisonOfAKeyWithAConstantAnswersAsTheEvaluator() throws {
        let rows = Self.values.map { TestObject(["v": $0 as Any]) }
        var compared = 0
        for op in Self.operators {
            for options in ["", "[c]", "[d]", "[cd]"] {
                for constant in Self.constants {
                    let predicate = NSPredicate(format: "v \(op)\(options) %@", argumentArray: [constant])
                    guard let node = predicate.parsedExpression else { continue }
                    let expected = rows.filter { node.evaluate(with: $0) }
                    #expect(try InMemoryQuery.filter(rows, by: predicate) == expected, "\(predicate)")
                    let anyRows: [Any] = rows
                    #expect(try InMemoryQuery.filter(anyRows, by: predicate).map { $0 as? TestObject } == expected,
                            "\(predicate)")
                    compared += rows.count
                }
            }
        }
        #expect(compared > 20_000)
    }

    @Test func compoundPredicatesAndKeyPathsAnswerAsTheEvaluator() throws {
        let formats = [
            "amount > 500 AND name BEGINSWITH[c] 'GA' OR category IN {1, 2}",
            "NOT (amount < 10) AND name != nil", "address.city == 'Zürich' OR amount == 5",
            "ANY tags == 'swift'", "amount BETWEEN {1, 10}", "name MATCHES '.*a'", "amount + 1 > 5",
            "TRUEPREDICATE", "FALSEPREDICATE AND amount > 1", "SELF.amount == 5", "tags.@count == 2",
        ]
        let address = TestObject(["city": "Zürich"])
        let rows = [
            TestObject(["amount": Int64(600), "name": "gamma", "category": Int64(3), "tags": ["swift", "c"], "address": address]),
            TestObject(["amount": Int64(5), "name": "alpha", "category": Int64(2), "tags": [String]()]),
            TestObject(["amount": 7.5, "name": NSNull(), "category": "1", "tags": ["swift"]]),
            TestObject([:]),
        ]
        for format in formats {
            let predicate = NSPredicate(format: format)
            let node = try #require(predicate.parsedExpression, "\(format)")
            #expect(try InMemoryQuery.filter(rows, by: predicate) == rows.filter { node.evaluate(with: $0) }, "\(format)")
        }
    }
}

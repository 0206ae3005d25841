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

    /// Prepared for a slot layout, a comparison reads the slot instead of asking the object by name: the
    /// answer stays the evaluator's for every value, and a key the layout keeps past the end of an object's
    /// slots (a sub-entity's attribute, seen from a super-entity's record) reads as nil.
    @Test func everyComparisonOfASlotAnswersAsTheEvaluator() throws {
        let rows = Self.values.map { TestObject(["v": $0 as Any]) }
        let slotOfKey: (String) -> Int? = { ["v": 0, "w": 1][$0] }
        var compared = 0
        for key in ["v", "w"] {
            for op in Self.operators {
                for options in ["", "[c]", "[d]", "[cd]"] {
                    for constant in Self.constants {
                        let predicate = NSPredicate(format: "\(key) \(op)\(options) %@", argumentArray: [constant])
                        let node = try #require(predicate.parsedExpression, "\(predicate)")
                        let prepared = PreparedPredicate(node, slotOfKey: slotOfKey)
                        let expected = rows.filter { node.evaluate(with: $0) }
                        let bySlot = rows.filter { prepared.evaluate(reader: $0, slots: [$0.values["v"]]) }
                        #expect(bySlot == expected, "\(predicate)")
                        // A comparison of a slot is answered from the slots alone, without the object.
                        let bySlotsAlone = rows.filter { prepared.evaluate(slots: [$0.values["v"]]) ?? !expected.contains($0) }
                        #expect(bySlotsAlone == expected, "\(predicate), slots alone")
                        compared += rows.count
                    }
                }
            }
        }
        #expect(compared > 40_000)
    }

    /// An atomic store's fetch of a super-entity prepares the predicate for each entity's layout: an attribute
    /// every entity inherits (same slot), one that two sub-entities each declare (a different slot in each), one
    /// only some records have, key paths through a relationship and a relationship itself, on mixed values
    /// (nil, `NSNull`, numbers of every type, strings, dates), all answer as the evaluator reading by name.
    @Test func atomicStoreFetchesAnswerAsTheEvaluatorAcrossSubentities() throws {
        let parent = NSEntityDescription(name: "Parent", properties: [
            NSAttributeDescription(name: "v", type: .integer64), NSAttributeDescription(name: "name", type: .string),
        ])
        let other = NSRelationshipDescription(name: "other", destination: parent, toMany: false)
        parent.properties.append(other)
        let childA = NSEntityDescription(name: "ChildA", properties: [
            NSAttributeDescription(name: "w", type: .string), NSAttributeDescription(name: "d", type: .double),
        ])
        let childB = NSEntityDescription(name: "ChildB", properties: [
            NSAttributeDescription(name: "x", type: .integer64), NSAttributeDescription(name: "w", type: .integer64),
        ])
        parent.subentities = [childA, childB]
        let model = NSManagedObjectModel(entities: [parent, childA, childB])
        let store = try AtomicStore(StoreOpenRequest(model: model, configurationName: nil, url: nil, options: [:]))
        #expect(AtomicRowView.attributeSlot(in: childA.layout)("w") == 3)
        #expect(AtomicRowView.attributeSlot(in: childB.layout)("w") == 4)
        #expect(AtomicRowView.attributeSlot(in: parent.layout)("w") == nil)
        #expect(AtomicRowView.attributeSlot(in: parent.layout)("other") == nil, "relationships are read by name")

        var changes = StoreChangeSet()
        let entities = [parent, childA, childB]
        for (index, value) in Self.values.enumerated() {
            let entity = entities[index % 3]
            let key = ObjectKey(entityNumber: entity.entityNumber, primaryKey: Int64(index + 1))
            var values = [Any?](repeating: nil, count: entity.layout.slotCount)
            values[0] = value
            values[1] = Self.values[(index + 7) % Self.values.count]
            values[2] = index > 0 ? ObjectKey(entityNumber: parent.entityNumber, primaryKey: Int64(index)) : nil
            if values.count > 3 { values[3] = Self.values[(index + 13) % Self.values.count] }
            if values.count > 4 { values[4] = Self.values[(index + 21) % Self.values.count] }
            changes.inserted.append(StoreRow(key: key, version: 1, values: values))
        }
        _ = try store.save(changes)

        let records = store.records(of: parent, includingSubentities: true)
        var compared = 0
        for key in ["v", "w", "name", "d", "other.v"] {
            for op in ["<", ">=", "==", "!=", "BEGINSWITH", "CONTAINS", "IN"] {
                for options in ["", "[cd]"] {
                    for constant in Self.constants {
                        let predicate = NSPredicate(format: "\(key) \(op)\(options) %@", argumentArray: [constant])
                        let node = try #require(predicate.parsedExpression, "\(predicate)")
                        let expected = Set(records.filter { node.evaluate(with: AtomicRowView(record: $0, store: store)) }.map(\.key))
                        let fetched = try store.select(StoreFetchRequest(entity: parent, predicate: predicate, result: .keys))
                        #expect(Set(fetched.map(\.key)) == expected, "\(predicate)")
                        compared += records.count
                    }
                }
            }
        }
        // Some read slots only (answered without a view of the record), some also a relationship or a key path.
        for format in ["v > 3 AND w != nil OR other == nil", "NOT (w BEGINSWITH[c] 'a') AND other.name == 'abc'", "x == 5 OR d < 6",
                       "v > 3 AND NOT (w == nil)", "(v < 0 OR v >= 5) AND name != 'abc'", "TRUEPREDICATE AND v != 5",
                       "NOT (d < 6 OR x == 5)", "v IN {5, 0} OR name CONTAINS[cd] 'B'"] {
            let predicate = NSPredicate(format: format)
            let node = try #require(predicate.parsedExpression, "\(format)")
            let expected = Set(records.filter { node.evaluate(with: AtomicRowView(record: $0, store: store)) }.map(\.key))
            let fetched = try store.select(StoreFetchRequest(entity: parent, predicate: predicate, result: .keys))
            #expect(Set(fetched.map(\.key)) == expected, "\(format)")
        }
        #expect(compared > 20_000)
    }
}

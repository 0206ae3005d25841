import CoreDataStoreKit

/// A small object graph for predicate tests: a row-like object read through `PredicateKeyValueReading`,
/// with a stored key for identity comparisons.
final class TestObject: PredicateKeyValueReading, StoredObjectReference, CustomStringConvertible, Hashable {
    var values: [String: Any]
    let storedObjectKey: ObjectKey?

    init(key: ObjectKey? = nil, _ values: [String: Any]) {
        self.storedObjectKey = key
        self.values = values
    }

    func predicateValue(forKey key: String) -> Any? { values[key] }

    static func == (a: TestObject, b: TestObject) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    var description: String { "TestObject(\(storedObjectKey.map { "\($0)" } ?? "-"))" }
}

enum Fixtures {
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
    static let homepage = URL(string: "https://example.com/alice") ?? URL(fileURLWithPath: "/")

    static let country = TestObject(["code": "CH"])
    static let address = TestObject(key: ObjectKey(entityNumber: 2, primaryKey: 1), [
        "city": "Zürich", "zip": 8000, "country": country,
    ])
    static let books: [TestObject] = [
        TestObject(key: ObjectKey(entityNumber: 3, primaryKey: 1),
                   ["title": "Café", "price": 10, "pages": 100, "tags": ["food"]]),
        TestObject(key: ObjectKey(entityNumber: 3, primaryKey: 2),
                   ["title": "Swift", "price": 20, "pages": 300, "tags": ["code", "swift"]]),
        TestObject(key: ObjectKey(entityNumber: 3, primaryKey: 3),
                   ["title": "Ode", "price": 5.5, "pages": 50, "tags": [String]()]),
    ]

    static let person: TestObject = {
        let optionalInt: Int? = 5
        return TestObject(key: ObjectKey(entityNumber: 1, primaryKey: 7), [
            "name": "Alice", "lastName": "Dupont", "age": 30, "score": 4.5, "height": Float(1.75),
            "weight": Int16(60), "balance": Decimal(string: "100.25") ?? 0, "big": Int64(9_000_000_000),
            "active": true, "nickname": NSNull(), "note": "Crème brûlée", "email": "alice@example.com",
            "born": Date(timeIntervalSinceReferenceDate: 0), "uuid": uuid, "data": Data([1, 2, 3]),
            "homepage": homepage, "tags": ["swift", "linux", "Core"], "numbers": [1, 2, 3, 4],
            "nsnum": NSNumber(value: 7), "optionalInt": optionalInt as Any,
            "orderedTags": NSOrderedSet(array: ["a", "b"]), "address": address,
            "books": books, "bookSet": Set(books),
            "friends": [TestObject](), "quote": "say \"hi\"", "line": "a\nb", "greek": "α", "size": 7,
        ])
    }()

    /// Another instance standing for the same stored row as `person`.
    static let personAgain = TestObject(key: ObjectKey(entityNumber: 1, primaryKey: 7), [:])

    static let dictionary: [String: Any] = ["name": "Bob", "age": 40, "nested": ["x": 1]]
    static let nsDictionary = NSDictionary(dictionary: ["name": "Bob", "age": 40])
}


import CoreDataStoreKit

/// One row of the evaluation table: a format, its arguments, the object, variables and the expected result.
struct PredicateCase: CustomStringConvertible, @unchecked Sendable {
    enum Subject { case person, dictionary, nsDictionary, value(Any?) }

    let format: String
    let arguments: [Any?]
    let subject: Subject
    let variables: [String: Any]
    let expected: Bool

    init(format: String, arguments: [Any?], subject: Subject, variables: [String: Any], expected: Bool) {
        self.format = format
        self.arguments = arguments
        self.subject = subject
        self.variables = variables
        self.expected = expected
    }

    init(_ format: String, _ expected: Bool) {
        self.init(format: format, arguments: [], subject: .person, variables: [:], expected: expected)
    }

    init(_ format: String, _ arguments: [Any?], _ expected: Bool) {
        self.init(format: format, arguments: arguments, subject: .person, variables: [:], expected: expected)
    }

    init(_ format: String, on subject: Subject, _ expected: Bool) {
        self.init(format: format, arguments: [], subject: subject, variables: [:], expected: expected)
    }

    init(_ format: String, _ arguments: [Any?], on subject: Subject, _ expected: Bool) {
        self.init(format: format, arguments: arguments, subject: subject, variables: [:], expected: expected)
    }

    init(_ format: String, variables: [String: Any], _ expected: Bool) {
        self.init(format: format, arguments: [], subject: .person, variables: variables, expected: expected)
    }

    var object: Any? {
        switch subject {
        case .person: return Fixtures.person
        case .dictionary: return Fixtures.dictionary
        case .nsDictionary: return Fixtures.nsDictionary
        case .value(let v): return v
        }
    }

    /// Whether an argument is an object with no textual form (the canonical format cannot round-trip it).
    var hasObjectArgument: Bool {
        arguments.contains { arg in
            if arg is TestObject { return true }
            if let list = arg as? [Any] { return list.contains { $0 is TestObject } }
            return false
        }
    }

    var description: String { format }
}

let d0 = Date(timeIntervalSinceReferenceDate: 0)

/// The evaluation table: every operator, option, modifier and aggregate, with Apple's documented examples.
let predicateCases: [PredicateCase] = [
    // Equality and order, numbers across types.
    .init("name == \"Alice\"", true),
    .init("name = 'Alice'", true),
    .init("name != \"Bob\"", true),
    .init("name <> \"Alice\"", false),
    .init("age > 29", true),
    .init("age >= 30", true),
    .init("age => 31", false),
    .init("age < 30", false),
    .init("age <= 30", true),
    .init("age =< 29", false),
    .init("age == 30.0", true),
    .init("score > 4", true),
    .init("score == 4.5", true),
    .init("height > 1.7", true),
    .init("weight == 60", true),
    .init("balance > 100", true),
    .init("balance == 100.25", true),
    .init("big > 8000000000", true),
    .init("active == TRUE", true),
    .init("active == YES", true),
    .init("active == 1", true),
    .init("active == NO", false),
    .init("nsnum == 7", true),
    .init("optionalInt == 5", true),
    // nil.
    .init("nickname == nil", true),
    .init("nickname == NULL", true),
    .init("nickname != nil", false),
    .init("name == nil", false),
    .init("nickname < 5", false),
    .init("nickname > 5", false),
    .init("missingKey == nil", true),
    .init("nil == nickname", true),
    // Arguments.
    .init("name == %@", ["Alice"], true),
    .init("age == %d", [30], true),
    .init("age == %i", [30], true),
    .init("age == %ld", [30], true),
    .init("age == %lld", [Int64(30)], true),
    .init("age == %u", [UInt32(30)], true),
    .init("score == %f", [4.5], true),
    .init("score == %lf", [4.5], true),
    .init("%K == %@", ["name", "Alice"], true),
    .init("%K.city == \"Zürich\"", ["address"], true),
    .init("%K > 2", ["books.@count"], true),
    .init("nickname == %@", [nil], true),
    .init("nickname == %@", [NSNull()], true),
    .init("age == %@", [NSNumber(value: 30)], true),
    .init("active == %@", [true], true),
    // Strings and options.
    .init("name BEGINSWITH \"Al\"", true),
    .init("name BEGINSWITH \"al\"", false),
    .init("name BEGINSWITH[c] \"al\"", true),
    .init("name ENDSWITH \"ice\"", true),
    .init("name ENDSWITH[c] \"ICE\"", true),
    .init("name CONTAINS \"lic\"", true),
    .init("name CONTAINS[c] \"LIC\"", true),
    .init("name CONTAINS \"x\"", false),
    .init("note CONTAINS \"Creme\"", false),
    .init("note CONTAINS[d] \"Creme\"", true),
    .init("note BEGINSWITH[cd] \"CREME\"", true),
    .init("note ==[cd] \"creme brulee\"", true),
    .init("note ==[c] \"CRÈME BRÛLÉE\"", true),
    .init("note == \"creme brulee\"", false),
    .init("address.city ==[d] \"Zurich\"", true),
    .init("name ==[n] \"Alice\"", true),
    .init("name LIKE \"A*\"", true),
    .init("name LIKE \"a*\"", false),
    .init("name LIKE[c] \"a*\"", true),
    .init("name LIKE \"?lice\"", true),
    .init("name LIKE \"*li*\"", true),
    .init("name LIKE \"Al?\"", false),
    .init("name LIKE \"*\"", true),
    .init("email LIKE \"*@*.com\"", true),
    .init("lastName LIKE[cd] \"*PON*\"", true),
    .init("name MATCHES \"A.*\"", true),
    .init("name MATCHES \"l.*\"", false),
    .init("name MATCHES \"[A-Z][a-z]+\"", true),
    .init("name MATCHES[c] \"alice\"", true),
    .init("email MATCHES '[a-z]+@[a-z]+\\.com'", true),
    .init("name MATCHES \"(\"", false),
    .init("\"Alice\" == name", true),
    .init("name < \"Bob\"", true),
    .init("name > \"alice\"", false),
    .init("name >[c] \"aardvark\"", true),
    .init("name.length == 5", true),
    // IN, CONTAINS.
    .init("name IN {\"Alice\", \"Bob\"}", true),
    .init("name IN %@", [["Bob", "Carol"]], false),
    .init("age IN {10, 20, 30}", true),
    .init("age IN %@", [Set([30, 40])], true),
    .init("\"lic\" IN name", true),
    .init("name IN[c] {\"ALICE\"}", true),
    .init("\"swift\" IN tags", true),
    .init("tags CONTAINS \"linux\"", true),
    .init("tags CONTAINS[c] \"core\"", true),
    .init("tags CONTAINS \"rust\"", false),
    .init("numbers CONTAINS 3", true),
    .init("3 IN numbers", true),
    .init("name IN nil", false),
    .init("orderedTags CONTAINS \"b\"", true),
    .init("NOT (name IN %@)", [NSArray(array: ["Bob"])], true),
    // BETWEEN.
    .init("age BETWEEN {18, 65}", true),
    .init("age BETWEEN {31, 65}", false),
    .init("age BETWEEN {30, 30}", true),
    .init("score BETWEEN %@", [[4, 5]], true),
    .init("born BETWEEN %@", [[Date(timeIntervalSinceReferenceDate: -10), Date(timeIntervalSinceReferenceDate: 10)]], true),
    .init("name BETWEEN {\"A\", \"B\"}", true),
    .init("nickname BETWEEN {1, 2}", false),
    // Dates and other values.
    .init("born == %@", [d0], true),
    .init("born < %@", [Date(timeIntervalSinceReferenceDate: 100)], true),
    .init("born > CAST(-1, \"NSDate\")", true),
    .init("born == CAST(0, \"NSDate\")", true),
    .init("born > %@", [NSDate(timeIntervalSinceReferenceDate: 5)], false),
    .init("uuid == %@", [Fixtures.uuid], true),
    .init("uuid == CAST(\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", \"NSUUID\")", true),
    .init("data == %@", [Data([1, 2, 3])], true),
    .init("data == %@", [Data([1, 2])], false),
    .init("homepage == %@", [Fixtures.homepage], true),
    .init("balance == %@", [Decimal(string: "100.25")], true),
    .init("balance == %@", [NSDecimalNumber(string: "100.25")], true),
    .init("balance == CAST(\"100.25\", \"NSDecimalNumber\")", true),
    .init("age == \"30\"", false),
    .init("CAST(\"5\", \"NSNumber\") == 5", true),
    .init("CAST(age, \"NSString\") == \"30\"", true),
    .init("CAST(score, \"NSString\") == \"4.5\"", true),
    // Key paths through relationships.
    .init("address.city == \"Zürich\"", true),
    .init("address.country.code == \"CH\"", true),
    .init("manager.name == nil", true),
    .init("manager.name == \"X\"", false),
    .init("manager == nil", true),
    .init("address != nil", true),
    .init("SELF.name == \"Alice\"", true),
    .init("address.zip > 7999", true),
    .init("address == %@", [Fixtures.address], true),
    .init("SELF == %@", [Fixtures.person], true),
    .init("SELF == %@", [Fixtures.personAgain], true),
    .init("SELF IN %@", [[Fixtures.personAgain]], true),
    .init("manager == %@", [Fixtures.person], false),
    .init("ANY books == %@", [Fixtures.books[1]], true),
    // Modifiers and aggregates.
    .init("ANY books.price > 15", true),
    .init("ANY books.price > 25", false),
    .init("SOME books.title == \"Ode\"", true),
    .init("ALL books.price > 1", true),
    .init("ALL books.price > 6", false),
    .init("NONE books.price > 25", true),
    .init("NONE books.price > 15", false),
    .init("ALL friends.age > 100", true),
    .init("ANY friends.age > 0", false),
    .init("ANY books.title BEGINSWITH[cd] \"cafe\"", true),
    .init("ANY books.tags == \"swift\"", true),
    .init("ANY tags == \"Core\"", true),
    .init("ANY tags IN {\"rust\", \"linux\"}", true),
    .init("books.@count == 3", true),
    .init("books.@count > 2 AND friends.@count == 0", true),
    .init("books.@sum.price == 35.5", true),
    .init("books.@avg.pages == 150", true),
    .init("books.@min.price == 5.5", true),
    .init("books.@max.pages == 300", true),
    .init("books.@max.title == \"Swift\"", true),
    .init("books.@min.title == \"Café\"", true),
    .init("numbers.@sum == 10", true),
    .init("numbers.@avg == 2.5", true),
    .init("numbers.@count == 4", true),
    .init("numbers.@max == 4", true),
    .init("friends.@avg.age == nil", true),
    .init("friends.@sum.age == 0", true),
    .init("manager.books.@count == 0", true),
    .init("tags.@count == 3", true),
    .init("bookSet.@count == 3", true),
    .init("ANY bookSet.price == 20", true),
    .init("SUBQUERY(books, $b, $b.price > 8).@count == 2", true),
    .init("SUBQUERY(books, $b, $b.price > 8 AND $b.pages > 200).@count == 1", true),
    .init("SUBQUERY(books, $b, ANY $b.tags == \"code\").@count > 0", true),
    .init("SUBQUERY(friends, $f, $f.age > 1).@count == 0", true),
    .init("SUBQUERY(books, $b, $b.title BEGINSWITH \"S\")[FIRST].title == \"Swift\"", true),
    .init("books[SIZE] == 3", true),
    .init("books[FIRST].title == \"Café\"", true),
    .init("books[LAST].title == \"Ode\"", true),
    .init("numbers[1] == 2", true),
    .init("numbers[9] == nil", true),
    // TERNARY, ANYKEY, set operations and built-in functions by name (Apple's `count:(…)` spelling).
    .init("TERNARY(age > 18, \"adult\", \"minor\") == \"adult\"", true),
    .init("TERNARY(age > 40, name, nickname) == nil", true),
    .init("TERNARY(ANY books.price > 15, books[SIZE], 0) == 3", true),
    .init("ANYKEY == \"Alice\"", false),
    .init("ANYKEY == nil", true),
    .init("(numbers UNION {4, 5, 6}).@count == 6", true),
    .init("(numbers INTERSECT {2, 4, 8}).@sum == 6", true),
    .init("(numbers MINUS {1, 2}).@sum == 7", true),
    .init("5 IN numbers UNION {5}", true),
    .init("1 IN numbers MINUS {1}", false),
    .init("(numbers MINUS {1} UNION {1}).@count == 4", true),
    .init("(numbers MINUS ({1} UNION {2})).@count == 2", true),
    .init("(name UNION {1}) == nil", true),
    .init("count:(books) == 3", true),
    .init("sum:(numbers) == 10", true),
    .init("average:(numbers) == 2.5", true),
    .init("modulus:by:(age, 7) == 2", true),
    .init("lowercase:(name) == \"alice\"", true),
    .init("length:(name) == 5", true),
    .init("bitwiseAnd:with:(age, 6) == 6", true),
    .init("bitwiseOr:with:(age, 1) == 31", true),
    .init("bitwiseXor:with:(age, 30) == 0", true),
    .init("leftshift:by:(1, 4) == 16", true),
    .init("rightshift:by:(age, 1) == 15", true),
    .init("onesComplement:(0) == -1", true),
    .init("now() > CAST(0, \"NSDate\")", true),
    .init("sqrt:(16) == 4", true),
    .init("age BETWEEN {numbers.@count, 40}", true),
    .init("age BETWEEN {numbers.@count, count:(books)}", false),
    // Arithmetic and number literals.
    .init("age + 5 == 35", true),
    .init("age - 5 * 2 == 20", true),
    .init("(age - 5) * 2 == 50", true),
    .init("age / 4 == 7.5", true),
    .init("age / 3 == 10", true),
    .init("2 ** 10 == 1024", true),
    .init("-age == -30", true),
    .init("age * -1 < 0", true),
    .init("score * 2 == 9", true),
    .init("big * big > 0", true),
    .init("age / 0 == nil", true),
    .init("0x1F == 31", true),
    .init("0o17 == 15", true),
    .init("0b101 == 5", true),
    .init("1e3 == 1000", true),
    .init("1.5E-1 == 0.15", true),
    .init("-0x10 == -16", true),
    .init("9223372036854775807 + 1 > 0", true),
    .init("born + 10 > born", true),
    // Compound predicates and precedence.
    .init("name == \"Alice\" AND age == 30", true),
    .init("name == \"Alice\" && age == 31", false),
    .init("name == \"Bob\" OR age == 30", true),
    .init("name == \"Bob\" || age == 31", false),
    .init("NOT name == \"Bob\"", true),
    .init("!(name == \"Alice\")", false),
    .init("name == \"Bob\" AND age == 1 OR age == 30", true),
    .init("name == \"Bob\" AND (age == 1 OR age == 30)", false),
    .init("NOT name == \"Alice\" OR age == 30", true),
    .init("NOT (name == \"Alice\" OR age == 31)", false),
    .init("TRUEPREDICATE", true),
    .init("FALSEPREDICATE", false),
    .init("TRUEPREDICATE AND NOT FALSEPREDICATE", true),
    .init("(age + 1) > 30", true),
    .init("((age)) == 30", true),
    .init("(((name == \"Alice\")))", true),
    .init("#size == 7", true),
    .init("name ==[c] 'ALICE' and age > 20", true),
    .init("any books.price > 15", true),
    // Strings with escapes.
    .init("quote == \"say \\\"hi\\\"\"", true),
    .init("line == 'a\\nb'", true),
    .init("greek == \"\\u03B1\"", true),
    // SELF on plain values.
    .init("SELF == \"x\"", on: .value("x"), true),
    .init("SELF BEGINSWITH \"ab\"", on: .value("abc"), true),
    .init("SELF IN %@", [[1, 2, 3]], on: .value(3), true),
    .init("SELF > 2", on: .value(3), true),
    .init("SELF == nil", on: .value(nil), true),
    .init("SELF.@count == 2", on: .value([1, 2]), true),
    // Dictionaries.
    .init("name == \"Bob\" AND age > 30", on: .dictionary, true),
    .init("nested.x == 1", on: .dictionary, true),
    .init("name == \"Bob\"", on: .nsDictionary, true),
    .init("missing == nil", on: .dictionary, true),
    // Variables.
    .init("name BEGINSWITH[c] $letter", variables: ["letter": "a"], true),
    .init("age > $min AND age < $max", variables: ["min": 20, "max": 40], true),
    .init("age > $unbound", false),
    // Apple's documented examples.
    .init("grade == \"7\" OR grade == \"8\"", on: .dictionary, false),
    .init("(lastName like[cd] %@) AND (born > %@)", ["*pont", Date(timeIntervalSinceReferenceDate: -86400)], true),
    .init("ANY books.title like 'Sw*'", true),
    .init("SUBQUERY(books, $x, $x.title == \"Ode\" && $x.pages == 50).@count != 0", true),
    .init("books.@count > 1", true),
    .init("%K like %@", ["name", "Ali*"], true),
]

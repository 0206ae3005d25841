import Testing
@testable import CoreDataStoreKit

/// The meaning each predicate form has on every store, where stores used to disagree (see Docs/Decisions.md,
/// "Predicate semantics"): the in-memory evaluator's answers, which the SQLite store's SQL must reproduce.
@Suite struct PredicateSemanticsTests {
    func holds(_ format: String, _ arguments: [Any?] = [], on subject: Any = Fixtures.person) -> Bool {
        NSPredicate(format: format, argumentArray: arguments.map { $0 ?? NSNull() }).evaluate(with: subject)
    }

    @Test func aToManyKeyPathWithoutQuantifierComparesTheCollectionItself() {
        #expect(!holds("books.pages > 5"))
        #expect(!holds("books.pages == 100"))
        #expect(holds("books.pages != 100"))
        #expect(!holds("5 < books.pages"))
        #expect(holds("ANY books.pages > 5"))
        // CONTAINS and IN ask for membership, which a collection answers.
        #expect(holds("books.title CONTAINS 'Ode'"))
        #expect(!holds("books.title CONTAINS 'Od'"))
        #expect(holds("'Swift' IN books.title"))
    }

    @Test func inWithAStringIsSubstringContainment() {
        #expect(holds("name IN 'Alice and Bob'"))
        #expect(holds("name IN[c] %@", ["ALICE AND BOB"]))
        #expect(!holds("name IN 'Ali'"))
        #expect(!holds("'' IN name"))
        #expect(!holds("nickname IN 'abc'"))
        #expect(!holds("age IN '30'"))
    }

    @Test func theEmptyStringIsNeverAPrefixSuffixOrPart() {
        #expect(!holds("name BEGINSWITH ''"))
        #expect(!holds("name ENDSWITH[c] ''"))
        #expect(!holds("name CONTAINS ''"))
        #expect(!holds("'' BEGINSWITH ''"))
        #expect(holds("'' == ''"))
        #expect(holds("'' LIKE ''"))
        #expect(holds("'' MATCHES ''"))
    }

    @Test func aConstantOnTheLeftIsTheValueTested() {
        #expect(holds("'Bob Alice' ENDSWITH name"))
        #expect(holds("'BOB ALICE' ENDSWITH[c] name"))
        #expect(holds("'Alice' LIKE name"))
        #expect(!holds("'Al*' LIKE name"))
        #expect(holds("'Hi Alice!' CONTAINS name"))
        #expect(holds("40 > age"))
        #expect(holds("30 == age"))
    }

    @Test func nilEqualsOnlyNilAndIsNeverOrdered() {
        #expect(holds("nickname == nil"))
        #expect(!holds("nickname != nil"))
        #expect(holds("nickname == missingKey"))
        #expect(!holds("nickname < 5"))
        #expect(!holds("nickname >= nil"))
        #expect(holds("NOT (nickname < 5)"))
        #expect(!holds("nickname BEGINSWITH 'a'"))
        #expect(!holds("age BETWEEN {nil, 50}"))
    }

    @Test func numbersCompareByValueAcrossTypesAndNeverEqualOtherKinds() {
        #expect(holds("weight == 60.0"))
        #expect(holds("balance > 100"))
        #expect(holds("height == 1.75"))
        #expect(holds("active == 1"))
        #expect(holds("age == %@", [Int16(30)]))
        #expect(holds("age == %@", [Decimal(30)]))
        #expect(!holds("age == '30'"))
        #expect(holds("age != '30'"))
        #expect(!holds("age < '40'"))
        #expect(!holds("born == 0"))
        #expect(!holds("born < 1"))
        #expect(!holds("uuid == 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'"))
        #expect(holds("uuid == %@", [Fixtures.uuid]))
    }
}

import Testing
@testable import CoreDataStoreKit

@Suite struct SortDescriptorTests {
    static let rows: [[String: Any]] = [
        ["name": "b", "age": 30, "file": "file10", "city": TestObject(["name": "Zug"])],
        ["name": "B", "age": 20.5, "file": "file9", "city": TestObject(["name": "Aarau"])],
        ["age": 30, "file": "File1"],
        ["name": "a", "age": Int16(40), "file": "file2", "city": TestObject(["name": "Bern"])],
    ]

    private func names(_ rows: [[String: Any]]) -> [String] {
        rows.map { $0["name"] as? String ?? "nil" }
    }

    @Test func keyAndComparisonReadBack() {
        let plain = NSSortDescriptor(key: "name", ascending: true)
        #expect(plain.key == "name")
        #expect(plain.ascending)
        #expect(plain.comparison == .compare)
        #expect(!plain.usesCustomComparator)
        let named = NSSortDescriptor(key: "name", ascending: false, selector: "localizedStandardCompare:")
        #expect(named.comparison == .localizedStandardCompare)
        #expect(named.comparison.isKnown)
        #expect(!named.ascending)
        let reversed = named.reversedSortDescriptor as? NSSortDescriptor
        #expect(reversed?.key == "name")
        #expect(reversed?.ascending == true)
        #expect(reversed?.comparison == .localizedStandardCompare)
        #expect(NSSortDescriptor(key: "x", ascending: true, selector: "frobnicate:").comparison.isKnown == false)
        #expect(NSSortDescriptor(key: "a", ascending: true) == NSSortDescriptor(key: "a", ascending: true))
    }

    @Test func nilSortsFirstAscendingAndLastDescending() {
        let ascending = [NSSortDescriptor(key: "name", ascending: true)].sorting(Self.rows)
        #expect(names(ascending) == ["nil", "B", "a", "b"])
        let descending = [NSSortDescriptor(key: "name", ascending: false)].sorting(Self.rows)
        #expect(names(descending) == ["b", "a", "B", "nil"])
    }

    @Test func namedComparisons() {
        let insensitive = [NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")]
        #expect(names(insensitive.sorting(Self.rows)) == ["nil", "a", "b", "B"])
        let standard = [NSSortDescriptor(key: "file", ascending: true, comparison: .localizedStandardCompare)]
        #expect(standard.sorting(Self.rows).map { $0["file"] as? String } == ["File1", "file2", "file9", "file10"])
        let plain = [NSSortDescriptor(key: "file", ascending: true)]
        #expect(plain.sorting(Self.rows).map { $0["file"] as? String } == ["File1", "file10", "file2", "file9"])
    }

    @Test func numbersAcrossTypesAndMultipleKeys() {
        let byAgeThenName = [NSSortDescriptor(key: "age", ascending: true), NSSortDescriptor(key: "name", ascending: false)]
        #expect(names(byAgeThenName.sorting(Self.rows)) == ["B", "b", "nil", "a"])
    }

    @Test func keyPathAcrossToOne() {
        let byCity = [NSSortDescriptor(key: "city.name", ascending: true)]
        #expect(names(byCity.sorting(Self.rows)) == ["nil", "B", "a", "b"])
    }

    @Test func foundationCompareUsesTheKey() {
        let d = NSSortDescriptor(key: "age", ascending: false)
        #expect(d.compare(["age": 1], to: ["age": 2]) == .orderedDescending)
        #expect(d.compare(Fixtures.person, to: Fixtures.dictionary) == .orderedDescending)
        let custom = NSSortDescriptor(key: "name", ascending: true) { a, b in
            let x = (a as? String)?.count ?? 0
            let y = (b as? String)?.count ?? 0
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        #expect(custom.usesCustomComparator)
        #expect(custom.compare(["name": "ccc"], to: ["name": "dd"]) == .orderedDescending)
        #expect(custom.compare([String: Any](), to: ["name": "dd"]) == .orderedAscending)
    }

    @Test func comparatorNeverTraps() {
        let values: [Any?] = [nil, NSNull(), 1, 2.5, Double.nan, "a", Date(), Data(), UUID(), [1], NSObject(), Decimal.nan]
        for comparison in SortComparison.known {
            for a in values {
                for b in values {
                    _ = comparison.compareValues(a, b)
                }
            }
        }
        #expect(SortComparison.compare.compareValues(nil, 1) == .orderedAscending)
        #expect(SortComparison.compare.compareValues(2, 1.5) == .orderedDescending)
        #expect(SortComparison.compare.compareValues(1, "a") == .orderedAscending)
    }
}

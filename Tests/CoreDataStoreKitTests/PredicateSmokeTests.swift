import Testing
@testable import CoreDataStoreKit

@Suite struct PredicateSmokeTests {
    @Test func parsesAndEvaluates() {
        let p = NSPredicate(format: "age > %d AND name BEGINSWITH[c] %@", 3, "a")
        #expect(p.evaluate(with: ["age": 5, "name": "Alice"]))
    }
}

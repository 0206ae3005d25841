import CoreData
import Foundation

/// One in-memory row for the predicate benchmark: three fields read by key, as a store row view is.
struct BenchmarkRow: PredicateKeyValueReading {
    let amount: Int64
    let name: String
    let category: Int64

    func predicateValue(forKey key: String) -> Any? {
        switch key {
        case "amount": return amount
        case "name": return name
        case "category": return category
        default: return nil
        }
    }
}

/// Evaluates a three-clause predicate against `count` in-memory rows, `repetitions` times, and returns the
/// median time and the number of matches.
func benchmarkPredicateEvaluation(count: Int, repetitions: Int) throws -> (seconds: Double, matches: Int) {
    let names = ["alpha", "beta", "gamma", "delta", "epsilon"]
    let rows = (0..<count).map { BenchmarkRow(amount: Int64(($0 &* 7919) % 1000), name: names[$0 % names.count], category: Int64($0 % 7)) }
    let predicate = NSPredicate(format: "amount > %d AND name BEGINSWITH[c] %@ OR category IN %@", 500, "GA", [1, 2])
    let node = try predicate.validatedExpression()
    var times: [Double] = []
    var matches = 0
    for _ in 0..<max(1, repetitions) {
        times.append(seconds {
            matches = 0
            for row in rows where node.evaluate(with: row) { matches += 1 }
        })
    }
    return (median(times), matches)
}

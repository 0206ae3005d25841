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

/// Evaluates a three-clause predicate against `count` in-memory rows, `repetitions` times, row by row with the
/// evaluator (`PredicateNode.evaluate(with:)`, a context's path for its pending changes) and prepared once for
/// all rows (`InMemoryQuery.filter`, the atomic stores' fetch path); returns the median times and the number of
/// matches.
func benchmarkPredicateEvaluation(count: Int, repetitions: Int) throws -> (seconds: Double, prepared: Double, matches: Int) {
    let names = ["alpha", "beta", "gamma", "delta", "epsilon"]
    let rows = (0..<count).map { BenchmarkRow(amount: Int64(($0 &* 7919) % 1000), name: names[$0 % names.count], category: Int64($0 % 7)) }
    let predicate = NSPredicate(format: "amount > %d AND name BEGINSWITH[c] %@ OR category IN %@", 500, "GA", [1, 2])
    let node = try predicate.validatedExpression()
    var times: [Double] = []
    var preparedTimes: [Double] = []
    var matches = 0
    var preparedMatches = 0
    for _ in 0..<max(1, repetitions) {
        times.append(seconds {
            matches = 0
            for row in rows where node.evaluate(with: row) { matches += 1 }
        })
        preparedTimes.append(try seconds {
            preparedMatches = try InMemoryQuery.filter(rows, by: predicate).count
        })
    }
    guard preparedMatches == matches else { throw RawFailure(description: "the prepared predicate matched \(preparedMatches) rows, the evaluator \(matches)") }
    return (median(times), median(preparedTimes), matches)
}

import Testing
@testable import CoreDataStoreKit
import StoreTestSupport

/// Mutated formats and odd arguments parse and evaluate in memory without trapping. The same kind of
/// mutation run as fetches on every store, with fetch and `evaluate(with:)` compared, is the conformance case
/// `fetch/mutated-predicates-never-trap` (Conformance/Cases/PredicateCases.swift; Docs/Testing.md).
@Suite struct PredicateFuzzTests {
    static let fragments = [
        "(", ")", "{", "}", "[", "]", ",", ".", "==", "=", "<", ">=", "!", "&&", "||", "AND", "OR", "NOT", "ANY",
        "ALL", "NONE", "IN", "BETWEEN", "LIKE", "MATCHES", "[cd]", "@count", "@sum", "@avg", "@max", ".@min",
        "%@", "%K", "%d", "%f", "$x", "$", "'", "\"", "\\", "\\u", "#", "0x", "0b1", "1e", "1e999", "-", "*", "**",
        "/", "SUBQUERY(", "CAST(", "'NSDate')", " ", "é", "\u{0}", "9999999999999999999999", "SELF", "nil",
        "TRUEPREDICATE", "[FIRST]", "[SIZE]", "[99]", "books", "price", "0", "-9223372036854775808", "/ 0",
    ]

    static let odd: [Any?] = [
        nil, NSNull(), "books", "a.b", "@count", 0, -1, Int64.max, Int64.min, UInt64.max, Double.nan,
        Double.infinity, Decimal.nan, Decimal(string: "1e100") ?? 0, "", [Any](), [nil, 1] as [Any?],
        Set([1, 2]), Date.distantFuture, Data(), Fixtures.person, NSObject(), true, ["k": 1],
    ]

    static let subjects: [Any?] = [
        Fixtures.person, Fixtures.dictionary, Fixtures.nsDictionary, nil, NSNull(), 0, "text", [1, 2, 3],
        Set(["a"]), Double.nan, Int64.min, Date(), Data([0]), [Fixtures.person, nil] as [Any?], NSObject(),
    ]

    @Test func mutatedFormatsNeverTrap() {
        var rng = SplitMix64(seed: 0x5EED_CAFE)
        var parsed = 0
        for _ in 0..<4000 {
            let base = predicateCases[Int(rng.next() % UInt64(predicateCases.count))]
            var chars = Array(base.format)
            for _ in 0...(rng.next() % 4) {
                let position = chars.isEmpty ? 0 : Int(rng.next() % UInt64(chars.count + 1))
                switch rng.next() % 5 {
                case 0 where !chars.isEmpty:
                    let end = min(chars.count, position + 1 + Int(rng.next() % 4))
                    if position < end { chars.removeSubrange(position..<end) }
                case 1:
                    let fragment = Self.fragments[Int(rng.next() % UInt64(Self.fragments.count))]
                    chars.insert(contentsOf: fragment, at: position)
                case 2 where chars.count > 1:
                    let other = Int(rng.next() % UInt64(chars.count))
                    if position < chars.count { chars.swapAt(position, other) }
                case 3 where position < chars.count:
                    let end = min(chars.count, position + Int(rng.next() % 8))
                    chars.insert(contentsOf: chars[position..<end], at: position)
                default:
                    let fragment = Self.fragments[Int(rng.next() % UInt64(Self.fragments.count))]
                    if position < chars.count { chars.replaceSubrange(position...position, with: fragment) }
                }
            }
            let format = String(chars)
            var arguments = base.arguments
            if rng.next() % 3 == 0 {
                arguments = (0..<Int(rng.next() % 4)).map { _ in Self.odd[Int(rng.next() % UInt64(Self.odd.count))] }
            }
            let predicate = NSPredicate(format: format, argumentArray: arguments.map { $0 ?? NSNull() })
            guard let node = predicate.parsedExpression else {
                #expect(predicate.parseError != nil)
                continue
            }
            parsed += 1
            for subject in Self.subjects {
                _ = predicate.evaluate(with: subject, substitutionVariables: ["x": 1])
            }
            let printed = node.format
            if let again = try? NSPredicate.parse(format: printed) {
                _ = again.evaluate(with: Fixtures.person)
            }
            _ = node.substituting(["x": Fixtures.person]).evaluate(with: Fixtures.person)
        }
        // The corpus should still parse often enough for evaluation to be exercised.
        #expect(parsed > 200)
    }

    @Test func oddArgumentsNeverTrap() {
        let formats = ["a == %@", "%K == 1", "a IN %@", "a BETWEEN %@", "a > %d", "a < %f", "ANY %K > %@", "%K.@sum == %@"]
        for format in formats {
            for a in Self.odd {
                for b in Self.odd {
                    let p = NSPredicate(format: format, argumentArray: [a ?? NSNull(), b ?? NSNull()])
                    for subject in Self.subjects {
                        _ = p.evaluate(with: subject)
                    }
                    _ = p.predicateFormat
                }
            }
        }
    }

    @Test func arithmeticExtremesNeverTrap() {
        let formats = [
            "-9223372036854775808 / -1 == 0", "9223372036854775807 * 2 > 0", "-(-9223372036854775808) > 0",
            "2 ** 64 > 0", "2 ** -1 == 0.5", "0 ** 0 == 1", "5 / 0 == nil", "CAST('1e999', 'NSNumber') > 0",
            "CAST(1e300, 'NSDecimalNumber') > 0", "@count == 0", "-0x8000000000000000 < 0",
            "CAST('nan', 'NSNumber') == 1",
        ]
        for format in formats {
            let p = NSPredicate(format: format)
            _ = p.evaluate(with: Fixtures.person)
            _ = p.predicateFormat
        }
    }
}

import Testing
@testable import CoreDataStoreKit

@Suite struct PredicateEvaluationTests {
    @Test func tableIsLargeEnough() {
        #expect(predicateCases.count >= 150)
    }

    @Test(arguments: predicateCases)
    func evaluates(_ c: PredicateCase) throws {
        let predicate = NSPredicate(format: c.format, argumentArray: c.arguments.map { $0 ?? NSNull() })
        #expect(predicate.parseError == nil, "\(predicate.parseError?.localizedDescription ?? "")")
        let result = predicate.evaluate(with: c.object, substitutionVariables: c.variables)
        #expect(result == c.expected)
        // The tree evaluates the same way as Foundation's entry point.
        let node = try #require(predicate.parsedExpression)
        #expect(node.evaluate(with: c.object, variables: c.variables) == c.expected)
        // A store's in-memory fetch (a predicate prepared once) answers the same, without variables.
        guard c.variables.isEmpty else { return }
        #expect(try InMemoryQuery.filter([c.object], by: predicate).count == (c.expected ? 1 : 0))
        if case .person = c.subject {
            #expect(try InMemoryQuery.filter([Fixtures.person], by: predicate).count == (c.expected ? 1 : 0))
        }
    }

    @Test(arguments: predicateCases)
    func roundTripsThroughCanonicalFormat(_ c: PredicateCase) throws {
        guard !c.hasObjectArgument else { return }
        let predicate = try NSPredicate.parse(format: c.format, arguments: c.arguments)
        let format = predicate.predicateFormat
        let reparsed = try NSPredicate.parse(format: format)
        #expect(reparsed.parsedExpression == predicate.parsedExpression, "\(format)")
        #expect(reparsed == predicate, "\(format)")
        #expect(reparsed.evaluate(with: c.object, substitutionVariables: c.variables) == c.expected)
    }

    @Test func variadicArgumentsCompileForFoundationValues() {
        let date = Date(timeIntervalSinceReferenceDate: 0)
        let values: [NSPredicate] = [
            NSPredicate(format: "born == %@", date),
            NSPredicate(format: "uuid == %@", Fixtures.uuid),
            NSPredicate(format: "data == %@", Data([1, 2, 3])),
            NSPredicate(format: "homepage == %@", Fixtures.homepage),
            NSPredicate(format: "balance == %@", Decimal(string: "100.25") ?? 0),
            NSPredicate(format: "age == %@", NSNumber(value: 30)),
            NSPredicate(format: "age IN %@", [10, 30]),
            NSPredicate(format: "age IN %@", Set([30])),
            NSPredicate(format: "name == %@ AND age == %d AND score > %f", "Alice", 30, 4.0),
            NSPredicate(format: "active == %@", true),
            NSPredicate(format: "nickname == %@", NSNull()),
            NSPredicate(format: "weight == %d", Int16(60)),
        ]
        for p in values {
            #expect(p.evaluate(with: Fixtures.person), "\(p)")
        }
    }

    @Test func objectArgumentsStayConstants() throws {
        let p = NSPredicate(format: "address == %@", argumentArray: [Fixtures.address])
        let node = try #require(p.parsedExpression)
        guard case .comparison(let c) = node, case .constant(.object(let o)) = c.rhs else {
            Issue.record("expected an object constant, got \(node)")
            return
        }
        #expect(o.object === Fixtures.address)
    }

    @Test func valueBlockAndCompoundPredicates() throws {
        #expect(NSPredicate(value: true).parsedExpression == .constant(true))
        #expect(NSPredicate(value: false).parsedExpression == .constant(false))
        let block = NSPredicate(block: { object, _ in (object as? String) == "x" })
        guard case .block(let reference)? = block.parsedExpression else {
            Issue.record("expected a block node")
            return
        }
        #expect(reference.predicate === block)
        let a = NSPredicate(format: "age > 20")
        let b = NSPredicate(format: "name == 'Alice'")
        let and = NSCompoundPredicate(andPredicateWithSubpredicates: [a, b])
        #expect(and.parsedExpression == .and([try #require(a.parsedExpression), try #require(b.parsedExpression)]))
        #expect(and.evaluate(with: Fixtures.person))
        let not = NSCompoundPredicate(notPredicateWithSubpredicate: a)
        #expect(!not.evaluate(with: Fixtures.person))
        #expect(not.canonicalFormat == "NOT age > 20")
        let or = NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(format: "age < 0"), block])
        #expect(or.evaluate(with: "x"))
        #expect(!or.evaluate(with: "y"))
        #expect(or.parsedExpression?.evaluate(with: "x") == true)
        let withBad = NSCompoundPredicate(andPredicateWithSubpredicates: [a, NSPredicate(format: "age >")])
        #expect(withBad.parsedExpression == nil)
        #expect(withBad.parseError != nil)
    }

    @Test func substitutionVariables() throws {
        let template = NSPredicate(format: "name BEGINSWITH[c] $letter AND SUBQUERY(books, $letter, $letter.price > $min).@count > 0")
        let filled = template.withSubstitutionVariables(["letter": "a", "min": 15])
        #expect(filled.predicateFormat
            == "name BEGINSWITH[c] \"a\" AND SUBQUERY(books, $letter, $letter.price > 15).@count > 0")
        #expect(filled.evaluate(with: Fixtures.person))
        #expect(!template.withSubstitutionVariables(["letter": "b", "min": 15]).evaluate(with: Fixtures.person))
    }

    @Test func canonicalFormats() throws {
        let cases: [(String, [Any?], String)] = [
            ("a = 1 && b =< 2 || !c <> 3", [], "(a == 1 AND b <= 2) OR NOT c != 3"),
            ("items.@sum.price > 5", [], "items.@sum.price > 5"),
            ("any x.y like[cd] 'a*'", [], "ANY x.y LIKE[cd] \"a*\""),
            ("d > %@", [Date(timeIntervalSinceReferenceDate: 12.5)], "d > CAST(12.5, \"NSDate\")"),
            ("%K == %@", ["size", "x"], "#size == \"x\""),
            ("a - (b - c) == -1", [], "a - (b - c) == -1"),
            ("x IN %@", [[1, "two"]], "x IN {1, \"two\"}"),
        ]
        for (format, args, expected) in cases {
            let p = try NSPredicate.parse(format: format, arguments: args)
            #expect(p.predicateFormat == expected)
            #expect(p.description == expected)
        }
    }

    @Test func everyNodeKindIsReachable() throws {
        let p = try NSPredicate.parse(format: "SUBQUERY(items, $i, CAST($i.d, 'NSNumber') + -x * 2 ** 3 > {1, y}[FIRST]).@count > 0")
        let node = try #require(p.parsedExpression)
        #expect(node.format == "SUBQUERY(items, $i, CAST($i.d, \"NSNumber\") + (-x * (2 ** 3)) > {1, y}[FIRST]).@count > 0")
    }
}

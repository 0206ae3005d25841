import Testing
@testable import CoreDataStoreKit

/// One malformed format and where its error must point.
struct MalformedFormat: CustomStringConvertible, @unchecked Sendable {
    let format: String
    let arguments: [Any?]
    /// The expected character offset, or nil when only "some offset" is checked (deep nesting).
    let offset: Int?
    /// A fragment the message must contain.
    let fragment: String

    init(_ format: String, _ arguments: [Any?] = [], at offset: Int?, _ fragment: String) {
        self.format = format
        self.arguments = arguments
        self.offset = offset
        self.fragment = fragment
    }

    var description: String { format.count > 60 ? String(format.prefix(60)) + "…" : format }
}

let malformedFormats: [MalformedFormat] = [
    .init("", at: 0, "expected an expression, found end of input"),
    .init("a ==", at: 4, "expected an expression, found end of input"),
    .init("a", at: 1, "expected a comparison operator"),
    .init("== 1", at: 0, "expected an expression, found \"==\""),
    .init("a == 1 AND", at: 10, "found end of input"),
    .init("a == 1 OR", at: 9, "found end of input"),
    .init("NOT", at: 3, "found end of input"),
    .init("(a == 1", at: 7, "expected \")\""),
    .init("a == 1)", at: 6, "after a complete predicate"),
    .init("a == 'abc", at: 5, "unterminated string"),
    .init("a == \"abc", at: 5, "unterminated string"),
    .init("a == 1 b", at: 7, "unexpected \"b\""),
    .init("a === 1", at: 4, "expected an expression"),
    .init("a == %@", at: 5, "no argument for \"%@\""),
    .init("%K == 1", [5], at: 0, "%K must be a non-empty key path string"),
    .init("%K == 1", [""], at: 0, "%K must be a non-empty key path string"),
    .init("%K == 1", ["a..b"], at: 0, "empty component"),
    .init("a == %d", ["x"], at: 5, "is not a number"),
    .init("a ==[x] 1", at: 5, "unknown comparison option \"x\""),
    .init("a ==[c 1", at: 7, "expected \"]\""),
    .init("a BETWEEN", at: 9, "expected an expression"),
    .init("SUBQUERY(items, x, x.a == 1).@count > 0", at: 16, "expected a $variable"),
    .init("SUBQUERY(items, $x)", at: 18, "expected \",\""),
    .init("count:(a, b) == 1", at: 0, "takes 1 argument, not 2"),
    .init("count: == 1", at: 7, "after the function name"),
    .init("now(1) == 1", at: 0, "takes 0 arguments, not 1"),
    .init("TERNARY(a == 1, b) == 1", at: 17, "expected \",\" after the TERNARY true expression"),
    .init("a UNION == 1", at: 8, "expected an expression"),
    .init("CAST(a, 'NSFoo') == 1", at: 8, "unsupported CAST type \"NSFoo\""),
    .init("CAST(a, b) == 1", at: 8, "expected a type name string"),
    .init("a.@foo == 1", at: 2, "unsupported collection operator \"@foo\""),
    .init("a. == 1", at: 3, "expected a key or a collection operator"),
    .init("a[FOO] == 1", at: 2, "expected FIRST, LAST, SIZE or an index"),
    .init("a == 0x", at: 5, "expected digits after \"0x\""),
    .init("a == 12abc", at: 7, "unexpected \"a\" in number"),
    .init("a == 1 ? 2", at: 7, "unexpected character \"?\""),
    .init("AND == 1", at: 0, "reserved word"),
    .init("a == $", at: 5, "expected a variable name"),
    .init("a == #", at: 5, "expected a word after \"#\""),
    .init("a == @", at: 5, "expected a collection operator name"),
    .init("{1, 2 == a", at: 6, "to close the array"),
    .init("a == 0b102", at: 5, "malformed or out-of-range number"),
    .init("a == 'x\\u12'", at: 7, "bad \\u escape"),
    .init("a == %y", at: 5, "unsupported format specifier \"%y\""),
    .init("a == 1 AND (b == 2", at: 18, "expected \")\""),
    .init("a == 0xFFFFFFFFFFFFFFFFFF", at: 5, "out-of-range"),
    .init("ANY", at: 3, "expected an expression"),
    .init("a IN {1, 2", at: 10, "to close the array"),
    .init(String(repeating: "(", count: 500) + "a == 1" + String(repeating: ")", count: 500), at: nil, "nested more than"),
    .init(String(repeating: "NOT ", count: 500) + "a == 1", at: nil, "nested more than"),
    .init(String(repeating: "-", count: 500) + "a == 1", at: nil, "nested more than"),
    .init("a" + String(repeating: " + a", count: 300) + " == 1", at: nil, "nested more than"),
    .init("a" + String(repeating: "[FIRST]", count: 300) + " == 1", at: nil, "nested more than"),
]

@Suite struct PredicateParseErrorTests {
    @Test func enoughMalformedFormats() {
        #expect(malformedFormats.count >= 30)
    }

    @Test(arguments: malformedFormats)
    func reportsPositionedError(_ m: MalformedFormat) throws {
        do {
            let p = try NSPredicate.parse(format: m.format, arguments: m.arguments)
            Issue.record("parsed as \(p.predicateFormat)")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == PredicateFormatError.code)
            let message = error.localizedDescription
            #expect(message.hasPrefix("Unable to parse the format string"), "\(message)")
            #expect(message.contains(m.fragment), "\(message)")
            let offset = try #require(error.userInfo[PredicateFormatError.offsetKey] as? Int)
            #expect(message.contains("at offset \(offset):"))
            if let expected = m.offset {
                #expect(offset == expected, "\(message)")
            }
        }
        // The non-throwing initializer stores the same error and evaluates to false.
        let stored = NSPredicate(format: m.format, argumentArray: m.arguments.map { $0 ?? NSNull() })
        #expect(stored.parseError != nil)
        #expect(stored.parsedExpression == nil)
        #expect(!stored.evaluate(with: Fixtures.person))
        #expect(throws: NSError.self) { try stored.validatedExpression() }
    }

    @Test func exampleMessageFromTheIssue() {
        let p = NSPredicate(format: "a ==")
        #expect(p.parseError?.localizedDescription
            == "Unable to parse the format string \"a ==\" at offset 4: expected an expression, found end of input")
    }
}

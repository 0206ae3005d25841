import CoreData
import Foundation
import Testing
import CoreDataSQL
@testable import CoreDataSQLite

/// The SQL compiler translates a predicate whole or leaves it whole to memory: a translated condition uses
/// exactly the values it bound, a refused one leaves no value bound and no join behind. (The conformance case
/// `fetch/predicates-agree-with-evaluate` checks the meaning; this checks that SQL does the work it can.)
@Suite struct SQLitePredicateCompilerTests {
    static let model = PredicateMeaningTests.model()

    struct Compiled {
        let sql: String?
        let bindings: Int
        let joins: Int
        /// The highest `?N` the SQL uses.
        var highestParameter: Int {
            guard let sql else { return 0 }
            let regex = try? NSRegularExpression(pattern: "\\?([0-9]+)")
            let matches = regex?.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)) ?? []
            return matches.compactMap { Range($0.range(at: 1), in: sql).flatMap { Int(sql[$0]) } }.max() ?? 0
        }
    }

    func compile(_ format: String, on entityName: String = "Author") throws -> Compiled {
        let entity = try #require(Self.model.entitiesByName[entityName])
        let compiler = SQLPredicateCompiler(schema: SQLSchema(model: Self.model, entities: Self.model.entities, dialect: SQLiteDialect()))
        let scope = SQLPredicateCompiler.Scope(alias: "t0", entity: entity)
        let node = try #require(NSPredicate(format: format).parsedExpression)
        let sql = compiler.compile(node, in: scope)
        return Compiled(sql: sql, bindings: compiler.bindings.count, joins: scope.joins.count)
    }

    static let translated = [
        "name == 'Ann'", "'E' ENDSWITH[c] name", "45 < age", "age BETWEEN {20, 40 / 40}", "note BEGINSWITH ''",
        "name IN 'Ann and a?e'", "ANY books.pages > 5", "ALL books.note != note", "books.title CONTAINS 'Ode'",
        "SUBQUERY(books, $b, $b.price > 10 AND $b.title CONTAINS 'a').@count == 1", "name MATCHES[c] 'a.*'",
        "name LIKE[cd] 'A*'", "name IN {'Ann', nil, 3}", "NOT (note == nil OR age >= 30)", "books.@avg.price > 10",
    ]

    @Test(arguments: translated) func translatesWithExactlyTheValuesItBinds(_ format: String) throws {
        let compiled = try compile(format)
        #expect(compiled.sql != nil)
        #expect(compiled.highestParameter == compiled.bindings, "\(compiled.sql ?? "nil")")
    }

    /// Comparisons of values of different kinds, or of constants only, are constants that bind nothing.
    @Test(arguments: ["age == '30'", "age < 'x'", "name BEGINSWITH 5", "1 == 1", "name IN 7", "age BETWEEN {1, 'z'}"])
    func constantComparisonsBindNothing(_ format: String) throws {
        let compiled = try compile(format)
        #expect(compiled.sql == "FALSE" || compiled.sql == "TRUE")
        #expect(compiled.bindings == 0)
    }

    static let refused = [
        "'a*e' LIKE[c] name", "books.pages > 5", "name BEGINSWITH 'e' AND 'x' LIKE note",
        "SUBQUERY(books, $b, $b.price > 10 AND ALL $b.title CONTAINS 'a').@count == 1", "name LIKE 'a\\\\*'",
        "NOT (age == 3 OR books.title == 'Ode')",
    ]

    @Test(arguments: refused) func leavesNothingBehindWhenItRefuses(_ format: String) throws {
        let compiled = try compile(format)
        #expect(compiled.sql == nil)
        #expect(compiled.bindings == 0)
        #expect(compiled.joins == 0)
    }

    @Test func aRefusedComparisonTakesBackItsJoins() throws {
        #expect(try compile("author.name == 'Ann'", on: "Book").joins == 1)
        let refused = try compile("author.name == 'Ann' AND 'x' LIKE author.note", on: "Book")
        #expect(refused.sql == nil)
        #expect(refused.bindings == 0)
        #expect(refused.joins == 0)
    }
}

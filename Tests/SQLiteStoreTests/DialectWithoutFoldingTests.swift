import CoreData
import CoreDataSQL
import Foundation
import Testing
@testable import CoreDataSQLite

/// A dialect that cannot fold strings or match regular expressions as the evaluator does
/// (`SQLDialect.fold` and `matches` return nil) leaves exactly what needs them to memory: every `[c]`/`[d]`
/// string comparison, every `MATCHES`, every case-insensitive sort, whole and with nothing left behind.
/// Everything else compiles as it does with `SQLiteDialect`.
@Suite struct DialectWithoutFoldingTests {
    /// `SQLiteDialect` without its two registered functions.
    struct Foldless: SQLDialect {
        let base = SQLiteDialect()
        func columnType(of type: NSAttributeType) -> String { base.columnType(of: type) }
        var keyColumnType: String { base.keyColumnType }
        var primaryKeyColumnType: String { base.primaryKeyColumnType }
        func indexKey(_ column: String, type: NSAttributeType?, ascending: Bool) -> String { base.indexKey(column, type: type, ascending: ascending) }
        func encode(_ value: Any?, as type: NSAttributeType, externalStorage: Bool) -> SQLValue? {
            base.encode(value, as: type, externalStorage: externalStorage)
        }
        func placeholder(_ number: Int, for value: SQLValue, type: NSAttributeType?) -> String { base.placeholder(number, for: value, type: type) }
        func readExpression(_ columnSQL: String, type: NSAttributeType) -> String { base.readExpression(columnSQL, type: type) }
        func nullSafeEqual(_ lhs: String, _ rhs: String, negated: Bool) -> String { base.nullSafeEqual(lhs, rhs, negated: negated) }
        func orderedByCodePoint(_ text: String) -> String { base.orderedByCodePoint(text) }
        func orderTerm(_ sql: String, ascending: Bool) -> String { base.orderTerm(sql, ascending: ascending) }
        func length(_ text: String) -> String { base.length(text) }
        func prefix(_ text: String, length: String) -> String { base.prefix(text, length: length) }
        func suffix(_ text: String, length: String) -> String { base.suffix(text, length: length) }
        func position(of part: String, in text: String) -> String { base.position(of: part, in: text) }
        func likePattern(_ pattern: String) -> String { base.likePattern(pattern) }
        func like(_ text: String, pattern: String) -> String { base.like(text, pattern: pattern) }
        func fold(_ text: String, _ options: PredicateComparison.Options) -> String? { nil }
        func matches(_ text: String, pattern: String, _ options: PredicateComparison.Options) -> String? { nil }
        func aggregate(_ function: PredicateOperand.Aggregate, of expression: String, type: NSAttributeType?) -> String? {
            base.aggregate(function, of: expression, type: type)
        }
        func limitClause(limit: Int?, offset: Int, bind: (SQLValue) -> String) -> String { base.limitClause(limit: limit, offset: offset, bind: bind) }
        func migratedColumn(_ columnSQL: String, from oldType: String, to newType: String) -> String? {
            base.migratedColumn(columnSQL, from: oldType, to: newType)
        }
        func storedValue(_ valueSQL: String, type: NSAttributeType) -> String { base.storedValue(valueSQL, type: type) }
    }

    static let model = PredicateMeaningTests.model()

    func compiler(_ dialect: any SQLDialect) -> SQLPredicateCompiler {
        SQLPredicateCompiler(schema: SQLSchema(model: Self.model, entities: Self.model.entities, dialect: dialect))
    }

    /// The condition, bound values and joins `format` compiles to on `Author` in `dialect`.
    func compile(_ format: String, in dialect: any SQLDialect) throws -> (sql: String?, bindings: Int, joins: Int) {
        let compiler = compiler(dialect)
        let scope = SQLPredicateCompiler.Scope(alias: "t0", entity: try #require(Self.model.entitiesByName["Author"]))
        let sql = compiler.compile(try #require(NSPredicate(format: format).parsedExpression), in: scope)
        return (sql, compiler.bindings.count, scope.joins.count)
    }

    @Test(arguments: [
        "name ==[c] 'ann'", "name !=[d] 'e'", "name BEGINSWITH[cd] 'a'", "name <[c] 'b'", "name BETWEEN[c] {'a', 'f'}",
        "name IN[c] {'ann', 'e'}", "name IN[c] 'ann and e'", "name LIKE[c] 'a*'", "name MATCHES 'A.*'",
        "ANY books.title ==[cd] 'ode'", "age > 3 AND name CONTAINS[c] 'n'",
    ])
    func leavesFoldingAndMatchingToMemory(_ format: String) throws {
        #expect(try compile(format, in: SQLiteDialect()).sql != nil)
        let compiled = try compile(format, in: Foldless())
        #expect(compiled.sql == nil)
        #expect(compiled.bindings == 0)
        #expect(compiled.joins == 0)
    }

    @Test(arguments: ["name == 'Ann'", "age ==[c] 30", "name LIKE 'A*'", "name BEGINSWITH 'A'", "name IN {'Ann', 'e'}", "books.@max.title < 'T'"])
    func compilesTheRestAsSQLiteDoes(_ format: String) throws {
        let sqlite = try compile(format, in: SQLiteDialect())
        let foldless = try compile(format, in: Foldless())
        #expect(foldless.sql != nil)
        #expect(foldless.sql == sqlite.sql)
        #expect(foldless.bindings == sqlite.bindings)
    }

    @Test func sortsCaseInsensitivelyOnlyInMemory() throws {
        let author = try #require(Self.model.entitiesByName["Author"])
        let plain = [NSSortDescriptor(key: "name", ascending: true)]
        let folded = [NSSortDescriptor(key: "name", ascending: false, comparison: .caseInsensitiveCompare)]
        #expect(compiler(Foldless()).orderBy(plain, in: .init(alias: "t0", entity: author)) == ["t0.ZNAME ASC"])
        #expect(compiler(Foldless()).orderBy(folded, in: .init(alias: "t0", entity: author)) == nil)
        #expect(compiler(SQLiteDialect()).orderBy(folded, in: .init(alias: "t0", entity: author)) == ["NSCoreDataFold(t0.ZNAME, 1) DESC"])
    }
}

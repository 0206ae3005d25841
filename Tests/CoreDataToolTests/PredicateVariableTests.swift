import CoreData
import Foundation
import Testing

/// `coredata query --where` with `$variables`: one that nothing binds is a usage error naming it (it would
/// match nothing), `--var name=value` binds it (as a literal of the predicate language, else as a string),
/// and a `--var` the predicate does not use is a usage error too. Run through the tool's process on stores of
/// every file type.
@Suite struct PredicateVariableTests {
    func query(_ store: URL, model: URL, _ arguments: [String]) throws -> ToolProcess.Outcome {
        try ToolProcess.run(["query", store.path, "--entity", "Book", "--model", model.path, "--fields", "title", "--format", "csv"] + arguments)
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func anUnboundVariableIsAUsageErrorNamingIt(_ type: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: model)
        let run = try query(store, model: model, ["--where", "pages > $min AND title != $skip"])
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.error.hasPrefix("coredata query: --where uses $min, $skip, which nothing binds (it would match nothing); "
                                    + "give their values with --var min=<value> --var skip=<value>\n"), "\(run.error)")
        let count = try ToolProcess.run(["query", store.path, "--entity", "Book", "--model", model.path, "--count", "--where", "pages > $min"])
        #expect(count.status == 64, "--count checks the predicate too")
        #expect(count.error.contains("$min"))
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func varBindsNumbersStringsAndQuotedLiterals(_ type: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: model)
        let cases: [([String], [String])] = [
            (["--where", "pages > $min", "--var", "min=100"], [ToolLibrary.fullTitle]),
            (["--where", "pages > $min", "--var", "min=1000"], []),
            (["--where", "title == $t", "--var", "t=Empty"], ["Empty"]),
            (["--where", "title == $t", "--var=t='Empty'"], ["Empty"]),
            (["--where", "inPrint == $flag AND rating >= $r", "--var", "flag=YES", "--var", "$r=4.5"], [ToolLibrary.fullTitle]),
            (["--where", "pages IN $some", "--var", "some={1, 412}"], [ToolLibrary.fullTitle]),
            (["--where", "pages == $none", "--var", "none=nil"], ["Empty"]),
        ]
        for (arguments, titles) in cases {
            let run = try query(store, model: model, arguments)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            let rows = run.output.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
            #expect(rows.count == titles.count, "\(type) \(arguments): \(run.output)")
            #expect(titles.allSatisfy { title in run.output.contains(title.contains("\"") ? "\"" + title.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : ",\(title)") },
                    "\(type) \(arguments): \(run.output)")
        }
    }

    @Test func aSubqueryVariableIsBoundByItsSubquery() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let run = try ToolProcess.run(["query", store.path, "--entity", "Author", "--count",
                                       "--where", "SUBQUERY(books, $b, $b.pages > $min).@count > 0", "--var", "min=400"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "1\n")
        let unbound = try ToolProcess.run(["query", store.path, "--entity", "Author", "--count", "--where", "SUBQUERY(books, $b, $b.pages > $min).@count > 0"])
        #expect(unbound.status == 64)
        #expect(unbound.error.contains("--where uses $min,"), "only $min is free: \(unbound.error)")
    }

    @Test(arguments: [
        (["--where", "pages > $min", "--var", "min=1", "--var", "max=3"], "--var binds $max, which --where does not use (it uses $min)"),
        (["--var", "min=3"], "--var binds $min, but there is no --where"),
        (["--where", "pages > $min", "--var", "min"], "--var takes name=value, not min"),
        (["--where", "pages > $min", "--var", "=3"], "--var =3 has no name before ="),
        (["--where", "pages > $min", "--var", "min=1", "--var", "min=2"], "--var min is given twice"),
    ])
    func badVarsAreUsageErrors(_ arguments: [String], _ message: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let run = try query(store, model: model, arguments)
        #expect(run.status == 64, "\(arguments)")
        #expect(run.error.hasPrefix("coredata query: \(message)\n"), "\(run.error)")
    }
}

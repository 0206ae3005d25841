import CoreData
import Foundation
import Testing

/// `coredata query --format table|json|jsonl|csv`, `--fields`, `--count`, `--limit`, `--offset`: values as a
/// user reads them, the same in every format and from every store type. Run through the tool's process on
/// `ToolLibrary`'s stores.
@Suite struct QueryOutputTests {
    /// Runs `coredata query <store> --entity <entity> <arguments>` (with `--model` unless nil).
    func query(_ store: URL, _ entity: String, model: URL?, _ arguments: [String]) throws -> ToolProcess.Outcome {
        try ToolProcess.run(["query", store.path, "--entity", entity] + (model.map { ["--model", $0.path] } ?? []) + arguments)
    }

    /// The books as JSON Lines sorted by title ("Dune…" first), and their object IDs.
    func books(_ store: URL, model: URL?) throws -> (lines: [String], ids: [String]) {
        let run = try query(store, "Book", model: model, ["--format", "jsonl", "--sort", "title"])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        let ids = try lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            return try #require(object["objectID"] as? String)
        }
        return (lines, ids)
    }

    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func jsonShowsValuesAsAUserReadsThem(_ type: String) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: model)
        let (lines, ids) = try books(store, model: model)
        try #require(lines.count == 2)
        let storeID = try #require(URL(string: ids[0])?.host)
        let author = "x-coredata://\(storeID)/Author/p1"
        #expect(lines[0].hasPrefix("{\"objectID\":\"\(ids[0])\",\"entity\":\"Book\","), "\(lines[0])")
        for fragment in ["\"title\":\"Dune, \\\"the\\\" novel\\nline2\"", "\"pages\":412", "\"small\":-3", "\"big\":9007199254740993",
                         "\"rating\":4.5", "\"weight\":0.25", "\"price\":19.99", "\"inPrint\":true", "\"published\":\"1970-01-01T00:00:00Z\"",
                         "\"cover\":\"20 bytes: 000102030405060708090a0b0c0d0e0f…\"", "\"isbn\":\"\(ToolLibrary.isbn.uuidString)\"",
                         "\"link\":\"https://example.com/a?b=c\"", "\"extras\":{\"tags\":[\"sf\",\"classic\"],\"year\":1965}",
                         "\"author\":\"\(author)\""] {
            #expect(lines[0].contains(fragment), "\(type): \(fragment) not in \(lines[0])")
        }
        for fragment in ["\"title\":\"Empty\"", "\"pages\":null", "\"inPrint\":false", "\"published\":null", "\"cover\":null",
                         "\"extras\":null", "\"author\":\"\(author)\""] {
            #expect(lines[1].contains(fragment), "\(type): \(fragment) not in \(lines[1])")
        }
        let authors = try query(store, "Author", model: model, ["--format", "json"])
        #expect(authors.status == 0, "\(authors.error)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(authors.output.utf8)) as? [[String: Any]])
        #expect(array.count == 1)
        #expect(array.first?["objectID"] as? String == author)
        #expect(array.first?["entity"] as? String == "Author")
        #expect((array.first?["books"] as? [String]).map(Set.init) == Set(ids), "a to-many lists its destinations' IDs")
    }

    /// The same objects give the same output from every store type (but for the store's UUID and the numbers
    /// each store gives the books, in IDs).
    @Test func everyStoreTypePrintsTheSame() throws {
        let model = try ToolLibrary.writeModel()
        var outputs: [String] = []
        for type in [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType] {
            let store = try ToolLibrary.writeStore(type: type, named: "library.store", model: model)
            let (lines, ids) = try books(store, model: model)
            let storeID = try #require(ids.first.flatMap { URL(string: $0)?.host })
            outputs.append(lines.joined(separator: "\n").replacingOccurrences(of: storeID, with: "STORE")
                .replacingOccurrences(of: "/Book/p[0-9]+", with: "/Book/p#", options: .regularExpression))
        }
        #expect(outputs[1] == outputs[0])
        #expect(outputs[2] == outputs[0])
    }

    @Test func csvFollowsRFC4180() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let ids = try books(store, model: nil).ids
        let run = try query(store, "Book", model: nil, ["--format", "csv", "--sort", "title", "--fields", "title,pages,inPrint,published,author.name,extras"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "objectID,entity,title,pages,inPrint,published,author.name,extras\r\n"
                + "\(ids[0]),Book,\"Dune, \"\"the\"\" novel\nline2\",412,true,1970-01-01T00:00:00Z,Le Guin,\"{\"\"tags\"\":[\"\"sf\"\",\"\"classic\"\"],\"\"year\"\":1965}\"\r\n"
                + "\(ids[1]),Book,Empty,,false,,Le Guin,\r\n")
    }

    @Test func tableAlignsColumnsAndCutsLongValues() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let short = try books(store, model: nil).ids.map { $0.split(separator: "/").suffix(2).joined(separator: "/") }
        let run = try query(store, "Book", model: nil, ["--sort", "title", "--fields", "title,inPrint,author,cover"])
        #expect(run.status == 0, "\(run.error)")
        let expected = """
            objectID  title                     inPrint  author     cover
            --------  ------------------------  -------  ---------  ----------------------------------------
            \(short[0])   Dune, "the" novel\\nline2  true     Author/p1  20 bytes: 000102030405060708090a0b0c0d0…
            \(short[1])   Empty                     false    Author/p1
            (2 Book objects; model: cached in the store)

            """
        #expect(run.output == expected, "\n\(run.output)")
    }

    @Test func countLimitAndOffset() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSBinaryStoreType, named: "library", model: model)
        #expect(try query(store, "Book", model: model, ["--count"]).output == "2\n")
        #expect(try query(store, "Book", model: model, ["--count", "--where", "inPrint == YES"]).output == "1\n")
        let second = try query(store, "Book", model: model, ["--sort", "title", "--limit", "1", "--offset=1", "--fields", "title", "--format", "jsonl"])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.hasSuffix(",\"entity\":\"Book\",\"title\":\"Empty\"}\n"), "\(second.output)")
        #expect(second.output.split(separator: "\n").count == 1)
        let none = try query(store, "Book", model: model, ["--where", "pages > 1000", "--format", "json"])
        #expect(none.output == "[]\n")
    }

    /// An unknown key is one error, word for word, wherever it is given.
    @Test func anUnknownKeyIsTheSameErrorInWhereSortAndFields() throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSXMLStoreType, named: "library.xml", model: model)
        let runs = try [["--where", "colour == 'red'"], ["--sort", "-colour"], ["--fields", "title,colour"]].map {
            try query(store, "Book", model: model, $0)
        }
        for run in runs {
            #expect(run.status == 1)
            #expect(run.error == "coredata query: The key path \"colour\" names \"colour\", which is not a property of entity Book\n", "\(run.error)")
        }
        let acrossToMany = try query(store, "Author", model: model, ["--fields", "books.title"])
        #expect(acrossToMany.status == 1)
        #expect(acrossToMany.error.contains("crosses the to-many relationship \"books\""), "\(acrossToMany.error)")
        let entity = try query(store, "Bok", model: model, [])
        #expect(entity.status == 64)
        #expect(entity.error.contains("the model has no entity Bok (it has Author, Book); did you mean Book?"), "\(entity.error)")
    }

    @Test(arguments: [["--format", "yaml"], ["--count", "--fields", "title"], ["--offset", "-1"], ["--limit", "ten"], ["--fields", "title,,pages"]])
    func badOptionsAreUsageErrors(_ arguments: [String]) throws {
        let model = try ToolLibrary.writeModel()
        let store = try ToolLibrary.writeStore(type: NSSQLiteStoreType, named: "library.sqlite", model: model)
        let run = try query(store, "Book", model: nil, arguments)
        #expect(run.status == 64, "\(arguments): \(run.error)")
        #expect(run.output.isEmpty)
    }
}

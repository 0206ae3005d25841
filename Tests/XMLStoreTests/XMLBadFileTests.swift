import Testing
import CoreData
import StoreTestSupport

/// Files that are not XML stores, or damaged ones, give Apple's error codes and are left as they were.
@Suite struct XMLBadFileTests {
    /// Opens `contents` as an XML store and returns the error code; the file must be unchanged afterwards.
    private func openCode(_ contents: Data, model: NSManagedObjectModel = everyTypeModel(),
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> Int? {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        try contents.write(to: url)
        let code = errorCode { _ = try openStore(.xml, at: url, model: model) }
        #expect(try Data(contentsOf: url) == contents, "the file must be left as it was", sourceLocation: sourceLocation)
        return code
    }

    /// A valid XML store written by this package, as bytes.
    private func validStore(items: Int = 12) throws -> Data {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        try populate(try openStore(.xml, at: url, model: everyTypeModel()), items: items)
        return try Data(contentsOf: url)
    }

    @Test(arguments: [
        ("empty", ""), ("white space", "  \n\t "), ("plain text", "hello, world"), ("JSON", "{\"database\": []}"),
        ("another XML document", "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>"),
        ("HTML", "<!DOCTYPE html><html><body>no</body></html>"),
        ("SQLite header", "SQLite format 3\u{0}\u{10}\u{0}\u{1}\u{1}"),
    ])
    func notAStore(_ label: String, _ text: String) throws {
        #expect(try openCode(Data(text.utf8)) == 134000, "\(label)")
    }

    @Test func binaryStoreIsNotAnXMLStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.binary")
        try populate(try openStore(.binary, at: url, model: everyTypeModel()), items: 3)
        #expect(try openCode(try Data(contentsOf: url)) == 134000)
    }

    @Test func truncatedFilesAreDamaged() throws {
        let valid = try validStore()
        let start = try #require(valid.range(of: Data("<database>".utf8))).upperBound
        let end = try #require(valid.range(of: Data("</database>".utf8))).upperBound
        for length in stride(from: start + 1, to: end, by: max(1, (end - start) / 37)) + [end - 1] {
            #expect(try openCode(valid.prefix(length)) == 259, "truncated to \(length) of \(valid.count)")
        }
    }

    @Test(arguments: [
        ("a broken end tag", "</object>", "</objecX>"),
        ("a bad integer", "type=\"int16\">1<", "type=\"int16\">x<"),
        ("a bad date", "type=\"date\">700000000.", "type=\"date\">7OO000000."),
        ("a bad boolean", "type=\"bool\">1<", "type=\"bool\">2<"),
        ("bad base64", "type=\"binary\">AQ==", "type=\"binary\">A*=="),
        ("an unknown type", "type=\"int32\"", "type=\"int99\""),
        ("a bad id", "id=\"z", "id=\"q"),
        ("a bad reference", "idrefs=\"z", "idrefs=\"y"),
        ("a wrong version", "<version>134481920", "<version>999"),
        ("an unexpected element", "<object ", "<objekt "),
        ("an entity reference", "<database>", "<!DOCTYPE database [<!ENTITY e \"x\">]><database>&e;"),
    ])
    func damagedContentIsCorrupt(_ label: String, _ original: String, _ replacement: String) throws {
        let valid = try validStore()
        let text = try #require(String(data: valid, encoding: .utf8))
        let range = try #require(text.range(of: original), "\(label)")
        var damaged = text.replacingCharacters(in: range, with: replacement)
        if label == "an entity reference" { damaged = damaged.replacingOccurrences(of: "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">", with: "") }
        #expect(try openCode(Data(damaged.utf8)) == 259, "\(label)")
    }

    @Test func duplicateIDsAreCorrupt() throws {
        let text = """
        <?xml version="1.0"?><database><databaseInfo><version>134481920</version><UUID></UUID><nextObjectID>3</nextObjectID><metadata></metadata></databaseInfo>
        <object type="TAG" id="z1"></object><object type="OWNER" id="z1"></object></database>
        """
        #expect(try openCode(Data(text.utf8)) == 259)
    }

    /// Deterministic fuzzing: real store files (Apple's fixtures and one of ours), truncated, with bytes flipped,
    /// inserted or deleted, never trap; each either opens or throws 134000, 259 or 134100, and is left as it was.
    @Test func fuzzedFilesNeverTrap() throws {
        var sources: [(Data, NSManagedObjectModel)] = [(try validStore(items: 6), everyTypeModel())]
        if let directory = Fixtures.xmlDirectory {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".xml") || name.hasSuffix(".crx") {
                sources.append((try Data(contentsOf: directory.appendingPathComponent(name)), AppleFixtureModels.model(for: URL(fileURLWithPath: name))))
            }
        }
        var random = SplitMix64(seed: 0x5EED_C0DE)
        var outcomes: [Int: Int] = [:]
        for (source, model) in sources {
            for _ in 0..<60 {
                let mutated = mutate(source, &random)
                let code = try openCode(mutated, model: model) ?? 0
                outcomes[code, default: 0] += 1
            }
        }
        #expect(Set(outcomes.keys).isSubset(of: [0, 134000, 259, 134100]), "\(outcomes)")
    }
}

import CoreData
import CoreDataSQLite
import Foundation
import Testing

/// The `Z_DA_…` triggers of every derivation Apple's SQLite store supports, as the format strings of Apple's
/// `NSSQLDerivedAttributeSQLGenerator` spell them (read off the decompiled CoreData.framework of tvOS 18.2.1;
/// SQLiteStore.md "Derived attributes"), checked in the file a new store writes, and the values they keep
/// through saves that move, change, empty and delete, seen by the saving context and after a reopen.
@Suite struct DerivedAttributeAppleSQLTests {
    static func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
        let attribute = NSDerivedAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.derivationExpressionFormat = format
        return attribute
    }

    /// `Author` {name, books} with `pageTotal` = `books.@sum.pages`, `shortest` = `books.@min.pages`, `longest` =
    /// `books.@max.pages`; `Book` {title, pages, author, tags} with `tagCount` = `tags.@count` (a many-to-many),
    /// `authorName` = `author.name`, `lowerTitle` = `lowercase:(title)`, `titleCopy` = `title`, `savedAt` =
    /// `now()`; `Tag` {label, books}.
    static func libraryModel() -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author")
        let book = NSEntityDescription(name: "Book")
        let tag = NSEntityDescription(name: "Tag")
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        let writer = NSRelationshipDescription(name: "author", destination: author, toMany: false)
        (books.inverseRelationship, writer.inverseRelationship) = (writer, books)
        let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
        let tagged = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        (tags.inverseRelationship, tagged.inverseRelationship) = (tagged, tags)
        author.properties = [
            NSAttributeDescription(name: "name", type: .string), books,
            derived("pageTotal", .integer64AttributeType, "books.@sum.pages"),
            derived("shortest", .integer64AttributeType, "books.@min.pages"),
            derived("longest", .integer64AttributeType, "books.@max.pages"),
        ]
        book.properties = [
            NSAttributeDescription(name: "title", type: .string), NSAttributeDescription(name: "pages", type: .integer64), writer, tags,
            derived("tagCount", .integer64AttributeType, "tags.@count"),
            derived("authorName", .stringAttributeType, "author.name"),
            derived("lowerTitle", .stringAttributeType, "lowercase:(title)"),
            derived("titleCopy", .stringAttributeType, "title"),
            derived("savedAt", .dateAttributeType, "now()"),
        ]
        tag.properties = [NSAttributeDescription(name: "label", type: .string), tagged]
        return NSManagedObjectModel(entities: [author, book, tag])
    }

    /// Every `Z_DA_…` trigger of the file, by name, as SQLite keeps its text (`IF NOT EXISTS` dropped).
    static func triggers(_ url: URL) -> [String: String] {
        Dictionary(uniqueKeysWithValues: RawSQLite.rows(url, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z_DA_%'")
            .map { ($0[0], $0[1]) })
    }

    /// Apple's report of the rows a trigger changed: `SELECT <function>('T', Z_ENT, Z_PK, 'name', C) FROM T WHERE …;`.
    static func report(_ table: String, _ name: String, _ column: String, where condition: String,
                       by function: String = "NSCoreDataDATriggerUpdatedAffectedObjectValue") -> String {
        "SELECT \(function)('\(table)', Z_ENT, Z_PK, '\(name)', \(column)) FROM \(table) WHERE \(condition);"
    }

    static let insertUpdated = "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"

    @Test func sumOfAOneToManyIsApples() throws {
        let url = TemporaryStore.url()
        try Stack(model: Self.libraryModel(), url: url).close()
        let triggers = Self.triggers(url)
        let p = "Z_DA_ZBOOK_Author_pageTotal_PARAMETER"
        let reportNew = Self.report("ZAUTHOR", "pageTotal", "ZPAGETOTAL", where: "Z_PK = NEW.ZAUTHOR")
        let reportOld = Self.report("ZAUTHOR", "pageTotal", "ZPAGETOTAL", where: "Z_PK = OLD.ZAUTHOR")
        #expect(triggers["\(p)_INSERT"] == "CREATE TRIGGER \(p)_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW WHEN (NEW.ZAUTHOR NOT NULL) BEGIN"
            + " UPDATE ZAUTHOR SET ZPAGETOTAL = IFNULL(ZPAGETOTAL, 0) + IFNULL(NEW.ZPAGES, 0) WHERE Z_PK = NEW.ZAUTHOR; \(reportNew) END")
        #expect(triggers["\(p)_UPDATE_INCREMENT"] == "CREATE TRIGGER \(p)_UPDATE_INCREMENT AFTER UPDATE OF ZAUTHOR, ZPAGES ON ZBOOK FOR EACH ROW"
            + " WHEN (NEW.ZAUTHOR NOT NULL) BEGIN UPDATE ZAUTHOR SET ZPAGETOTAL = ZPAGETOTAL + IFNULL(NEW.ZPAGES, 0) WHERE Z_PK = NEW.ZAUTHOR; \(reportNew) END")
        #expect(triggers["\(p)_UPDATE_DECREMENT"] == "CREATE TRIGGER \(p)_UPDATE_DECREMENT AFTER UPDATE OF ZAUTHOR, ZPAGES ON ZBOOK FOR EACH ROW"
            + " WHEN (OLD.ZAUTHOR NOT NULL) BEGIN UPDATE ZAUTHOR SET ZPAGETOTAL = ZPAGETOTAL - IFNULL(OLD.ZPAGES, 0) WHERE Z_PK = OLD.ZAUTHOR; \(reportOld) END")
        #expect(triggers["\(p)_DELETE"] == "CREATE TRIGGER \(p)_DELETE AFTER DELETE ON ZBOOK FOR EACH ROW WHEN (OLD.ZAUTHOR NOT NULL) BEGIN"
            + " UPDATE ZAUTHOR SET ZPAGETOTAL = ZPAGETOTAL - IFNULL(OLD.ZPAGES, 0) WHERE Z_PK = OLD.ZAUTHOR; \(reportOld) END")
        let s = "Z_DA_ZAUTHOR_Author_pageTotal_SOURCE_INSERT"
        #expect(triggers[s] == "CREATE TRIGGER \(s) AFTER INSERT ON ZAUTHOR FOR EACH ROW BEGIN"
            + " UPDATE ZAUTHOR SET ZPAGETOTAL = (SELECT IFNULL(SUM(ZPAGES), 0) FROM ZBOOK WHERE ZAUTHOR = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
            + Self.report("ZAUTHOR", "pageTotal", "ZPAGETOTAL", where: "Z_PK = NEW.Z_PK", by: Self.insertUpdated) + " END")
        #expect(triggers.keys.filter { $0.contains("_pageTotal_") }.count == 5)
    }

    @Test func minimumOfAOneToManyIsApplesAndReportsAnEmptiedOwner() throws {
        let url = TemporaryStore.url()
        try Stack(model: Self.libraryModel(), url: url).close()
        let triggers = Self.triggers(url)
        let x = "Z_DA_ZBOOK_Author_shortest"
        func report(_ condition: String) -> String { Self.report("ZAUTHOR", "shortest", "ZSHORTEST", where: condition) }
        let recompute = "UPDATE ZAUTHOR SET ZSHORTEST = (SELECT MIN(ZPAGES) FROM ZBOOK WHERE ZAUTHOR = OLD.ZAUTHOR) WHERE Z_PK = OLD.ZAUTHOR AND OLD.ZPAGES <= ZSHORTEST;"
        let takeNew = "UPDATE ZAUTHOR SET ZSHORTEST = NEW.ZPAGES WHERE Z_PK = NEW.ZAUTHOR AND (ZSHORTEST IS NULL OR NEW.ZPAGES < ZSHORTEST);"
        let reportOld = report("Z_PK = OLD.ZAUTHOR AND (ZSHORTEST IS NULL OR OLD.ZPAGES <= ZSHORTEST)")
        #expect(triggers["\(x)_INSERT"] == "CREATE TRIGGER \(x)_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW WHEN (NEW.ZAUTHOR NOT NULL AND NEW.ZPAGES NOT NULL)"
            + " BEGIN \(takeNew) \(report("Z_PK = NEW.ZAUTHOR AND (ZSHORTEST IS NULL OR NEW.ZPAGES <= ZSHORTEST)")) END")
        // Apple's reports the old owner here with `OLD.ZPAGES <= ZSHORTEST` alone, missing an owner left with none.
        #expect(triggers["\(x)_UPDATE_SET"] == "CREATE TRIGGER \(x)_UPDATE_SET AFTER UPDATE OF ZAUTHOR, ZPAGES ON ZBOOK FOR EACH ROW"
            + " WHEN (NEW.ZAUTHOR NOT NULL AND NEW.ZPAGES NOT NULL) BEGIN \(recompute) \(reportOld) \(takeNew)"
            + " \(report("Z_PK = NEW.ZAUTHOR AND NEW.ZPAGES <= ZSHORTEST")) END")
        #expect(triggers["\(x)_UPDATE_UNSET"] == "CREATE TRIGGER \(x)_UPDATE_UNSET AFTER UPDATE OF ZAUTHOR, ZPAGES ON ZBOOK FOR EACH ROW"
            + " WHEN (OLD.ZAUTHOR NOT NULL AND OLD.ZPAGES NOT NULL AND (NEW.ZAUTHOR IS NULL OR NEW.ZPAGES IS NULL)) BEGIN \(recompute) \(reportOld) END")
        #expect(triggers["\(x)_DELETE"] == "CREATE TRIGGER \(x)_DELETE AFTER DELETE ON ZBOOK FOR EACH ROW"
            + " WHEN (OLD.ZAUTHOR NOT NULL AND OLD.ZPAGES NOT NULL) BEGIN \(recompute) \(reportOld) END")
        let y = "Z_DA_ZAUTHOR_Author_shortest_INSERT"
        #expect(triggers[y] == "CREATE TRIGGER \(y) AFTER INSERT ON ZAUTHOR FOR EACH ROW BEGIN"
            + " UPDATE ZAUTHOR SET ZSHORTEST = (SELECT MIN(ZPAGES) FROM ZBOOK WHERE ZAUTHOR = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
            + Self.report("ZAUTHOR", "shortest", "ZSHORTEST", where: "Z_PK = NEW.Z_PK", by: Self.insertUpdated) + " END")
        #expect(triggers["Z_DA_ZBOOK_Author_longest_INSERT"] == "CREATE TRIGGER Z_DA_ZBOOK_Author_longest_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW"
            + " WHEN (NEW.ZAUTHOR NOT NULL AND NEW.ZPAGES NOT NULL) BEGIN UPDATE ZAUTHOR SET ZLONGEST = NEW.ZPAGES WHERE Z_PK = NEW.ZAUTHOR"
            + " AND (ZLONGEST IS NULL OR NEW.ZPAGES > ZLONGEST); "
            + Self.report("ZAUTHOR", "longest", "ZLONGEST", where: "Z_PK = NEW.ZAUTHOR AND (ZLONGEST IS NULL OR NEW.ZPAGES >= ZLONGEST)") + " END")
        #expect(Set(triggers.keys.filter { $0.contains("_shortest_") }) == ["\(x)_DELETE", "\(x)_INSERT", "\(x)_UPDATE_SET", "\(x)_UPDATE_UNSET", y])
    }

    @Test func countOfAManyToManyIsApples() throws {
        let url = TemporaryStore.url()
        try Stack(model: Self.libraryModel(), url: url).close()
        let triggers = Self.triggers(url)
        let p = "Z_DA_Z_2TAGS_Book_tagCount_PARAMETER"
        #expect(triggers["\(p)_INSERT"] == "CREATE TRIGGER \(p)_INSERT AFTER INSERT ON Z_2TAGS FOR EACH ROW BEGIN"
            + " UPDATE ZBOOK SET ZTAGCOUNT = IFNULL(ZTAGCOUNT, 0) + 1 WHERE Z_PK = NEW.Z_2BOOKS; "
            + Self.report("ZBOOK", "tagCount", "ZTAGCOUNT", where: "Z_PK = NEW.Z_2BOOKS") + " END")
        #expect(triggers["\(p)_DELETE"] == "CREATE TRIGGER \(p)_DELETE AFTER DELETE ON Z_2TAGS FOR EACH ROW BEGIN"
            + " UPDATE ZBOOK SET ZTAGCOUNT = ZTAGCOUNT - 1 WHERE Z_PK = OLD.Z_2BOOKS; "
            + Self.report("ZBOOK", "tagCount", "ZTAGCOUNT", where: "Z_PK = OLD.Z_2BOOKS") + " END")
        let s = "Z_DA_ZBOOK_Book_tagCount_SOURCE_INSERT"
        // Apple's reports a new row here with the `…Updated…` function, not `…InsertUpdated…`.
        #expect(triggers[s] == "CREATE TRIGGER \(s) AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN"
            + " UPDATE ZBOOK SET ZTAGCOUNT = (SELECT IFNULL(COUNT(Z_2BOOKS), 0) FROM Z_2TAGS WHERE Z_2BOOKS = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
            + Self.report("ZBOOK", "tagCount", "ZTAGCOUNT", where: "Z_PK = NEW.Z_PK") + " END")
        #expect(triggers.keys.filter { $0.contains("_tagCount_") }.count == 3)
    }

    @Test func toOneAndOwnAttributeDerivationsAreApples() throws {
        let url = TemporaryStore.url()
        try Stack(model: Self.libraryModel(), url: url).close()
        let triggers = Self.triggers(url)
        func report(_ name: String, _ column: String, where condition: String = "Z_PK = NEW.Z_PK",
                    by function: String = "NSCoreDataDATriggerUpdatedAffectedObjectValue") -> String {
            Self.report("ZBOOK", name, column, where: condition, by: function)
        }
        let s = "Z_DA_ZBOOK_Book_authorName_SOURCE", p = "Z_DA_ZAUTHOR_Book_authorName_PARAMETER"
        let lookUp = "UPDATE ZBOOK SET ZAUTHORNAME = (SELECT ZNAME FROM ZAUTHOR WHERE Z_PK = NEW.ZAUTHOR) WHERE Z_PK = NEW.Z_PK;"
        #expect(triggers["\(s)_INSERT"] == "CREATE TRIGGER \(s)_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN \(lookUp) "
            + report("authorName", "ZAUTHORNAME", by: Self.insertUpdated) + " END")
        #expect(triggers["\(s)_UPDATE"] == "CREATE TRIGGER \(s)_UPDATE AFTER UPDATE OF ZAUTHOR ON ZBOOK FOR EACH ROW BEGIN \(lookUp) "
            + report("authorName", "ZAUTHORNAME") + " END")
        let copy = "UPDATE ZBOOK SET ZAUTHORNAME = NEW.ZNAME WHERE ZAUTHOR = NEW.Z_PK;"
        #expect(triggers["\(p)_INSERT"] == "CREATE TRIGGER \(p)_INSERT AFTER INSERT ON ZAUTHOR FOR EACH ROW BEGIN \(copy) "
            + report("authorName", "ZAUTHORNAME", where: "ZAUTHOR = NEW.Z_PK", by: Self.insertUpdated) + " END")
        #expect(triggers["\(p)_UPDATE"] == "CREATE TRIGGER \(p)_UPDATE AFTER UPDATE OF ZNAME ON ZAUTHOR FOR EACH ROW BEGIN \(copy) "
            + report("authorName", "ZAUTHORNAME", where: "ZAUTHOR = NEW.Z_PK") + " END")
        for (name, column, watched, value) in [("titleCopy", "ZTITLECOPY", "ZTITLE", "NEW.ZTITLE"),
                                               ("lowerTitle", "ZLOWERTITLE", "ZTITLE", "NSCoreDataToLower(NEW.ZTITLE)"),
                                               ("savedAt", "ZSAVEDAT", "Z_OPT", "NSCoreDataNow()")] {
            let prefix = "Z_DA_ZBOOK_Book_\(name)"
            let set = "UPDATE ZBOOK SET \(column) = \(value) WHERE Z_PK = NEW.Z_PK;"
            #expect(triggers["\(prefix)_INSERT"] == "CREATE TRIGGER \(prefix)_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW WHEN (NEW.\(watched) NOT NULL)"
                + " BEGIN \(set) " + report(name, column, by: Self.insertUpdated) + " END")
            #expect(triggers["\(prefix)_UPDATE"] == "CREATE TRIGGER \(prefix)_UPDATE AFTER UPDATE OF \(watched) ON ZBOOK FOR EACH ROW"
                + " BEGIN \(set) " + report(name, column) + " END")
        }
    }

    /// "name: pageTotal shortest longest" of every author, sorted, as `read` gives each value.
    static func authorValues(_ stack: Stack) throws -> [String] {
        try stack.fetch("Author").map { author in
            stack.context.performAndWait {
                let values = ["pageTotal", "shortest", "longest"].map { key in author.value(forKey: key).map { "\($0)" } ?? "nil" }
                return "\(author.value(forKey: "name") as? String ?? "?"): " + values.joined(separator: " ")
            }
        }.sorted()
    }

    @Test func aggregatesFollowMovesChangesAndDeletes() throws {
        let url = TemporaryStore.url()
        let model = Self.libraryModel()
        let stack = try Stack(model: model, url: url)
        /// Saves `change`, then gives "name: pageTotal shortest longest" of the two authors as the saving context holds them.
        func save(_ change: (_ ann: NSManagedObject, _ bob: NSManagedObject, _ books: [String: NSManagedObject]) -> Void) throws -> [String] {
            try stack.context.performAndWait {
                let authors = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
                let books = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
                let byTitle = Dictionary(uniqueKeysWithValues: books.map { ($0.value(forKey: "title") as? String ?? "", $0) })
                let ann = try #require(authors.first { $0.value(forKey: "name") as? String == "Ann" })
                let bob = try #require(authors.first { $0.value(forKey: "name") as? String == "Bob" })
                change(ann, bob, byTitle)
                try stack.context.save()
                return [ann, bob].map { author in
                    "\(author.value(forKey: "name") as? String ?? "?"): "
                        + ["pageTotal", "shortest", "longest"].map { author.value(forKey: $0).map { "\($0)" } ?? "nil" }.joined(separator: " ")
                }
            }
        }
        try stack.context.performAndWait {
            let ann = DerivedAttributeSharedTableTests.insert("Author", into: stack.context, ["name": "Ann"])
            DerivedAttributeSharedTableTests.insert("Author", into: stack.context, ["name": "Bob"])
            for (title, pages) in [("Long", Int64(300)), ("Short", Int64(50)), ("Middle", Int64(120))] {
                DerivedAttributeSharedTableTests.insert("Book", into: stack.context, ["title": title, "pages": pages, "author": ann])
            }
            try stack.context.save()
        }
        #expect(try Self.authorValues(stack) == ["Ann: 470 50 300", "Bob: 0 nil nil"])
        #expect(try save { _, bob, books in books["Short"]?.setValue(bob, forKey: "author") } == ["Ann: 420 120 300", "Bob: 50 50 50"])
        #expect(try save { _, _, books in books["Long"]?.setValue(Int64(10), forKey: "pages") } == ["Ann: 130 10 120", "Bob: 50 50 50"])
        #expect(try save { _, _, books in books["Middle"]?.setValue(nil, forKey: "pages") } == ["Ann: 10 10 10", "Bob: 50 50 50"])
        // Ann's last book with pages moves to Bob: Ann is left with none, and the saving context sees it.
        #expect(try save { _, bob, books in books["Long"]?.setValue(bob, forKey: "author") } == ["Ann: 0 nil nil", "Bob: 60 10 50"])
        #expect(try save { _, _, books in if let short = books["Short"] { stack.context.delete(short) } } == ["Ann: 0 nil nil", "Bob: 10 10 10"])
        try stack.close()
        let reopened = try Stack(model: model, url: url)
        #expect(try Self.authorValues(reopened) == ["Ann: 0 nil nil", "Bob: 10 10 10"])
        try reopened.close()
    }

    @Test func manyToManyCountFollowsTagsAddedAndRemoved() throws {
        let url = TemporaryStore.url()
        let model = Self.libraryModel()
        let stack = try Stack(model: model, url: url)
        let counts: [Int64] = try stack.context.performAndWait {
            let book = DerivedAttributeSharedTableTests.insert("Book", into: stack.context, ["title": "Tagged"])
            let tags = (1...3).map { DerivedAttributeSharedTableTests.insert("Tag", into: stack.context, ["label": "t\($0)"]) }
            book.setValue(Set(tags), forKey: "tags")
            try stack.context.save()
            let first = (book.value(forKey: "tagCount") as? NSNumber)?.int64Value ?? -1
            book.setValue(Set([tags[0]]), forKey: "tags")
            stack.context.delete(tags[2])
            try stack.context.save()
            return [first, (book.value(forKey: "tagCount") as? NSNumber)?.int64Value ?? -1]
        }
        #expect(counts == [3, 1])
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT ZTAGCOUNT FROM ZBOOK").map { $0[0] } == ["1"])
    }

    @Test func openingReplacesTheTriggersOfAnOlderVersion() throws {
        let url = TemporaryStore.url()
        let model = Self.libraryModel()
        try Stack(model: model, url: url).close()
        // As an older version of this package left it: its own triggers for `pageTotal`, not Apple's.
        let made = Self.triggers(url)
        RawSQLite.execute(url, "DROP TRIGGER Z_DA_ZBOOK_Author_pageTotal_PARAMETER_UPDATE_INCREMENT")
        RawSQLite.execute(url, "DROP TRIGGER Z_DA_ZBOOK_Author_pageTotal_PARAMETER_DELETE")
        RawSQLite.execute(url, "CREATE TRIGGER Z_DA_ZBOOK_Author_pageTotal_PARAMETER_DELETE AFTER DELETE ON ZBOOK FOR EACH ROW BEGIN SELECT 1; END")
        RawSQLite.execute(url, "CREATE TRIGGER Z_DA_ZBOOK_Author_pageTotal_PARAMETER_UPDATE AFTER UPDATE OF ZPAGES ON ZBOOK FOR EACH ROW BEGIN"
            + " UPDATE ZAUTHOR SET ZPAGETOTAL = ZPAGETOTAL + 1000 WHERE Z_PK = NEW.ZAUTHOR; END")
        let stack = try Stack(model: model, url: url)
        #expect(Self.triggers(url) == made, "the older trigger dropped, every other made again as this version makes it")
        let total: Int64 = try stack.context.performAndWait {
            let ann = DerivedAttributeSharedTableTests.insert("Author", into: stack.context, ["name": "Ann"])
            let book = DerivedAttributeSharedTableTests.insert("Book", into: stack.context, ["title": "One", "pages": Int64(5), "author": ann])
            try stack.context.save()
            book.setValue(Int64(7), forKey: "pages")
            try stack.context.save()
            return (ann.value(forKey: "pageTotal") as? NSNumber)?.int64Value ?? -1
        }
        #expect(total == 7)
        try stack.close()
    }

    /// `@min` and `@max` over a to-many whose destination is a sub-entity sharing its table: Apple's WHEN clause
    /// would name a bare `Z_ENT` there, which SQLite rejects when the trigger fires; ours works.
    @Test func extremesOverASubentityDestinationWork() throws {
        let shelf = NSEntityDescription(name: "Shelf")
        let item = NSEntityDescription(name: "Item")
        let book = NSEntityDescription(name: "Book")
        let lamp = NSEntityDescription(name: "Lamp")
        item.subentities = [book, lamp]
        item.properties = [NSAttributeDescription(name: "size", type: .integer64)]
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        let place = NSRelationshipDescription(name: "shelf", destination: shelf, toMany: false)
        (books.inverseRelationship, place.inverseRelationship) = (place, books)
        book.properties = [place]
        shelf.properties = [NSAttributeDescription(name: "name", type: .string), books,
                            Self.derived("smallest", .integer64AttributeType, "books.@min.size"),
                            Self.derived("largest", .integer64AttributeType, "books.@max.size")]
        let model = NSManagedObjectModel(entities: [shelf, item, book, lamp])
        let url = TemporaryStore.url()
        let stack = try Stack(model: model, url: url)
        let values: [String] = try stack.context.performAndWait {
            let top = DerivedAttributeSharedTableTests.insert("Shelf", into: stack.context, ["name": "top"])
            for size in [Int64(4), 9, 2] {
                DerivedAttributeSharedTableTests.insert("Book", into: stack.context, ["size": size, "shelf": top])
            }
            DerivedAttributeSharedTableTests.insert("Lamp", into: stack.context, ["size": Int64(1)])
            try stack.context.save()
            return ["smallest", "largest"].map { top.value(forKey: $0).map { "\($0)" } ?? "nil" }
        }
        #expect(values == ["2", "9"])
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT ZSMALLEST, ZLARGEST FROM ZSHELF").map { $0.joined(separator: " ") } == ["2 9"])
    }
}

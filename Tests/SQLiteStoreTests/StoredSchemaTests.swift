import CoreData
import StoreTestSupport
import Foundation
import Testing

/// An existing store is read under the names and entity numbers its file has, not the ones derived from the
/// model: stores made here are rewritten with raw SQLite into the other layouts Apple's stores may have
/// (another side naming a join table, other entity numbers, other collision suffixes), then opened, read,
/// saved and reopened through the public API.
@Suite struct StoredSchemaTests {
    /// Box (name, shape, tags), Person (name, friends ↔ friendOf), Shape < Circle (size: Double, label),
    /// Square (size: String, label), Tag (name, boxes). Shape has subentities, so `Box.shape` has a
    /// `Z<n>_SHAPE` column; `Shape.boxes` is ordered, so `ZBOX` has `Z_FOK_SHAPE`; `size` and `label`
    /// collide in `ZSHAPE`.
    static func model() -> NSManagedObjectModel {
        let shape = NSRelationshipDescription(name: "shape", destination: nil, toMany: false)
        let boxes = NSRelationshipDescription(name: "boxes", destination: nil, toMany: true, isOrdered: true)
        inverse(shape, boxes)
        let tags = NSRelationshipDescription(name: "tags", destination: nil, toMany: true)
        let tagBoxes = NSRelationshipDescription(name: "boxes", destination: nil, toMany: true)
        inverse(tags, tagBoxes)
        let friends = NSRelationshipDescription(name: "friends", destination: nil, toMany: true)
        let friendOf = NSRelationshipDescription(name: "friendOf", destination: nil, toMany: true)
        inverse(friends, friendOf)
        let box = entity("Box", [attribute("name", .string), shape, tags])
        let person = entity("Person", [attribute("name", .string), friends, friendOf])
        let shapeEntity = entity("Shape", [attribute("name", .string), boxes])
        let circle = entity("Circle", [attribute("size", .double), attribute("label", .string)])
        let square = entity("Square", [attribute("size", .string), attribute("label", .string)])
        shapeEntity.subentities = [circle, square]
        let tag = entity("Tag", [attribute("name", .string), tagBoxes])
        shape.destinationEntity = shapeEntity
        boxes.destinationEntity = box
        tags.destinationEntity = tag
        tagBoxes.destinationEntity = box
        friends.destinationEntity = person
        friendOf.destinationEntity = person
        return NSManagedObjectModel(entities: [box, person, shapeEntity, circle, square, tag])
    }

    /// A store of `model()` (or a model of the same entities and properties) with two circles, a square, two boxes on the first circle (in order b1, b2) and a
    /// box on the square, tags on the boxes, and three people (ann's friends are bob and cy); and its
    /// `contents(_:)` as saved.
    static func makeStore(model: NSManagedObjectModel = model()) throws -> (url: URL, contents: [String]) {
        let url = TemporaryStore.url()
        let stack = try Stack(model: model, url: url)
        try stack.context.performAndWait {
            let context = stack.context
            func insert(_ name: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: name, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let c1 = insert("Circle", ["name": "c1", "size": 1.5, "label": "round"])
            _ = insert("Circle", ["name": "c2", "size": 2.5, "label": "wheel"])
            let s1 = insert("Square", ["name": "s1", "size": "large", "label": "block"])
            let red = insert("Tag", ["name": "red"]), blue = insert("Tag", ["name": "blue"])
            let b1 = insert("Box", ["name": "b1", "shape": c1, "tags": Set([red, blue])])
            let b2 = insert("Box", ["name": "b2", "tags": Set([red])])
            _ = insert("Box", ["name": "b3", "shape": s1])
            c1.setValue(NSOrderedSet(array: [b1, b2]), forKey: "boxes")
            let ann = insert("Person", ["name": "ann"]), bob = insert("Person", ["name": "bob"]), cy = insert("Person", ["name": "cy"])
            ann.setValue(Set([bob, cy]), forKey: "friends")
            try context.save()
        }
        let saved = try contents(stack)
        try stack.close()
        // One file, no log, so raw SQLite sees and changes everything.
        RawSQLite.execute(url, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
        return (url, saved)
    }

    /// What a user reads from the store: every object's values and relationships, by name.
    static func contents(_ stack: Stack) throws -> [String] {
        try stack.context.performAndWait {
            var lines: [String] = []
            let request = NSFetchRequest<NSManagedObject>(entityName: "Shape")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            for shape in try stack.context.fetch(request) {
                let boxes = (shape.value(forKey: "boxes") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }
                lines.append("\(shape.entity.name ?? "") \(shape.value(forKey: "name") ?? "") size=\(shape.value(forKey: "size") ?? "nil") "
                             + "label=\(shape.value(forKey: "label") ?? "nil") boxes=\(boxes ?? [])")
            }
            let boxes = NSFetchRequest<NSManagedObject>(entityName: "Box")
            boxes.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            for box in try stack.context.fetch(boxes) {
                let shape = box.value(forKey: "shape") as? NSManagedObject
                let tags = ((box.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                lines.append("Box \(box.value(forKey: "name") ?? "") shape=\(shape?.entity.name ?? "nil"):\(shape?.value(forKey: "name") ?? "nil") tags=\(tags)")
            }
            let tags = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            tags.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            for tag in try stack.context.fetch(tags) {
                let boxes = ((tag.value(forKey: "boxes") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                lines.append("Tag \(tag.value(forKey: "name") ?? "") boxes=\(boxes)")
            }
            let people = NSFetchRequest<NSManagedObject>(entityName: "Person")
            people.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            for person in try stack.context.fetch(people) {
                func names(_ key: String) -> [String] {
                    ((person.value(forKey: key) as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                }
                lines.append("Person \(person.value(forKey: "name") ?? "") friends=\(names("friends")) friendOf=\(names("friendOf"))")
            }
            return lines
        }
    }

    /// Opens the rewritten store, checks it reads as the original, makes changes of every kind (an insert
    /// into the hierarchy, a to-one to a subentity, join rows both ways, an ordered insert), saves, reopens,
    /// and checks the changes read back.
    func expectReadsSavesAndReopens(_ url: URL, original: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stack = try Stack(model: Self.model(), url: url)
        let read = try Self.contents(stack)
        #expect(read == original, "\(read)", sourceLocation: sourceLocation)
        #expect(try stack.count("Shape") == 3, sourceLocation: sourceLocation)
        #expect(try stack.count("Circle") == 2, sourceLocation: sourceLocation)
        #expect(try stack.count("Shape", subentities: false) == 0, sourceLocation: sourceLocation)
        #expect(try stack.count("Square", NSPredicate(format: "size == %@", "large")) == 1, sourceLocation: sourceLocation)
        #expect(try stack.count("Box", NSPredicate(format: "ANY tags.name == %@", "red")) == 2, sourceLocation: sourceLocation)
        #expect(try stack.count("Person", NSPredicate(format: "ANY friendOf.name == %@", "ann")) == 2, sourceLocation: sourceLocation)
        try stack.context.performAndWait {
            let context = stack.context
            func first(_ entity: String, _ name: String) throws -> NSManagedObject {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = NSPredicate(format: "name == %@", name)
                return try #require(try context.fetch(request).first, sourceLocation: sourceLocation)
            }
            let square = NSEntityDescription.insertNewObject(forEntityName: "Square", into: context)
            square.setValuesForKeys( ["name": "s2", "size": "small", "label": "tile"])
            let box = NSEntityDescription.insertNewObject(forEntityName: "Box", into: context)
            box.setValuesForKeys( ["name": "b4", "shape": square, "tags": Set([try first("Tag", "blue")])])
            let circle = try first("Circle", "c1")
            circle.setValue(9.5, forKey: "size")
            let b3 = try first("Box", "b3")
            let ordered = (circle.value(forKey: "boxes") as? NSOrderedSet)?.array ?? []
            circle.setValue(NSOrderedSet(array: [b3] + ordered), forKey: "boxes")
            let bob = try first("Person", "bob")
            bob.setValue(Set([try first("Person", "cy")]), forKey: "friends")
            try context.save()
        }
        try stack.close()
        let expected = [
            "Circle c1 size=9.5 label=round boxes=[\"b3\", \"b1\", \"b2\"]",
            "Circle c2 size=2.5 label=wheel boxes=[]",
            "Square s1 size=large label=block boxes=[]",
            "Square s2 size=small label=tile boxes=[\"b4\"]",
            "Box b1 shape=Circle:c1 tags=[\"blue\", \"red\"]",
            "Box b2 shape=Circle:c1 tags=[\"red\"]",
            "Box b3 shape=Circle:c1 tags=[]",
            "Box b4 shape=Square:s2 tags=[\"blue\"]",
            "Tag blue boxes=[\"b1\", \"b4\"]",
            "Tag red boxes=[\"b1\", \"b2\"]",
            "Person ann friends=[\"bob\", \"cy\"] friendOf=[]",
            "Person bob friends=[\"cy\"] friendOf=[\"ann\"]",
            "Person cy friends=[] friendOf=[\"ann\", \"bob\"]",
        ]
        let reopened = try Stack(model: Self.model(), url: url)
        #expect(try Self.contents(reopened) == expected, sourceLocation: sourceLocation)
        try reopened.close()
    }

    /// The store's tables and columns, for checking that nothing was added under a derived name.
    static func tablesAndColumns(_ url: URL) -> [String] {
        RawSQLite.rows(url, "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY 1, 2")
            .map { $0.joined(separator: ".") }
    }

    static func number(_ url: URL, _ entity: String) -> Int {
        Int(RawSQLite.rows(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(entity)'").first?.first ?? "") ?? 0
    }

    @Test func derivedLayoutAsExpected() throws {
        // The layout the other tests rewrite: join tables named after the side with the lower Z_ENT, then name.
        let url = try Self.makeStore().url
        let box = Self.number(url, "Box"), person = Self.number(url, "Person"), shape = Self.number(url, "Shape"), tag = Self.number(url, "Tag")
        let columns = Self.tablesAndColumns(url)
        for name in ["Z_\(box)TAGS.Z_\(box)BOXES", "Z_\(box)TAGS.Z_\(tag)TAGS", "Z_\(person)FRIENDOF.Z_\(person)FRIENDOF",
                     "Z_\(person)FRIENDOF.Z_\(person)FRIENDS", "ZBOX.Z\(shape)_SHAPE", "ZBOX.Z_FOK_SHAPE",
                     "ZSHAPE.ZSIZE", "ZSHAPE.ZSIZE1", "ZSHAPE.ZLABEL", "ZSHAPE.ZLABEL1"] {
            #expect(columns.contains(name), "\(name)")
        }
    }

    @Test func joinTablesNamedAfterTheOtherSide() throws {
        let (url, original) = try Self.makeStore()
        let box = Self.number(url, "Box"), person = Self.number(url, "Person"), tag = Self.number(url, "Tag")
        // As Apple may name them: after the side with the higher Z_ENT, or the other side of a self-relationship.
        RawSQLite.execute(url, """
            ALTER TABLE Z_\(box)TAGS RENAME TO Z_\(tag)BOXES;
            ALTER TABLE Z_\(person)FRIENDOF RENAME TO Z_\(person)FRIENDS;
            """)
        let layout = Self.tablesAndColumns(url)
        try expectReadsSavesAndReopens(url, original: original)
        #expect(Self.tablesAndColumns(url) == layout)
        #expect(RawSQLite.rows(url, "SELECT COUNT(*) FROM Z_\(tag)BOXES") == [["4"]])
        #expect(RawSQLite.rows(url, "SELECT COUNT(*) FROM Z_\(person)FRIENDS") == [["3"]])
    }

    @Test func entityNumbersFromTheFile() throws {
        let (url, original) = try Self.makeStore()
        let names = ["Box", "Person", "Shape", "Circle", "Square", "Tag"]
        let old = Dictionary(uniqueKeysWithValues: names.map { ($0, Self.number(url, $0)) })
        // Numbered backwards, so a hierarchy is no longer numbered in pre-order either. Apple names colliding
        // columns in its own Z_ENT order, so in such a store Square, now before Circle, has ZSIZE and ZLABEL.
        let new = Dictionary(uniqueKeysWithValues: names.map { ($0, names.count + 1 - (old[$0] ?? 0)) })
        Self.renumber(url, from: old, to: new)
        RawSQLite.execute(url, """
            ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE TO TMPSIZE; ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE1 TO ZSIZE;
            ALTER TABLE ZSHAPE RENAME COLUMN TMPSIZE TO ZSIZE1;
            ALTER TABLE ZSHAPE RENAME COLUMN ZLABEL TO TMPLABEL; ALTER TABLE ZSHAPE RENAME COLUMN ZLABEL1 TO ZLABEL;
            ALTER TABLE ZSHAPE RENAME COLUMN TMPLABEL TO ZLABEL1;
            """)
        let pkRows = RawSQLite.rows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        let layout = Self.tablesAndColumns(url)
        try expectReadsSavesAndReopens(url, original: original)
        #expect(Self.tablesAndColumns(url) == layout)
        #expect(RawSQLite.rows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") == pkRows)
        let square = new["Square"] ?? 0, shape = new["Shape"] ?? 0
        #expect(RawSQLite.rows(url, "SELECT Z_ENT FROM ZSHAPE WHERE ZNAME = 's2'") == [["\(square)"]])
        #expect(RawSQLite.rows(url, "SELECT Z\(shape)_SHAPE FROM ZBOX WHERE ZNAME = 'b4'") == [["\(square)"]])
        #expect(RawSQLite.rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Shape'") == [["4"]])
    }

    @Test func historyRecordsTheFilesEntityNumbers() throws {
        let (url, _) = try Self.makeStore()
        let names = ["Box", "Person", "Shape", "Circle", "Square", "Tag"]
        let old = Dictionary(uniqueKeysWithValues: names.map { ($0, Self.number(url, $0)) })
        // Square and Tag swap numbers: no column is named after either, so only Z_ENT values change.
        var new = old
        (new["Square"], new["Tag"]) = (old["Tag"], old["Square"])
        Self.renumber(url, from: old, to: new)
        let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber]
        let stack = try Stack(model: Self.model(), url: url, options: tracking)
        try stack.context.performAndWait {
            let square = NSEntityDescription.insertNewObject(forEntityName: "Square", into: stack.context)
            square.setValuesForKeys(["name": "s9", "size": "tiny"])
            try stack.context.save()
        }
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT ZENTITY FROM ACHANGE") == [["\(new["Square"] ?? 0)"]])
        let reopened = try Stack(model: Self.model(), url: url, options: tracking)
        let changes = try reopened.context.performAndWait {
            let result = try reopened.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
            return ((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []).flatMap { $0.changes ?? [] }
        }
        #expect(changes.map { $0.changedObjectID.entity.name } == ["Square"])
        let name = try reopened.context.performAndWait {
            try changes.first.map { try reopened.context.existingObject(with: $0.changedObjectID).value(forKey: "name") as? String }
        }
        #expect(name == "s9")
        #expect(try reopened.count("Square") == 2)
        #expect(try reopened.count("Tag") == 2)
        try reopened.close()
    }

    @Test func suffixedAndOtherwiseNamedColumnsFromTheFile() throws {
        let (url, original) = try Self.makeStore()
        let box = Self.number(url, "Box"), tag = Self.number(url, "Tag")
        // As a store whose first claimants of ZSIZE and ZLABEL were properties this model lacks (their columns
        // gone), with a column of a property the model lacks, an ordered column named after the to-many, and a
        // join column that collided with another join table's.
        RawSQLite.execute(url, """
            ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE1 TO ZSIZE2;
            ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE TO ZSIZE1;
            ALTER TABLE ZSHAPE RENAME COLUMN ZLABEL1 TO ZLABEL2;
            ALTER TABLE ZSHAPE RENAME COLUMN ZLABEL TO ZLABEL1;
            ALTER TABLE ZSHAPE ADD COLUMN ZCOLOR VARCHAR;
            UPDATE ZSHAPE SET ZCOLOR = 'not this model''s';
            ALTER TABLE ZBOX RENAME COLUMN Z_FOK_SHAPE TO Z_FOK_BOXES;
            ALTER TABLE Z_\(box)TAGS RENAME COLUMN Z_\(tag)TAGS TO Z_\(tag)TAGS1;
            """)
        let layout = Self.tablesAndColumns(url)
        try expectReadsSavesAndReopens(url, original: original)
        #expect(Self.tablesAndColumns(url) == layout)
        #expect(RawSQLite.rows(url, "SELECT ZSIZE1, ZSIZE2, ZLABEL1, ZLABEL2, ZCOLOR FROM ZSHAPE ORDER BY ZNAME") == [
            ["9.5", "NULL", "round", "NULL", "not this model's"], ["2.5", "NULL", "wheel", "NULL", "not this model's"],
            ["NULL", "large", "NULL", "block", "not this model's"], ["NULL", "small", "NULL", "tile", "NULL"],
        ])
        #expect(RawSQLite.rows(url, "SELECT Z_FOK_BOXES FROM ZBOX WHERE ZNAME IN ('b3', 'b1', 'b2') ORDER BY Z_FOK_BOXES").count == 3)
    }

    /// A row whose `Z_ENT` is no entity of the store (a damaged file) is in no result: counts, aggregates, object
    /// IDs and limited fetches agree with fetched rows, for an entity without subentities and for a hierarchy.
    @Test func rowsOfNoEntityAreInNoResult() throws {
        let url = try Self.makeStore().url
        RawSQLite.execute(url, """
            INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (90, 42, 1, 'ghost');
            INSERT INTO ZSHAPE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (91, 43, 1, 'ghost');
            """)
        let stack = try Stack(model: Self.model(), url: url)
        for (entity, count) in [("Tag", 2), ("Shape", 3)] {
            #expect(try stack.fetch(entity).count == count, "\(entity)")
            #expect(try stack.count(entity) == count, "\(entity)")
            #expect(try stack.count(entity, NSPredicate(format: "name != nil")) == count, "\(entity)")
            try stack.context.performAndWait { () throws -> Void in
                let ids = NSFetchRequest<NSManagedObjectID>(entityName: entity)
                ids.resultType = .managedObjectIDResultType
                #expect(try stack.context.fetch(ids).count == count, "\(entity)")
                let limited = NSFetchRequest<NSManagedObject>(entityName: entity)
                limited.fetchOffset = 1
                limited.fetchLimit = 10
                #expect(try stack.context.count(for: limited) == count - 1, "\(entity)")
                #expect(try stack.context.fetch(limited).count == count - 1, "\(entity)")
                let total = NSExpressionDescription()
                total.name = "total"
                total.expression = NSExpression(forFunction: "count:", arguments: [NSExpression.expressionForEvaluatedObject()])
                total.expressionResultType = .integer64AttributeType
                let aggregate = NSFetchRequest<NSDictionary>(entityName: entity)
                aggregate.resultType = .dictionaryResultType
                aggregate.propertiesToFetch = [total]
                #expect((try stack.context.fetch(aggregate).first?["total"] as? NSNumber)?.intValue == count, "\(entity)")
            }
        }
        try stack.close()
    }

    /// Renumbers entities as a store written with other `Z_ENT` numbers has them: `Z_PRIMARYKEY`, the `Z_ENT`
    /// of every row, `Z<n>_<REL>` columns and their values, join tables and join columns named `Z_<n>…`.
    static func renumber(_ url: URL, from old: [String: Int], to new: [String: Int]) {
        let map = Dictionary(uniqueKeysWithValues: old.compactMap { name, number in new[name].map { (number, $0) } })
        let cases = map.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
        var sql = "UPDATE Z_PRIMARYKEY SET Z_ENT = Z_ENT + 1000 WHERE Z_ENT < 16000;"
            + "UPDATE Z_PRIMARYKEY SET Z_ENT = CASE Z_ENT - 1000 \(cases) END, Z_SUPER = CASE Z_SUPER \(cases) ELSE 0 END WHERE Z_ENT >= 1000 AND Z_ENT < 16000;"
        let tables = RawSQLite.rows(url, "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0] }
        // Names are changed in two steps (through a TMP prefix) so that no rename meets a name not yet renamed.
        func renamed(_ name: String, prefix: String) -> String? {
            guard name.hasPrefix(prefix) else { return nil }
            let rest = name.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isNumber }
            guard let number = Int(digits), let target = map[number] else { return nil }
            return prefix + String(target) + rest.dropFirst(digits.count)
        }
        var columnSteps: [String] = [], tableSteps: [String] = []
        for table in tables where table.hasPrefix("Z") && !table.hasPrefix("Z_") {
            sql += "UPDATE \(table) SET Z_ENT = CASE Z_ENT \(cases) END;"
            for column in RawSQLite.rows(url, "SELECT name FROM pragma_table_info('\(table)')").map({ $0[0] }) {
                guard let target = renamed(column, prefix: "Z") else { continue }
                sql += "UPDATE \(table) SET \(column) = CASE \(column) \(cases) END;"
                sql += "ALTER TABLE \(table) RENAME COLUMN \(column) TO TMP\(target);"
                columnSteps.append("ALTER TABLE \(table) RENAME COLUMN TMP\(target) TO \(target);")
            }
        }
        for table in tables {
            guard let target = renamed(table, prefix: "Z_") else { continue }
            for column in RawSQLite.rows(url, "SELECT name FROM pragma_table_info('\(table)')").map({ $0[0] }) {
                guard let renamedColumn = renamed(column, prefix: "Z_") else { continue }
                sql += "ALTER TABLE \(table) RENAME COLUMN \(column) TO TMP\(renamedColumn);"
                columnSteps.append("ALTER TABLE TMP\(target) RENAME COLUMN TMP\(renamedColumn) TO \(renamedColumn);")
            }
            sql += "ALTER TABLE \(table) RENAME TO TMP\(target);"
            tableSteps.append("ALTER TABLE TMP\(target) RENAME TO \(target);")
        }
        RawSQLite.execute(url, "BEGIN;" + sql + columnSteps.joined() + tableSteps.joined() + "COMMIT;")
    }

    // MARK: Bad input

    func expectIncompatible(_ url: URL, naming names: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let before = fileBytes(url)
        let error = thrownError { _ = try Stack(model: Self.model(), url: url) }
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError, "\(error?.localizedDescription ?? "no error")", sourceLocation: sourceLocation)
        for name in names {
            #expect(error?.localizedDescription.contains(name) == true, "\(error?.localizedDescription ?? "no error") should name \(name)",
                    sourceLocation: sourceLocation)
        }
        #expect(fileBytes(url) == before, "the file changed", sourceLocation: sourceLocation)
    }

    @Test func joinTableNamingAnUnknownEntity() throws {
        let url = try Self.makeStore().url
        let box = Self.number(url, "Box")
        RawSQLite.execute(url, "CREATE TABLE Z_42THINGS ( Z_\(box)BOXES INTEGER, Z_42THINGS INTEGER, PRIMARY KEY (Z_\(box)BOXES, Z_42THINGS) )")
        expectIncompatible(url, naming: ["Z_42THINGS", "42"])
    }

    @Test func columnThatCannotBeMapped() throws {
        let url = try Self.makeStore().url
        RawSQLite.execute(url, "ALTER TABLE ZTAG RENAME COLUMN ZNAME TO ZTITLE")
        expectIncompatible(url, naming: ["ZNAME", "ZTAG", "attribute name of Tag"])
    }

    @Test func joinTableThatCannotBeMapped() throws {
        let url = try Self.makeStore().url
        let box = Self.number(url, "Box"), tag = Self.number(url, "Tag")
        RawSQLite.execute(url, "ALTER TABLE Z_\(box)TAGS RENAME TO ZJUNK")
        expectIncompatible(url, naming: ["Z_\(box)TAGS", "tags"])
        RawSQLite.execute(url, "ALTER TABLE ZJUNK RENAME TO Z_\(box)TAGS; ALTER TABLE Z_\(box)TAGS RENAME COLUMN Z_\(tag)TAGS TO ZOTHER")
        expectIncompatible(url, naming: ["Z_\(tag)TAGS", "join table Z_\(box)TAGS"])
    }

    @Test func entityUnderAnotherParent() throws {
        let url = try Self.makeStore().url
        let circle = Self.number(url, "Circle")
        RawSQLite.execute(url, "UPDATE Z_PRIMARYKEY SET Z_SUPER = 0 WHERE Z_ENT = \(circle)")
        expectIncompatible(url, naming: ["Circle", "Shape"])
    }
}

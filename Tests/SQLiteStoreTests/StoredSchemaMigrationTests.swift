import CoreData
import StoreTestSupport
import Foundation
import Testing

/// Lightweight migration reads the old store under the names and entity numbers its file has: stores of
/// `StoredSchemaTests`' model, rewritten with raw SQLite into the other layouts Apple's stores may have, migrate
/// to a changed model with every row, every relationship and every order carried over (join rows counted before
/// and after), and reopen. A layout whose names leave the old join table in doubt, or name one without the
/// columns it needs, fails with the file unchanged, never drops the rows.
@Suite struct StoredSchemaMigrationTests {
    static let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                              NSInferMappingModelAutomaticallyOption: true]

    /// How the old model is known: not at all (the new version loaded alone), or as a version of the new
    /// model's package, found by the hashes the store records.
    enum OldModel: CaseIterable { case none, fromPackage }

    /// A package `Boxes.xcdatamodeld` with V1 (`StoredSchemaTests.model()`) and V2: Box gains `weight`, Tag is
    /// renamed Label, Person's `friends` is renamed `buddies`, and Circle and Square lose `label`.
    static func writePackage(current: String) throws -> URL {
        let package = TemporaryStore.directory().appendingPathComponent("Boxes.xcdatamodeld")
        for version in [1, 2] {
            let folder = package.appendingPathComponent("V\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents(version: version).utf8).write(to: folder.appendingPathComponent("contents"))
        }
        try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": current + ".xcdatamodel"], format: .xml, options: 0)
            .write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    static func contents(version: Int) -> String {
        let v2 = version == 2
        let tag = v2 ? "Label" : "Tag"
        let friends = v2 ? "buddies" : "friends"
        func string(_ name: String) -> String { "<attribute name=\"\(name)\" optional=\"YES\" attributeType=\"String\"/>" }
        let label = v2 ? "" : string("label")
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
                <entity name="Box" syncable="YES">
                    \(string("name"))\(v2 ? "\n<attribute name=\"weight\" optional=\"YES\" attributeType=\"Integer 32\" usesScalarValueType=\"NO\"/>" : "")
                    <relationship name="shape" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shape" inverseName="boxes" inverseEntity="Shape"/>
                    <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="\(tag)" inverseName="boxes" inverseEntity="\(tag)"/>
                </entity>
                <entity name="Person" syncable="YES">
                    \(string("name"))
                    <relationship name="\(friends)" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="friendOf" inverseEntity="Person"\(v2 ? " elementID=\"friends\"" : "")/>
                    <relationship name="friendOf" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="\(friends)" inverseEntity="Person"/>
                </entity>
                <entity name="Shape" syncable="YES">
                    \(string("name"))
                    <relationship name="boxes" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Box" inverseName="shape" inverseEntity="Box"/>
                </entity>
                <entity name="Circle" parentEntity="Shape" syncable="YES">
                    <attribute name="size" optional="YES" attributeType="Double" usesScalarValueType="NO"/>
                    \(label)
                </entity>
                <entity name="Square" parentEntity="Shape" syncable="YES">
                    \(string("size"))
                    \(label)
                </entity>
                <entity name="\(tag)" syncable="YES"\(v2 ? " elementID=\"Tag\"" : "")>
                    \(string("name"))
                    <relationship name="boxes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Box" inverseName="tags" inverseEntity="Box"/>
                </entity>
            </model>
            """
    }

    /// A V1 store as `StoredSchemaTests.makeStore` fills it, with c1's boxes put in the order b2, b1 (against
    /// their keys' order, so an order that is not carried over shows), and the package it was made from.
    static func makeStore() throws -> (url: URL, package: URL) {
        let package = try writePackage(current: "V1")
        let (url, _) = try StoredSchemaTests.makeStore(model: NSManagedObjectModel.load(contentsOf: package))
        RawSQLite.execute(url, "UPDATE ZBOX SET Z_FOK_SHAPE = CASE ZNAME WHEN 'b1' THEN 3072 WHEN 'b2' THEN 2048 ELSE Z_FOK_SHAPE END")
        return (url, package)
    }

    /// The V2 model, alone or from the package.
    static func modelV2(_ package: URL, _ oldModel: OldModel) throws -> NSManagedObjectModel {
        try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "V2.xcdatamodel"], format: .xml, options: 0)
            .write(to: package.appendingPathComponent(".xccurrentversion"))
        switch oldModel {
        case .none: return try NSManagedObjectModel.load(contentsOf: package.appendingPathComponent("V2.xcdatamodel"))
        case .fromPackage: return try NSManagedObjectModel.load(contentsOf: package)
        }
    }

    /// What a user of V2 reads: every object's values and relationships, by name.
    static func contentsV2(_ stack: Stack) throws -> [String] {
        try stack.context.performAndWait {
            func fetch(_ entity: String) throws -> [NSManagedObject] {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                return try stack.context.fetch(request)
            }
            func names(_ object: NSManagedObject, _ key: String) -> [String] {
                ((object.value(forKey: key) as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
            }
            var lines: [String] = []
            for shape in try fetch("Shape") {
                let boxes = ((shape.value(forKey: "boxes") as? NSOrderedSet)?.array ?? []).compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }
                lines.append("\(shape.entity.name ?? "") \(shape.value(forKey: "name") ?? "") size=\(shape.value(forKey: "size") ?? "nil") boxes=\(boxes)")
            }
            for box in try fetch("Box") {
                let shape = box.value(forKey: "shape") as? NSManagedObject
                lines.append("Box \(box.value(forKey: "name") ?? "") shape=\(shape?.entity.name ?? "nil"):\(shape?.value(forKey: "name") ?? "nil") "
                             + "tags=\(names(box, "tags")) weight=\(box.value(forKey: "weight") ?? "nil")")
            }
            for label in try fetch("Label") { lines.append("Label \(label.value(forKey: "name") ?? "") boxes=\(names(label, "boxes"))") }
            for person in try fetch("Person") {
                lines.append("Person \(person.value(forKey: "name") ?? "") buddies=\(names(person, "buddies")) friendOf=\(names(person, "friendOf"))")
            }
            return lines
        }
    }

    static let expectedV2 = [
        "Circle c1 size=1.5 boxes=[\"b2\", \"b1\"]",
        "Circle c2 size=2.5 boxes=[]",
        "Square s1 size=large boxes=[\"b3\"]",
        "Box b1 shape=Circle:c1 tags=[\"blue\", \"red\"] weight=nil",
        "Box b2 shape=Circle:c1 tags=[\"red\"] weight=nil",
        "Box b3 shape=Square:s1 tags=[] weight=nil",
        "Label blue boxes=[\"b1\"]",
        "Label red boxes=[\"b1\", \"b2\"]",
        "Person ann buddies=[\"bob\", \"cy\"] friendOf=[]",
        "Person bob buddies=[] friendOf=[\"ann\"]",
        "Person cy buddies=[] friendOf=[\"ann\"]",
    ]

    /// The rows of each join table (a table named `Z_<n>…` other than Core Data's own), by table.
    static func joinRowCounts(_ url: URL) -> [String: Int] {
        let tables = RawSQLite.rows(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*'").map { $0[0] }
        return Dictionary(uniqueKeysWithValues: tables.map { table in
            (table, Int(RawSQLite.rows(url, "SELECT COUNT(*) FROM \"\(table)\"").first?.first ?? "") ?? -1)
        })
    }

    /// Migrates the rewritten store to V2, checks that every object, value, relationship and order arrived and
    /// that the join tables hold as many rows as the old ones (three box–tag pairs, two friendships), then
    /// reopens it without the migration options and reads it again.
    func expectMigrates(_ url: URL, _ package: URL, _ oldModel: OldModel, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = Self.joinRowCounts(url)
        #expect(before.values.sorted() == [2, 3], "\(before)", sourceLocation: sourceLocation)
        let model = try Self.modelV2(package, oldModel)
        let stack = try Stack(model: model, url: url, options: Self.migrate)
        #expect(try Self.contentsV2(stack) == Self.expectedV2, sourceLocation: sourceLocation)
        try stack.close()
        let after = Self.joinRowCounts(url)
        #expect(after.values.sorted() == before.values.sorted(), "\(before) became \(after)", sourceLocation: sourceLocation)
        let reopened = try Stack(model: model, url: url)
        #expect(try Self.contentsV2(reopened) == Self.expectedV2, sourceLocation: sourceLocation)
        try reopened.close()
    }

    @Test(arguments: OldModel.allCases)
    func derivedLayout(_ oldModel: OldModel) throws {
        let (url, package) = try Self.makeStore()
        try expectMigrates(url, package, oldModel)
    }

    @Test(arguments: OldModel.allCases)
    func joinTablesNamedAfterTheOtherSide(_ oldModel: OldModel) throws {
        let (url, package) = try Self.makeStore()
        let box = StoredSchemaTests.number(url, "Box"), person = StoredSchemaTests.number(url, "Person"), tag = StoredSchemaTests.number(url, "Tag")
        RawSQLite.execute(url, """
            ALTER TABLE Z_\(box)TAGS RENAME TO Z_\(tag)BOXES;
            ALTER TABLE Z_\(person)FRIENDOF RENAME TO Z_\(person)FRIENDS;
            """)
        try expectMigrates(url, package, oldModel)
    }

    @Test(arguments: OldModel.allCases)
    func suffixedJoinTablesAndColumns(_ oldModel: OldModel) throws {
        let (url, package) = try Self.makeStore()
        let box = StoredSchemaTests.number(url, "Box"), person = StoredSchemaTests.number(url, "Person"), tag = StoredSchemaTests.number(url, "Tag")
        // As Apple suffixes names another join table or column already has (Z_14USERS1).
        RawSQLite.execute(url, """
            ALTER TABLE Z_\(box)TAGS RENAME TO Z_\(box)TAGS1;
            ALTER TABLE Z_\(box)TAGS1 RENAME COLUMN Z_\(tag)TAGS TO Z_\(tag)TAGS1;
            ALTER TABLE Z_\(person)FRIENDOF RENAME TO Z_\(person)FRIENDS2;
            ALTER TABLE Z_\(person)FRIENDS2 RENAME COLUMN Z_\(person)FRIENDOF TO Z_\(person)FRIENDOF1;
            """)
        try expectMigrates(url, package, oldModel)
    }

    @Test(arguments: OldModel.allCases)
    func suffixedAndOtherwiseNamedColumns(_ oldModel: OldModel) throws {
        let (url, package) = try Self.makeStore()
        // First claimants gone (ZSIZE1, ZSIZE2 left), and the order column named after the to-many.
        RawSQLite.execute(url, """
            ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE1 TO ZSIZE2;
            ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE TO ZSIZE1;
            ALTER TABLE ZBOX RENAME COLUMN Z_FOK_SHAPE TO Z_FOK_BOXES;
            """)
        try expectMigrates(url, package, oldModel)
    }

    @Test func entityNumbersFromTheFile() throws {
        let (url, package) = try Self.makeStore()
        let names = ["Box", "Person", "Shape", "Circle", "Square", "Tag"]
        let old = Dictionary(uniqueKeysWithValues: names.map { ($0, StoredSchemaTests.number(url, $0)) })
        // Numbered backwards, with the colliding columns claimed in that order (Square before Circle), as Apple
        // names them; join tables and their columns carry the new numbers. (The package's V1 numbers the
        // entities otherwise, so the file alone says where things are.)
        StoredSchemaTests.renumber(url, from: old, to: Dictionary(uniqueKeysWithValues: names.map { ($0, names.count + 1 - (old[$0] ?? 0)) }))
        RawSQLite.execute(url, """
            ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE TO TMPSIZE; ALTER TABLE ZSHAPE RENAME COLUMN ZSIZE1 TO ZSIZE;
            ALTER TABLE ZSHAPE RENAME COLUMN TMPSIZE TO ZSIZE1;
            """)
        for oldModel in OldModel.allCases {
            let copy = TemporaryStore.url()
            try FileManager.default.copyItem(at: url, to: copy)
            try expectMigrates(copy, package, oldModel)
        }
    }

    // MARK: Refusals

    /// Opening with V2 and the migration options fails with `code`, naming `names`, and leaves the file as it was.
    func expectRefused(_ url: URL, _ package: URL, _ oldModel: OldModel, code: Int, naming names: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = fileBytes(url)
        let model = try Self.modelV2(package, oldModel)
        let error = thrownError { _ = try Stack(model: model, url: url, options: Self.migrate) }
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == code, "\(error?.localizedDescription ?? "no error")", sourceLocation: sourceLocation)
        for name in names {
            #expect(error?.localizedDescription.contains(name) == true, "\(error?.localizedDescription ?? "no error") should name \(name)",
                    sourceLocation: sourceLocation)
        }
        #expect(fileBytes(url) == before, "the file changed", sourceLocation: sourceLocation)
    }

    /// Without the old model nothing tells two suffixed tables of the relationship's name apart. (With it, the
    /// old model's join tables claim the file's in Apple's suffix order, as when the store is opened.)
    @Test func twoSuffixedJoinTablesAreNotGuessedBetween() throws {
        let (url, package) = try Self.makeStore()
        let box = StoredSchemaTests.number(url, "Box")
        RawSQLite.execute(url, """
            ALTER TABLE Z_\(box)TAGS RENAME TO Z_\(box)TAGS1;
            CREATE TABLE Z_\(box)TAGS2 AS SELECT * FROM Z_\(box)TAGS1;
            """)
        try expectRefused(url, package, .none, code: NSInferredMappingModelError, naming: ["tags", "Z_\(box)TAGS1", "Z_\(box)TAGS2"])
    }

    @Test(arguments: OldModel.allCases)
    func aJoinTableWithoutItsColumnsIsAnError(_ oldModel: OldModel) throws {
        let (url, package) = try Self.makeStore()
        let box = StoredSchemaTests.number(url, "Box"), tag = StoredSchemaTests.number(url, "Tag")
        RawSQLite.execute(url, """
            ALTER TABLE Z_\(box)TAGS RENAME TO Z_\(box)TAGS1;
            ALTER TABLE Z_\(box)TAGS1 RENAME COLUMN Z_\(tag)TAGS TO ZOTHER;
            """)
        try expectRefused(url, package, oldModel, code: NSMigrationError, naming: ["Z_\(box)TAGS1", "tags"])
    }
}

import CoreData
import CoreDataSQLite
import Foundation
import Testing

/// Derived attributes whose triggers read and write one table in two roles: a derivation through a
/// relationship to the entity's own entity (a category's parent, children, or a many-to-many with itself), and
/// a subentity's derivation from its own columns, in the table its siblings share. The conformance cases
/// `derived/to-one-of-own-entity` and `derived/aggregates-over-own-entity` cover the saves; these cover the
/// statements that compute every value when a store gets its triggers, and the rows the SQL itself touches.
@Suite struct DerivedAttributeSharedTableTests {
    static func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
        let attribute = NSDerivedAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.derivationExpressionFormat = format
        return attribute
    }

    /// `Category` {name, rank, parent ⇄ children, following ⇄ followers (many-to-many with itself)} and derived
    /// `parentName` = `parent.name`, `childCount` = `children.@count`, `rankTotal` = `children.@sum.rank`,
    /// `followingCount` = `following.@count`.
    static func categoryModel() -> NSManagedObjectModel {
        let category = NSEntityDescription(name: "Category")
        let parent = NSRelationshipDescription(name: "parent", destination: category, toMany: false)
        let children = NSRelationshipDescription(name: "children", destination: category, toMany: true)
        (parent.inverseRelationship, children.inverseRelationship) = (children, parent)
        let following = NSRelationshipDescription(name: "following", destination: category, toMany: true)
        let followers = NSRelationshipDescription(name: "followers", destination: category, toMany: true)
        (following.inverseRelationship, followers.inverseRelationship) = (followers, following)
        category.properties = [
            NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "rank", type: .integer64),
            parent, children, following, followers,
            derived("parentName", .stringAttributeType, "parent.name"),
            derived("childCount", .integer64AttributeType, "children.@count"),
            derived("rankTotal", .integer64AttributeType, "children.@sum.rank"),
            derived("followingCount", .integer64AttributeType, "following.@count"),
        ]
        return NSManagedObjectModel(entities: [category])
    }

    static func insert(_ entity: String, into context: NSManagedObjectContext, _ values: [String: Any]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// "name: parentName childCount rankTotal followingCount" of every category, sorted.
    static func categoryValues(_ stack: Stack) throws -> [String] {
        try stack.fetch("Category").map { object in
            try stack.context.performAndWait {
                let values = ["parentName", "childCount", "rankTotal", "followingCount"].map { key in
                    object.value(forKey: key).map { "\($0)" } ?? "nil"
                }
                return "\(object.value(forKey: "name") as? String ?? "?"): " + values.joined(separator: " ")
            }
        }.sorted()
    }

    @Test func openingComputesDerivationsThroughTheEntitysOwnTable() throws {
        let model = Self.categoryModel()
        let url = TemporaryStore.url()
        let stack = try Stack(model: model, url: url)
        try stack.context.performAndWait {
            let tools = Self.insert("Category", into: stack.context, ["name": "Tools", "rank": Int64(1)])
            let garden = Self.insert("Category", into: stack.context, ["name": "Garden", "rank": Int64(2)])
            let saws = Self.insert("Category", into: stack.context, ["name": "Saws", "rank": Int64(10), "parent": tools])
            Self.insert("Category", into: stack.context, ["name": "Hoes", "rank": Int64(20), "parent": tools])
            tools.setValue(Set([garden, saws]), forKey: "following")
            try stack.context.save()
        }
        let expected = ["Garden: nil 0 0 0", "Hoes: Tools 0 0 0", "Saws: Tools 0 0 0", "Tools: nil 2 30 2"]
        #expect(try Self.categoryValues(stack) == expected, "the triggers' values")
        try stack.close()
        // As an older version of this package left it: no triggers, no values; opening computes them all.
        for row in RawSQLite.rows(url, "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
            RawSQLite.execute(url, "DROP TRIGGER \(row[0])")
        }
        RawSQLite.execute(url, "UPDATE ZCATEGORY SET ZPARENTNAME = 'stale', ZCHILDCOUNT = 7, ZRANKTOTAL = 7, ZFOLLOWINGCOUNT = 7")
        let reopened = try Stack(model: model, url: url)
        #expect(try Self.categoryValues(reopened) == expected, "the values computed when the store got its triggers")
        try reopened.close()
        #expect(RawSQLite.rows(url, "SELECT ZNAME, IFNULL(ZPARENTNAME, 'NULL'), ZCHILDCOUNT, ZRANKTOTAL, ZFOLLOWINGCOUNT FROM ZCATEGORY ORDER BY ZNAME")
                    .map { $0.joined(separator: " ") }
                == ["Garden NULL 0 0 0", "Hoes Tools 0 0 0", "Saws Tools 0 0 0", "Tools NULL 2 30 2"])
    }

    /// `Item` {name} with subentities `Tool` {derived `lowerName` = `lowercase:(name)`, `copiedName` = `name`,
    /// `stampedAt` = `now()`} and `Plant` {height}: one table, `ZITEM`.
    static func itemModel() -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item"), tool = NSEntityDescription(name: "Tool"), plant = NSEntityDescription(name: "Plant")
        item.subentities = [tool, plant]
        item.properties = [NSAttributeDescription(name: "name", type: .string)]
        tool.properties = [derived("lowerName", .stringAttributeType, "lowercase:(name)"),
                           derived("copiedName", .stringAttributeType, "name"),
                           derived("stampedAt", .dateAttributeType, "now()")]
        plant.properties = [NSAttributeDescription(name: "height", type: .integer64)]
        return NSManagedObjectModel(entities: [item, tool, plant])
    }

    @Test func aSubentitysOwnColumnDerivationsLeaveItsSiblingsRowsAlone() throws {
        let model = Self.itemModel()
        let url = TemporaryStore.url()
        let stack = try Stack(model: model, url: url)
        let updatedAtInsert: Set<String> = try stack.context.performAndWait {
            let tool = Self.insert("Tool", into: stack.context, ["name": "Saw"])
            Self.insert("Plant", into: stack.context, ["name": "Fern", "height": Int64(3)])
            let updated = UpdatedEntities()
            let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: stack.context, queue: nil) {
                updated.add(($0.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? [])
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            try stack.context.save()
            #expect(tool.value(forKey: "lowerName") as? String == "saw")
            #expect(tool.value(forKey: "copiedName") as? String == "Saw")
            #expect(tool.value(forKey: "stampedAt") is Date)
            return updated.names
        }
        #expect(!updatedAtInsert.contains("Plant"), "no derived value of the plant was reported")
        let plant = try #require(try stack.fetch("Plant").first)
        try stack.context.performAndWait {
            plant.setValue("Tall Fern", forKey: "name")
            try stack.context.save()
        }
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT ZNAME, IFNULL(ZLOWERNAME, '-'), IFNULL(ZCOPIEDNAME, '-'), ZSTAMPEDAT IS NOT NULL FROM ZITEM ORDER BY ZNAME")
                    .map { $0.joined(separator: " ") }
                == ["Saw saw Saw 1", "Tall Fern - - 0"], "the plant's row has no tool values, after its insert and its update")
    }
}

/// The entity names of the updated objects of the save notifications an observer received.
///
/// `@unchecked Sendable`: `lock` guards `stored`; the observer writes it on the saving queue, the test reads it after.
private final class UpdatedEntities: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Set<String> = []

    var names: Set<String> { lock.withLock { stored } }
    func add(_ objects: Set<NSManagedObject>) { lock.withLock { stored.formUnion(objects.map { $0.entity.name ?? "?" }) } }
}

import Foundation
import Testing
@testable import CoreDataStoreKit

/// Crafted compiled models (`.mom` keyed archives, as a store's `Z_MODELCACHE` holds them) with Apple's
/// `_NSPropertyDescriptionProxy`, which stands where a subentity refers to a property it inherits. No fixture
/// has one, so the archives are written by hand, with the keys Apple's class encodes
/// (`NSUnderlyingProperty`, `NSEntityDescription`, `NSReferenceID`).
@Suite struct PropertyProxyArchiveTests {
    /// A property-list value of a crafted archive, written as an XML property list (`CF$UID` dictionaries are
    /// keyed-archiver references).
    indirect enum Value {
        case uid(Int), string(String), integer(Int), bool(Bool), array([Value]), dict([(String, Value)])

        var xml: String {
            switch self {
            case .uid(let index): return "<dict><key>CF$UID</key><integer>\(index)</integer></dict>"
            case .string(let text): return "<string>\(text)</string>"
            case .integer(let number): return "<integer>\(number)</integer>"
            case .bool(let flag): return flag ? "<true/>" : "<false/>"
            case .array(let items): return "<array>" + items.map(\.xml).joined() + "</array>"
            case .dict(let entries): return "<dict>" + entries.map { "<key>\($0.0)</key>" + $0.1.xml }.joined() + "</dict>"
            }
        }
    }

    /// Class indexes in the crafted archives.
    enum Class: Int { case model = 20, dictionary, entity, attribute, proxy }

    /// An archive of Parent (`title`: String) and Child (a subentity of Parent with `extra`: Integer 32), in
    /// which Child's `title` is the proxy `proxy` (object 12). `childParent` is Child's `NSSuperentity`;
    /// `parentParent` Parent's. Object 10 is Parent's `title`, 15 an attribute `ghost` no entity has.
    static func archive(proxy: [(String, Value)], childParent: Int? = 5, parentParent: Int? = nil) -> Data {
        func object(_ type: Class, _ fields: [(String, Value)]) -> Value { .dict([("$class", .uid(type.rawValue))] + fields) }
        func dictionary(_ keys: [Int], _ values: [Int]) -> Value {
            object(.dictionary, [("NS.keys", .array(keys.map(Value.uid))), ("NS.objects", .array(values.map(Value.uid)))])
        }
        func attribute(name: Int, type: Int, entity: Int) -> Value {
            object(.attribute, [("NSPropertyName", .uid(name)), ("NSAttributeType", .integer(type)), ("NSEntity", .uid(entity)),
                                ("NSIsOptional", .bool(true))])
        }
        func classInfo(_ name: String) -> Value { .dict([("$classname", .string(name)), ("$classes", .array([.string(name), .string("NSObject")]))]) }
        var objects: [Value] = [
            .string("$null"),
            object(.model, [("NSEntities", .uid(2))]),                                                  // 1
            dictionary([3, 4], [5, 6]),                                                                  // 2
            .string("Parent"), .string("Child"),                                                         // 3, 4
            object(.entity, [("NSEntityName", .uid(3)), ("NSProperties", .uid(7))] + (parentParent.map { [("NSSuperentity", .uid($0))] } ?? [])), // 5
            object(.entity, [("NSEntityName", .uid(4)), ("NSProperties", .uid(8))] + (childParent.map { [("NSSuperentity", .uid($0))] } ?? [])),  // 6
            dictionary([9], [10]),                                                                       // 7 Parent's properties
            dictionary([9, 11], [12, 13]),                                                               // 8 Child's properties
            .string("title"),                                                                            // 9
            attribute(name: 9, type: 700, entity: 5),                                                    // 10
            .string("extra"),                                                                            // 11
            object(.proxy, proxy),                                                                       // 12
            attribute(name: 11, type: 200, entity: 6),                                                   // 13
            .string("ghost"),                                                                            // 14
            attribute(name: 14, type: 700, entity: 5),                                                   // 15
        ]
        while objects.count < 20 { objects.append(.string("$null")) }
        objects += [classInfo("NSManagedObjectModel"), classInfo("NSDictionary"), classInfo("NSEntityDescription"),
                    classInfo("NSAttributeDescription"), classInfo("_NSPropertyDescriptionProxy")]
        let top = Value.dict([("$archiver", .string("NSKeyedArchiver")), ("$version", .integer(100000)),
                              ("$top", .dict([("root", .uid(1))])), ("$objects", .array(objects))])
        return Data((#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + top.xml + "</plist>").utf8)
    }

    static let source = URL(fileURLWithPath: "/crafted/Z_MODELCACHE")

    static func error(_ data: Data) -> NSError? {
        do { _ = try ModelFileLoader.model(fromCompiledData: data, source: source); return nil } catch { return error as NSError }
    }

    /// The same model built in code.
    static func expectedModel() -> NSManagedObjectModel {
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.isOptional = true
        let extra = NSAttributeDescription()
        extra.name = "extra"
        extra.attributeType = .integer32AttributeType
        extra.isOptional = true
        let parent = NSEntityDescription()
        parent.name = "Parent"
        parent.properties = [title]
        let child = NSEntityDescription()
        child.name = "Child"
        child.properties = [extra]
        parent.subentities = [child]
        return NSManagedObjectModel(entities: [child, parent])
    }

    @Test func aProxyReadsAsTheInheritedProperty() throws {
        let data = Self.archive(proxy: [("NSUnderlyingProperty", .uid(10)), ("NSEntityDescription", .uid(6)), ("NSReferenceID", .integer(1))])
        let model = try ModelFileLoader.model(fromCompiledData: data, source: Self.source)
        let child = try #require(model.entitiesByName["Child"])
        #expect(child.superentity?.name == "Parent")
        // Listed as Apple lists them, inherited first; the proxy stands for Parent's own `title`, not a copy.
        #expect(child.properties.map(\.name) == ["title", "extra"])
        #expect(child.properties.first?.entity === model.entitiesByName["Parent"])
        #expect((child.propertiesByName["title"] as? NSAttributeDescription)?.attributeType == .stringAttributeType)
        #expect(model.entityVersionHashesByName == Self.expectedModel().entityVersionHashesByName)
    }

    @Test func aProxyForAPropertyNoSuperentityHasIsAnError() {
        let error = Self.error(Self.archive(proxy: [("NSUnderlyingProperty", .uid(15)), ("NSEntityDescription", .uid(6))]))
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains("ghost") == true, "\(error?.localizedDescription ?? "")")
    }

    @Test func aProxyInAnEntityWithoutSuperentityIsAnError() {
        let error = Self.error(Self.archive(proxy: [("NSUnderlyingProperty", .uid(10))], childParent: nil))
        #expect(error?.code == NSFileReadCorruptFileError)
    }

    @Test func aProxyWithoutUnderlyingPropertyIsAnError() {
        #expect(Self.error(Self.archive(proxy: [("NSEntityDescription", .uid(6))]))?.code == NSFileReadCorruptFileError)
        #expect(Self.error(Self.archive(proxy: [("NSUnderlyingProperty", .uid(3))]))?.code == NSFileReadCorruptFileError)
    }

    @Test func aProxyOfItselfIsAnErrorNotALoop() {
        #expect(Self.error(Self.archive(proxy: [("NSUnderlyingProperty", .uid(12))]))?.code == NSFileReadCorruptFileError)
    }

    @Test func superentitiesInACycleAreAnErrorNotALoop() {
        let data = Self.archive(proxy: [("NSUnderlyingProperty", .uid(10))], childParent: 5, parentParent: 6)
        #expect(Self.error(data)?.code == NSFileReadCorruptFileError)
    }
}

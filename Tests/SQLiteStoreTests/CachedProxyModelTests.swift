import CoreData
import CoreDataSQLite
import Foundation
import StoreTestSupport
import Testing

/// A store whose cached model (`Z_MODELCACHE`) refers to inherited properties through Apple's
/// `_NSPropertyDescriptionProxy`, as iOS and macOS stores do: `SQLiteStore.cachedModel(at:)` reads it and the
/// store opens with it. No fixture store has one, so the cache is crafted (an archive with Apple's keys,
/// stored as raw DEFLATE in stored blocks, which are valid DEFLATE).
@Suite struct CachedProxyModelTests {
    /// Parent (`title`: String) and Child (a subentity with `extra`: Integer 32).
    static func model() -> NSManagedObjectModel {
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

    /// The same model as a keyed archive in which Child's `title` is a proxy whose underlying property is
    /// object `underlying` (10: Parent's `title`; 15: an attribute `ghost` no entity has).
    static func archive(underlying: Int) -> Data {
        func uid(_ index: Int) -> String { "<dict><key>CF$UID</key><integer>\(index)</integer></dict>" }
        func object(_ classIndex: Int, _ fields: String) -> String { "<dict><key>$class</key>\(uid(classIndex))\(fields)</dict>" }
        func dictionary(_ keys: [Int], _ values: [Int]) -> String {
            object(21, "<key>NS.keys</key><array>\(keys.map(uid).joined())</array><key>NS.objects</key><array>\(values.map(uid).joined())</array>")
        }
        func attribute(_ name: Int, _ type: Int, _ entity: Int) -> String {
            object(23, "<key>NSPropertyName</key>\(uid(name))<key>NSAttributeType</key><integer>\(type)</integer><key>NSEntity</key>\(uid(entity))<key>NSIsOptional</key><true/>")
        }
        func classInfo(_ name: String) -> String {
            "<dict><key>$classname</key><string>\(name)</string><key>$classes</key><array><string>\(name)</string><string>NSObject</string></array></dict>"
        }
        var objects = [
            "<string>$null</string>",
            object(20, "<key>NSEntities</key>\(uid(2))"),
            dictionary([3, 4], [5, 6]),
            "<string>Parent</string>", "<string>Child</string>",
            object(22, "<key>NSEntityName</key>\(uid(3))<key>NSProperties</key>\(uid(7))"),
            object(22, "<key>NSEntityName</key>\(uid(4))<key>NSProperties</key>\(uid(8))<key>NSSuperentity</key>\(uid(5))"),
            dictionary([9], [10]),
            dictionary([9, 11], [12, 13]),
            "<string>title</string>",
            attribute(9, 700, 5),
            "<string>extra</string>",
            object(24, "<key>NSUnderlyingProperty</key>\(uid(underlying))<key>NSEntityDescription</key>\(uid(6))<key>NSReferenceID</key><integer>1</integer>"),
            attribute(11, 200, 6),
            "<string>ghost</string>",
            attribute(14, 700, 5),
        ]
        while objects.count < 20 { objects.append("<string>$null</string>") }
        objects += ["NSManagedObjectModel", "NSDictionary", "NSEntityDescription", "NSAttributeDescription", "_NSPropertyDescriptionProxy"].map(classInfo)
        let text = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>$archiver</key><string>NSKeyedArchiver</string>"#
            + "<key>$version</key><integer>100000</integer><key>$top</key><dict><key>root</key>\(uid(1))</dict>"
            + "<key>$objects</key><array>\(objects.joined())</array></dict></plist>"
        return Data(text.utf8)
    }

    /// `data` as raw DEFLATE made of stored blocks.
    static func storedDeflate(_ data: Data) -> Data {
        var out = Data()
        let bytes = [UInt8](data)
        var start = 0
        repeat {
            let count = min(65_535, bytes.count - start)
            let final: UInt8 = start + count == bytes.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += bytes[start..<(start + count)]
            start += count
        } while start < bytes.count
        return out
    }

    /// A store of `model()` holding one Child, whose `Z_MODELCACHE` holds `archive(underlying:)`.
    static func store(underlying: Int) throws -> URL {
        let url = TemporaryStore.url()
        let stack = try Stack(model: model(), url: url)
        try stack.context.performAndWait {
            let child = NSEntityDescription.insertNewObject(forEntityName: "Child", into: stack.context)
            child.setValue("inherited", forKey: "title")
            child.setValue(Int32(3), forKey: "extra")
            try stack.context.save()
        }
        try stack.close()
        let hex = storedDeflate(archive(underlying: underlying)).map { String(format: "%02X", $0) }.joined()
        RawSQLite.execute(url, "DELETE FROM Z_MODELCACHE; INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (X'\(hex)')")
        return url
    }

    @Test func aCachedModelWithProxiesOpensItsStore() throws {
        let url = try Self.store(underlying: 10)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let cached = try #require(try SQLiteStore.cachedModel(at: url))
        #expect(ModelComparison.differences(cached, Self.model()) == [])
        let stack = try Stack(model: cached, url: url, options: [NSReadOnlyPersistentStoreOption: true])
        try stack.context.performAndWait {
            let children = try stack.fetch("Child")
            #expect(children.map { $0.value(forKey: "title") as? String } == ["inherited"])
            #expect(children.map { ($0.value(forKey: "extra") as? NSNumber)?.intValue } == [3])
        }
        try stack.close()
    }

    @Test func aCachedProxyForAPropertyNoSuperentityHasIs259() throws {
        let url = try Self.store(underlying: 15)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let error = thrownError { _ = try SQLiteStore.cachedModel(at: url) }
        #expect(error?.code == NSFileReadCorruptFileError)
    }
}

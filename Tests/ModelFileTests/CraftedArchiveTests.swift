import Foundation
import Testing
@testable import CoreDataStoreKit

/// Crafted Xcode 3 `elements` archives (written as XML property lists, whose `CF$UID` dictionaries are
/// keyed-archiver references): a value that refers to itself is an error naming the file, never a loop.
@Suite struct CraftedArchiveTests {
    /// A property-list value of a crafted archive.
    indirect enum Value {
        case uid(Int), string(String), array([Value]), dict([(String, Value)])

        var xml: String {
            switch self {
            case .uid(let index): return "<dict><key>CF$UID</key><integer>\(index)</integer></dict>"
            case .string(let text): return "<string>\(text)</string>"
            case .array(let items): return "<array>" + items.map(\.xml).joined() + "</array>"
            case .dict(let entries): return "<dict>" + entries.map { "<key>\($0.0)</key>" + $0.1.xml }.joined() + "</dict>"
            }
        }
    }

    /// An `.xcdatamodel` folder whose `elements` archive holds one entity, `Thing`, whose userInfo (the
    /// `XD_PSK_userInfo` of its `XD_PStereotype`) is `{"loop": <object 14>}`, object 14 being `loop`.
    func model(loop: Value, in folder: URL) throws -> URL {
        func object(_ classIndex: Int, _ fields: [(String, Value)]) -> Value { .dict([("$class", .uid(classIndex))] + fields) }
        func dictionary(_ keys: [Int], _ values: [Int]) -> Value {
            object(22, [("NS.keys", .array(keys.map(Value.uid))), ("NS.objects", .array(values.map(Value.uid)))])
        }
        func classInfo(_ name: String) -> Value { .dict([("$classname", .string(name)), ("$classes", .array([.string(name), .string("NSObject")]))]) }
        var objects: [Value] = [
            .string("$null"),
            object(20, [("_xd_rootPackage", .uid(2))]),                               // 1 XDPMModel
            object(21, [("XDBucketForClassesstorage", .uid(3))]),                     // 2 XDModelPackage
            dictionary([4], [5]),                                                     // 3 classes by name
            .string("Thing"),                                                         // 4
            object(23, [("_name", .uid(4)), ("XDBucketForStereotypesstorage", .uid(6))]), // 5 XDPMEntity
            dictionary([7], [8]),                                                     // 6 stereotypes
            .string("XD_PStereotype"),                                                // 7
            object(24, [("XDBucketForOwnedAttributesstorage", .uid(9))]),             // 8 XDUMLStereotypeImp
            dictionary([10], [11]),                                                   // 9
            .string("XD_PSK_userInfo"),                                               // 10
            object(25, [("_default", .uid(12))]),                                     // 11 XDUMLPropertyImp
            dictionary([13], [14]),                                                   // 12 the userInfo
            .string("loop"),                                                          // 13
            loop,                                                                     // 14
        ]
        while objects.count < 20 { objects.append(.string("$null")) }
        objects += [classInfo("XDPMModel"), classInfo("XDModelPackage"), classInfo("NSMutableDictionary"),
                    classInfo("XDPMEntity"), classInfo("XDUMLStereotypeImp"), classInfo("XDUMLPropertyImp"), classInfo("NSMutableArray")]
        let top = Value.dict([("$archiver", .string("NSKeyedArchiver")), ("$version", .string("100000")),
                              ("$top", .dict([("root", .uid(1))])), ("$objects", .array(objects))])
        let text = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + top.xml + "</plist>"
        let url = folder.appendingPathComponent("Crafted.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url.appendingPathComponent("elements"))
        return url
    }

    /// The crafted archive is read at all (so the next test's failure is about the cycle, not the crafting).
    @Test func aCraftedArchiveLoads() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try model(loop: .dict([("$class", .uid(26)), ("NS.objects", .array([.uid(13)]))]), in: folder)
        let model = try NSManagedObjectModel.load(contentsOf: url)
        #expect(model.entitiesByName["Thing"]?.userInfo?["loop"] as? [String] == ["loop"])
    }

    /// An archived array that contains itself is a cycle in the archive's references: refused with 259.
    @Test func aSelfContainingUserInfoArrayIsAnError() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try model(loop: .dict([("$class", .uid(26)), ("NS.objects", .array([.uid(14)]))]), in: folder)
        let error = #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: url) }
        #expect(error?.code == NSFileReadCorruptFileError)
    }

    /// Holding itself twice would double the work at every level of an unchecked walk (2^32 steps): refused at once.
    @Test func anArrayHoldingItselfTwiceIsAnErrorNotAHang() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try model(loop: .dict([("$class", .uid(26)), ("NS.objects", .array([.uid(14), .uid(14)]))]), in: folder)
        let error = #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: url) }
        #expect(error?.code == NSFileReadCorruptFileError)
    }
}

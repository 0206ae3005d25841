import Foundation
import Testing
@testable import CoreDataStoreKit

/// Invalid models give errors naming the file, the entity and the property.
@Suite struct BadModelTests {
    /// Writes a one-version `.xcdatamodeld` holding `contents`, and returns its URL.
    func package(_ contents: String, current: String? = "Model.xcdatamodel", in folder: URL) throws -> URL {
        let package = folder.appendingPathComponent("Model.xcdatamodeld")
        let version = package.appendingPathComponent("Model.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        if let current {
            let plist = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": current], format: .xml, options: 0)
            try plist.write(to: package.appendingPathComponent(".xccurrentversion"))
        }
        return package
    }

    func model(_ body: String) -> String {
        #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel">"# + body + "</model>"
    }

    func loadError(_ contents: String, current: String? = "Model.xcdatamodel") throws -> NSError? {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try package(contents, current: current, in: folder)
        return #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: url) }
    }

    @Test func malformedXML() throws {
        let error = try loadError(#"<?xml version="1.0"?><model><entity name="Person"><attribute name="age" "#)
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains("Model.xcdatamodel/contents") == true)
        #expect(error?.localizedDescription.contains("malformed XML at line 1") == true, "\(error?.localizedDescription ?? "")")
        #expect(error?.userInfo[ModelFileEntityErrorKey] as? String == "Person")
        let unclosed = try loadError(model(#"<entity name="Person"><attribute name="age" attributeType="String"></entity>"#))
        #expect(unclosed?.userInfo[ModelFileEntityErrorKey] as? String == "Person")
        #expect(unclosed?.userInfo[ModelFilePropertyErrorKey] as? String == "age")
        #expect(unclosed?.localizedDescription.contains("malformed XML") == true)
    }

    @Test func unknownAttributeType() throws {
        let error = try loadError(model(#"<entity name="Person"><attribute name="age" attributeType="Integer 128"/></entity>"#))
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.userInfo[ModelFileEntityErrorKey] as? String == "Person")
        #expect(error?.userInfo[ModelFilePropertyErrorKey] as? String == "age")
        let text = error?.localizedDescription ?? ""
        #expect(text.contains("contents") && text.contains("\"Person\"") && text.contains("\"age\"") && text.contains("Integer 128"))
    }

    @Test func missingDestination() throws {
        let error = try loadError(model(#"<entity name="Person"><relationship name="pets" toMany="YES" destinationEntity="Pet"/></entity>"#))
        #expect(error?.userInfo[ModelFileEntityErrorKey] as? String == "Person")
        #expect(error?.userInfo[ModelFilePropertyErrorKey] as? String == "pets")
        #expect(error?.localizedDescription.contains("destination entity \"Pet\" does not exist") == true)
        #expect(error?.localizedDescription.contains("Model.xcdatamodel/contents") == true)
    }

    @Test func missingInverse() throws {
        let error = try loadError(model("""
            <entity name="Person"><relationship name="pets" toMany="YES" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/></entity>
            <entity name="Pet"><attribute name="name" attributeType="String"/></entity>
            """))
        #expect(error?.userInfo[ModelFileEntityErrorKey] as? String == "Person")
        #expect(error?.userInfo[ModelFilePropertyErrorKey] as? String == "pets")
        #expect(error?.localizedDescription.contains("inverse relationship \"owner\" does not exist on entity \"Pet\"") == true)
    }

    @Test func currentVersionMissing() throws {
        let error = try loadError(model(#"<entity name="Person"/>"#), current: "Model 2.xcdatamodel")
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect((error?.userInfo[NSFilePathErrorKey] as? String)?.hasSuffix("Model.xcdatamodeld/.xccurrentversion") == true)
        #expect(error?.localizedDescription.contains("\"Model 2.xcdatamodel\" is not in the package") == true)
    }

    @Test func missingParentAndBadDefault() throws {
        let parent = try loadError(model(#"<entity name="Dog" parentEntity="Animal"/>"#))
        #expect(parent?.userInfo[ModelFileEntityErrorKey] as? String == "Dog")
        #expect(parent?.localizedDescription.contains("parent entity \"Animal\" does not exist") == true)
        let value = try loadError(model(#"<entity name="Dog"><attribute name="age" attributeType="Integer 16" defaultValueString="99999"/></entity>"#))
        #expect(value?.userInfo[ModelFilePropertyErrorKey] as? String == "age")
    }

    @Test func unparseablePredicate() throws {
        let error = try loadError(model("""
            <entity name="Person"><attribute name="name" optional="YES" attributeType="String"/>
            <fetchedProperty name="namesakes" optional="YES"><fetchRequest name="f" entity="Person" predicateString="name == =="/></fetchedProperty></entity>
            """))
        #expect(error?.userInfo[ModelFileEntityErrorKey] as? String == "Person")
        #expect(error?.userInfo[ModelFilePropertyErrorKey] as? String == "namesakes")
        #expect(error?.localizedDescription.contains("does not parse") == true)
    }

    @Test func missingFileAndDamagedArchive() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("Nothing.momd")
        let error = #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: missing) }
        #expect(error?.code == NSFileReadNoSuchFileError)
        #expect(NSManagedObjectModel(contentsOf: missing) == nil)

        let damaged = folder.appendingPathComponent("Damaged.mom")
        try Data("bplist00garbage".utf8).write(to: damaged)
        let archiveError = #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: damaged) }
        #expect(archiveError?.code == NSFileReadCorruptFileError)
        #expect(archiveError?.localizedDescription.contains("Damaged.mom") == true)
    }

    @Test func locatorListsEveryPlaceSearched() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: NSError.self) { try ModelLocator.url(forModelNamed: "NoSuchModel-\(UUID().uuidString)", bundles: [Bundle(path: folder.path)].compactMap { $0 }) }
        let searched = error?.userInfo[ModelFileSearchedURLsErrorKey] as? [URL] ?? []
        #expect(searched.contains { $0.path == folder.standardizedFileURL.path })
        #expect(searched.contains { $0.path == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path })
        #expect(error?.localizedDescription.contains(folder.standardizedFileURL.path) == true)

        _ = try package(model(#"<entity name="Person"/>"#), in: folder)
        let found = try ModelLocator.url(forModelNamed: "Model", bundles: [Bundle(path: folder.path)].compactMap { $0 })
        #expect(found.lastPathComponent == "Model.xcdatamodeld")
    }
}

import Foundation
import Testing
@testable import CoreDataStoreKit

/// Model files Apple's tools write that the common path does not meet: a `.momd` whose `VersionInfo.plist`
/// names no current version, and an Undefined transient attribute (no `attributeType` in the XML).
@Suite struct ModelPackageEdgeCaseTests {
    static let sample3 = "mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3.momd"

    /// A copy of SampleModel3.momd whose VersionInfo.plist has no NSManagedObjectModel_CurrentVersionName,
    /// keeping only the `.mom` files named in `keep`; returns the package and the version hashes it records.
    static func momdWithoutCurrentName(keep: [String], in folder: URL) throws -> (URL, [String: [String: Data]]) {
        let package = folder.appendingPathComponent("SampleModel3.momd")
        try FileManager.default.copyItem(at: try Fixtures.apple(sample3), to: package)
        for name in try FileManager.default.contentsOfDirectory(atPath: package.path) where name.hasSuffix(".mom") || name.hasSuffix(".omo") {
            if !keep.contains((name as NSString).deletingPathExtension) || name.hasSuffix(".omo") {
                try FileManager.default.removeItem(at: package.appendingPathComponent(name))
            }
        }
        let info = package.appendingPathComponent("VersionInfo.plist")
        var plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as? [String: Any])
        plist["NSManagedObjectModel_CurrentVersionName"] = nil
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: info)
        return (package, try #require(plist["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]]))
    }

    @Test func aMomdWithoutCurrentVersionNameUsesItsOnlyMom() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (package, hashes) = try Self.momdWithoutCurrentName(keep: ["SampleModel3_v2"], in: folder)
        let model = try NSManagedObjectModel.load(contentsOf: package)
        #expect(model.entityVersionHashesByName == hashes["SampleModel3_v2"])
        #expect(try NSManagedObjectModel.versions(ofModelAt: package).map { "\($0.name) \($0.isCurrent)" } == ["SampleModel3_v2 true"])
    }

    /// With several `.mom` files nothing says which is current: loading is a 259 error naming VersionInfo.plist,
    /// while the version a store's hashes name is still found.
    @Test func aMomdWithoutCurrentVersionNameAndSeveralMomsPicksByHashes() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (package, hashes) = try Self.momdWithoutCurrentName(keep: ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"], in: folder)
        let error = #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: package) }
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect((error?.userInfo[NSFilePathErrorKey] as? String)?.hasSuffix("VersionInfo.plist") == true)
        let versions = try NSManagedObjectModel.versions(ofModelAt: package)
        #expect(versions.map(\.name) == ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"])
        #expect(versions.allSatisfy { !$0.isCurrent })
        for name in ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"] {
            let metadata: [String: Any] = [NSStoreModelVersionHashesKey: try #require(hashes[name])]
            #expect(try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata)?.name == name)
        }
    }

    static func xcdatamodel(_ attribute: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("Scratch.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Note" syncable="YES">
                    <attribute name="body" optional="YES" attributeType="String"/>
                    \(attribute)
                </entity>
            </model>
            """
        try Data(contents.utf8).write(to: url.appendingPathComponent("contents"))
        return url
    }

    @Test func aTransientAttributeWithoutTypeIsUndefined() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try NSManagedObjectModel.load(contentsOf: try Self.xcdatamodel(#"<attribute name="scratch" optional="YES" transient="YES"/>"#, in: folder))
        let scratch = try #require(model.entitiesByName["Note"]?.attributesByName["scratch"])
        #expect(scratch.attributeType == .undefinedAttributeType)
        #expect(scratch.isTransient)
    }

    @Test func aStoredAttributeWithoutTypeIsAnError() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.xcdatamodel(#"<attribute name="scratch" optional="YES"/>"#, in: folder)
        let error = #expect(throws: NSError.self) { try NSManagedObjectModel.load(contentsOf: url) }
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.userInfo[ModelFilePropertyErrorKey] as? String == "scratch")
    }
}
